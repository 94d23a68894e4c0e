import { DocumentBundleParams, DocumentExtraction, DocumentExtractQuery } from '../../contract/document.ts';
import type { ExtractionPreview } from '../../engine/documents/extractJob.ts';
import type { RouteTable } from '../routeTable.ts';

/** What a job on portal `endpointName` would get from a bundle (engine/documents/extractJob.ts `previewExtraction`). */
export type ExtractionPreviewer = (orgId: string, bundleId: string, endpointName: string) => Promise<ExtractionPreview>;

/** local-service.md §7: the extract preview, each value with its source. */
export function addDocumentExtractRoute(routes: RouteTable, preview: ExtractionPreviewer): void {
  routes.add({
    method: 'POST', url: '/documents/:org_id/:document_bundle_id/extract', tag: 'documents', auth: 'org',
    summary: 'Preview the form_data a job on portal endpoint_name would get from the bundle: values with their sources, and the keys the documents do not settle',
    params: DocumentBundleParams, query: DocumentExtractQuery, response: DocumentExtraction,
    handler: ({ params, query }) => preview(params.org_id, params.document_bundle_id, query.endpoint_name),
  });
}
