import { ValidationError, PayloadTooLargeError } from '../../base/errors.ts';
import { OrgIdParam } from '../../contract/common.ts';
import {
  DOCUMENT_MAX_FILE_BYTES, DOCUMENT_MAX_FILES, DocumentBundle, DocumentBundleCreated, DocumentBundleList, DocumentBundleListQuery, DocumentBundleParams,
  documentMessages,
} from '../../contract/document.ts';
import type { DocumentService, UploadPart } from '../../engine/documents/documentService.ts';
import type { RouteTable } from '../routeTable.ts';

// Multipart framing around the files; a request declaring more than this cannot be within the limits.
const MULTIPART_OVERHEAD_BYTES = 1024 * 1024;

/** local-service.md §7: document bundles of an org. */
export function addDocumentRoutes(routes: RouteTable, documents: DocumentService): void {
  routes.add({
    method: 'POST', url: '/documents/:org_id', tag: 'documents', auth: 'org',
    summary: `Upload a document bundle (multipart, one or more "files"; ${DOCUMENT_MAX_FILES} files, ${DOCUMENT_MAX_FILE_BYTES / (1024 * 1024)} MB each); read in the background`,
    params: OrgIdParam, multipart: { fileField: 'files' }, response: DocumentBundleCreated,
    handler: async ({ params, request }) => {
      const declared = Number(request.headers['content-length'] ?? 0);
      if (declared > DOCUMENT_MAX_FILES * DOCUMENT_MAX_FILE_BYTES + MULTIPART_OVERHEAD_BYTES) throw new PayloadTooLargeError(documentMessages.fileTooLarge);
      if (!request.isMultipart()) throw new ValidationError(documentMessages.notMultipart);
      const parts = request.parts({ limits: { fileSize: DOCUMENT_MAX_FILE_BYTES, files: DOCUMENT_MAX_FILES + 1 } }) as AsyncIterable<UploadPart>;
      return documents.upload(params.org_id, parts);
    },
  });
  routes.add({
    method: 'GET', url: '/documents/:org_id', tag: 'documents', auth: 'org',
    summary: 'List the org\'s document bundles, newest first (Portico addition: the console\'s Documents page)',
    params: OrgIdParam, query: DocumentBundleListQuery, response: DocumentBundleList,
    handler: ({ params, query }) => documents.list(params.org_id, query),
  });
  routes.add({
    method: 'GET', url: '/documents/:org_id/:document_bundle_id', tag: 'documents', auth: 'org',
    summary: 'A document bundle: its status and, per document, the type, size, pages and characters read (or why it could not be read)',
    params: DocumentBundleParams, response: DocumentBundle,
    handler: ({ params }) => documents.get(params.org_id, params.document_bundle_id),
  });
  routes.add({
    method: 'DELETE', url: '/documents/:org_id/:document_bundle_id', tag: 'documents', auth: 'org',
    summary: 'Delete a document bundle and its files', params: DocumentBundleParams, status: 204,
    handler: ({ params }) => documents.delete(params.org_id, params.document_bundle_id),
  });
}
