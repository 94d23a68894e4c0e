/**
 * What reading a document yields, shared by the readers (PDF, OCR, DOCX, sheets, JSON, text) and the
 * extractor that maps it onto a portal's form_schema. Every piece of text keeps where it came from.
 */

import { PorticoError } from '../../base/errors.ts';

/** Where a value was read: the document's name, its 1-based page (null when the format has no pages), and the text it came from. */
export interface DocumentSource {
  document: string;
  page: number | null;
  text: string;
}

/** A named value the document states outright: an AcroForm field, a `Label: value` line, a table row, a JSON key. */
export interface DocumentField {
  /** The name as the document gives it ("Full name", "applicant.dob", a CSV header). */
  name: string;
  value: string;
  /** How it was found, so a preview can say so. */
  kind: 'form_field' | 'label_line' | 'table' | 'json' | 'csv';
  source: DocumentSource;
}

/** One read page (or the whole text, for formats without pages). */
export interface DocumentPage {
  /** 1-based; null for formats without pages. */
  page: number | null;
  text: string;
  /** Whether this page's text came from OCR (its characters may be wrong; the extractor says so in the source). */
  ocr: boolean;
  /**
   * A page read by OCR (no text layer) as the model sees it, a JPEG of at most MODEL_IMAGE_MAX_PIXELS:
   * `imageBytes` as the reader made it; the service stores them as the bundle file `image` (`<n>.p<page>.jpg`),
   * and `imageBase64` is what `DocumentService.read` loads for the model (never stored).
   */
  image?: string;
  imageBytes?: Uint8Array;
  imageBase64?: string;
}

/** The most page images one model extraction sees, and the most a document keeps (the first pages read by OCR). */
export const MODEL_MAX_PAGE_IMAGES = 8;
/** A page image for the model is scaled down to at most this many pixels, and this long a side. */
export const MODEL_IMAGE_MAX_PIXELS = 1_150_000;
export const MODEL_IMAGE_MAX_SIDE = 1568;

/** One document of a bundle, read. */
export interface ReadDocument {
  name: string;
  contentType: string;
  size: number;
  /** Page count (1 for formats without pages). */
  pages: number;
  pageTexts: DocumentPage[];
  fields: DocumentField[];
}

/** Reads one stored file; throws `DocumentReadError` (a clear, user-facing reason) for a broken, encrypted or hostile file. */
export interface DocumentReader {
  /** Whether this reader takes the file, by content type and first bytes (never by extension alone). */
  accepts(contentType: string, head: Uint8Array, name: string): boolean;
  read(
    file: { path: string; name: string; contentType: string; size: number },
    limits: { maxPages: number; signal?: AbortSignal },
  ): Promise<ReadDocument>;
}

/** A file that cannot be read; `message` is shown to the user as the bundle's `error`. */
export class DocumentReadError extends PorticoError {}
