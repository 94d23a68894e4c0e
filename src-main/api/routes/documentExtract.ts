import type { ExtractionPreview } from '../../engine/documents/extractJob.ts';
import type { Handler } from '../operationTable.ts';

/** What a job on portal `endpointName` would get from a bundle (engine/documents/extractJob.ts `previewExtraction`). */
export type ExtractionPreviewer = (orgId: string, bundleId: string, endpointName: string) => Promise<ExtractionPreview>;

/** local-service.md §7: the extract preview, each value with its source. */
export const documentExtractHandler =
  (preview: ExtractionPreviewer): Handler<'previewDocumentExtraction'> =>
  ({ params, query }) =>
    preview(params.org_id, params.document_bundle_id, query.endpoint_name);
