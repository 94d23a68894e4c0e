import { z } from 'zod';
import { Timestamp } from './common.ts';

/** Limits of local-service.md §7. */
export const DOCUMENT_MAX_FILE_BYTES = 50 * 1024 * 1024;
export const DOCUMENT_MAX_FILES = 20;
export const DOCUMENT_MAX_PAGES = 200;

export const documentMessages = {
  bundleNotFound: 'Document bundle not found',
  fileTooLarge: `body.files: a file is larger than ${DOCUMENT_MAX_FILE_BYTES / (1024 * 1024)} MB`,
  tooManyFiles: `body.files: at most ${DOCUMENT_MAX_FILES} files a bundle`,
  noFiles: "body.files: is required (one or more files in the multipart field 'files')",
  tooManyPages: `The bundle has more than ${DOCUMENT_MAX_PAGES} pages`,
  stillProcessing: 'The document bundle is still being processed',
  bundleFailed: (error: string) => `The document bundle could not be read: ${error}`,
  notMultipart: "body: must be multipart/form-data with one or more file fields named 'files'",
} as const;

export const DocumentBundleParams = z.object({ org_id: z.string().min(1), document_bundle_id: z.string().min(1) });

export const BundleStatus = z.enum(['processing', 'completed', 'failed']);

/** Response of POST /documents/{org_id}. */
export const DocumentBundleCreated = z.object({
  document_bundle_id: z.string(),
  status: BundleStatus,
});
export type DocumentBundleCreated = z.infer<typeof DocumentBundleCreated>;

/** One document of a bundle as GET shows it; pages and text_chars are null until it is read. */
export const DocumentSummary = z.object({
  name: z.string(),
  content_type: z.string(),
  size: z.number().int(),
  pages: z.number().int().nullable(),
  text_chars: z.number().int().nullable(),
  error: z.string().nullable(),
});
export type DocumentSummary = z.infer<typeof DocumentSummary>;

/** Response of GET /documents/{org_id}/{document_bundle_id}. */
export const DocumentBundle = z.object({
  id: z.string(),
  status: BundleStatus,
  documents: z.array(DocumentSummary),
  error: z.string().nullable(),
  created_at: Timestamp,
});
export type DocumentBundle = z.infer<typeof DocumentBundle>;

/** Query of GET /documents/{org_id}: newest first, paged like the job list. */
export const DocumentBundleListQuery = z.object({
  status: BundleStatus.optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  offset: z.coerce.number().int().min(0).default(0),
});
export type DocumentBundleListQuery = z.infer<typeof DocumentBundleListQuery>;

/** Response of GET /documents/{org_id}: one page of the org's bundles and how many there are in all. */
export const DocumentBundleList = z.object({ document_bundles: z.array(DocumentBundle), total: z.int() });
export type DocumentBundleList = z.infer<typeof DocumentBundleList>;

/** Query of POST /documents/{org_id}/{document_bundle_id}/extract: the portal whose form_schema to fill. */
export const DocumentExtractQuery = z.object({ endpoint_name: z.string().min(1) });

/** Where an extracted value came from; `ocr` when that text was read by OCR. */
export const ExtractionSource = z.object({
  document: z.string(),
  page: z.number().int().nullable(),
  text: z.string(),
  ocr: z.boolean().optional(),
});

/** Response of POST …/extract: the form_data a job on the portal would get, each value's source, and the keys the documents do not settle (with why). */
export const DocumentExtraction = z.object({
  form_data: z.record(z.string(), z.unknown()),
  sources: z.record(z.string(), ExtractionSource),
  missing: z.array(z.string()),
  reasons: z.record(z.string(), z.string()),
});
export type DocumentExtraction = z.infer<typeof DocumentExtraction>;
