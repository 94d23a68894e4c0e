import { ValidationError, PayloadTooLargeError } from '../../base/errors.ts';
import { DOCUMENT_MAX_FILE_BYTES, DOCUMENT_MAX_FILES, documentMessages } from '../../contract/document.ts';
import type { OperationsTagged } from '../../contract/operations.ts';
import type { DocumentService, UploadPart } from '../../engine/documents/documentService.ts';
import type { Handlers } from '../operationTable.ts';
import { documentExtractHandler, type ExtractionPreviewer } from './documentExtract.ts';

// Multipart framing around the files; a request declaring more than this cannot be within the limits.
const MULTIPART_OVERHEAD_BYTES = 1024 * 1024;

/** local-service.md §7: document bundles of an org, and the extract preview. */
export function documentHandlers(
  documents: DocumentService,
  preview: ExtractionPreviewer,
): Handlers<OperationsTagged<'documents'>> {
  return {
    uploadDocuments: async ({ params, request }) => {
      const declared = Number(request.headers['content-length'] ?? 0);
      if (declared > DOCUMENT_MAX_FILES * DOCUMENT_MAX_FILE_BYTES + MULTIPART_OVERHEAD_BYTES)
        throw new PayloadTooLargeError(documentMessages.fileTooLarge);
      if (!request.isMultipart()) throw new ValidationError(documentMessages.notMultipart);
      const parts = request.parts({
        limits: { fileSize: DOCUMENT_MAX_FILE_BYTES, files: DOCUMENT_MAX_FILES + 1 },
      }) as AsyncIterable<UploadPart>;
      return documents.upload(params.org_id, parts);
    },
    listDocumentBundles: ({ params, query }) => documents.list(params.org_id, query),
    getDocumentBundle: ({ params }) => documents.get(params.org_id, params.document_bundle_id),
    deleteDocumentBundle: ({ params }) => documents.delete(params.org_id, params.document_bundle_id),
    previewDocumentExtraction: documentExtractHandler(preview),
  };
}
