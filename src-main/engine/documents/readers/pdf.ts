import { readFile } from 'node:fs/promises';
import { inflateSync } from 'node:zlib';
import {
  PDFArray,
  PDFCheckBox,
  PDFDict,
  PDFDocument,
  PDFDropdown,
  PDFName,
  PDFNumber,
  PDFOptionList,
  PDFRadioGroup,
  PDFRawStream,
  PDFStream,
  PDFTextField,
  type PDFField,
} from 'pdf-lib';
import { getDocumentProxy } from 'unpdf';
import { labelLineFields } from '../labelLines.ts';
import { MAX_IMAGE_PIXELS } from './ocr.ts';
import {
  DocumentReadError,
  type DocumentField,
  type DocumentPage,
  type DocumentReader,
  type ReadDocument,
} from '../types.ts';

/** OCR for PDF pages whose text layer is empty (`ocrPdfPages` of readers/ocr.ts, when that reader is built in). */
export type PdfPageOcr = (
  path: string,
  pageNumbers: number[],
  limits: { maxPages: number; signal?: AbortSignal },
) => Promise<DocumentPage[]>;

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));

function isPasswordError(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    ((error as { name?: unknown }).name === 'PasswordException' ||
      (error as { name?: unknown }).name === 'EncryptedPDFError')
  );
}

/** An AcroForm field's value as text: checkboxes `Yes`/`Off`, radios and lists their selected options. */
function fieldValue(field: PDFField): string | undefined {
  if (field instanceof PDFTextField) return field.getText() ?? undefined;
  if (field instanceof PDFCheckBox) return field.isChecked() ? 'Yes' : 'Off';
  if (field instanceof PDFRadioGroup) return field.getSelected() ?? undefined;
  if (field instanceof PDFDropdown || field instanceof PDFOptionList) {
    const selected = field.getSelected();
    return selected.length ? selected.join(', ') : undefined;
  }
  return undefined;
}

/** The 1-based page a field's first widget sits on, or null when it says none. */
function fieldPage(field: PDFField, pageRefs: readonly string[]): number | null {
  const ref = field.acroField.getWidgets()[0]?.P();
  if (!ref) return null;
  const index = pageRefs.indexOf(ref.toString());
  return index >= 0 ? index + 1 : null;
}

/** The PDF's objects by pdf-lib (form fields, image sizes); null when pdf-lib cannot parse what pdf.js could. An encrypted PDF is a clear error. */
async function loadObjects(bytes: Uint8Array, name: string): Promise<PDFDocument | null> {
  try {
    return await PDFDocument.load(bytes, { updateMetadata: false, throwOnInvalidObject: false });
  } catch (error) {
    if (isPasswordError(error))
      throw new DocumentReadError(`${name}: the PDF is encrypted (password protected); upload an unprotected copy`);
    return null;
  }
}

/** The most one content stream (a page's, or a form XObject's) may inflate to: past it, a decompression bomb. */
export const MAX_CONTENT_STREAM_BYTES = 64 * 1024 * 1024;

/** Refuses a Flate stream that inflates past MAX_CONTENT_STREAM_BYTES (zlib stops there: the bomb is never inflated whole). */
function checkStreamSize(stream: PDFStream, what: string, name: string): void {
  if (!(stream instanceof PDFRawStream)) return;
  const filter = stream.dict.lookup(PDFName.of('Filter'));
  const first = filter instanceof PDFArray ? filter.lookup(0) : filter;
  if (first !== PDFName.of('FlateDecode')) return;
  try {
    inflateSync(stream.contents, { maxOutputLength: MAX_CONTENT_STREAM_BYTES });
  } catch (error) {
    if (error instanceof RangeError || (error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new DocumentReadError(
        `${name}: ${what} inflates to more than ${MAX_CONTENT_STREAM_BYTES / (1024 * 1024)} MB (a decompression bomb); refused`,
      );
    }
    // A corrupt stream is pdf.js's to report (or skip).
  }
}

/**
 * Refuses a page whose content streams (its own and its form XObjects') inflate past MAX_CONTENT_STREAM_BYTES,
 * and, when it is about to be rendered for OCR, one that draws an image over MAX_IMAGE_PIXELS (a few kilobytes
 * that would decode to gigabytes), read from the image dictionaries without decoding them.
 */
function checkPage(doc: PDFDocument, pageNumber: number, name: string, rendered: boolean): void {
  const page = doc.getPages()[pageNumber - 1];
  if (!page) return;
  const contents = page.node.Contents();
  const parts = contents instanceof PDFArray ? contents.asArray().map((ref) => doc.context.lookup(ref)) : [contents];
  for (const part of parts) if (part instanceof PDFStream) checkStreamSize(part, `page ${pageNumber}'s content`, name);
  const seen = new Set<PDFDict>();
  const visit = (resources: PDFDict | undefined, depth: number): void => {
    if (!resources || depth > 8) return;
    const xobjects = resources.lookup(PDFName.of('XObject'));
    if (!(xobjects instanceof PDFDict)) return;
    for (const [, ref] of xobjects.entries()) {
      const stream = doc.context.lookup(ref);
      if (!(stream instanceof PDFStream) || seen.has(stream.dict)) continue;
      seen.add(stream.dict);
      const subtype = stream.dict.lookup(PDFName.of('Subtype'));
      if (subtype === PDFName.of('Image') && rendered) {
        const width = stream.dict.lookup(PDFName.of('Width'));
        const height = stream.dict.lookup(PDFName.of('Height'));
        const w = width instanceof PDFNumber ? width.asNumber() : 0;
        const h = height instanceof PDFNumber ? height.asNumber() : 0;
        if (w * h > MAX_IMAGE_PIXELS) {
          throw new DocumentReadError(
            `${name}: page ${pageNumber} holds an image of ${w}×${h} pixels (${Math.round((w * h) / 1e6)} megapixels); images over ${MAX_IMAGE_PIXELS / 1e6} megapixels are refused`,
          );
        }
      } else if (subtype === PDFName.of('Form')) {
        checkStreamSize(stream, `a form on page ${pageNumber}`, name);
        const inner = stream.dict.lookup(PDFName.of('Resources'));
        visit(inner instanceof PDFDict ? inner : undefined, depth + 1);
      }
    }
  };
  visit(page.node.Resources(), 0);
}

/** AcroForm fields (name → value) with their page. */
function formFields(doc: PDFDocument | null, name: string): DocumentField[] {
  if (!doc) return [];
  const pageRefs = doc.getPages().map((page) => page.ref.toString());
  const fields: DocumentField[] = [];
  for (const field of doc.getForm().getFields()) {
    const value = fieldValue(field);
    if (value === undefined || value === '') continue;
    const fieldName = field.getName();
    fields.push({
      name: fieldName,
      value,
      kind: 'form_field',
      source: { document: name, page: fieldPage(field, pageRefs), text: `${fieldName}: ${value}` },
    });
  }
  return fields;
}

interface TextItemLike {
  str?: unknown;
  hasEOL?: unknown;
}

/** Text PDFs by their text layer (unpdf/pdf.js) plus AcroForm fields (pdf-lib); empty pages go to OCR when it is built in. */
export function createPdfReader(options: { ocrPages?: PdfPageOcr } = {}): DocumentReader {
  return {
    accepts: (contentType) => contentType === 'application/pdf',
    async read(file, limits): Promise<ReadDocument> {
      const bytes = new Uint8Array(await readFile(file.path));
      let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
      try {
        // pdf.js takes ownership of the buffer it is given: hand it a copy.
        pdf = await getDocumentProxy(bytes.slice(), { verbosity: 0, stopAtErrors: true });
      } catch (error) {
        if (isPasswordError(error))
          throw new DocumentReadError(
            `${file.name}: the PDF is encrypted (password protected); upload an unprotected copy`,
          );
        throw new DocumentReadError(`${file.name}: a broken PDF (${describe(error)})`);
      }
      try {
        if (pdf.numPages > limits.maxPages) {
          throw new DocumentReadError(
            `${file.name}: has ${pdf.numPages} pages; a bundle reads at most ${limits.maxPages} more pages`,
          );
        }
        const objects = await loadObjects(bytes, file.name);
        const pageTexts: DocumentPage[] = [];
        for (let n = 1; n <= pdf.numPages; n += 1) {
          limits.signal?.throwIfAborted();
          if (objects) checkPage(objects, n, file.name, false);
          const page = await pdf.getPage(n);
          const content = await page.getTextContent();
          const text = (content.items as TextItemLike[])
            .map((item) => (typeof item.str === 'string' ? item.str : '') + (item.hasEOL === true ? '\n' : ''))
            .join('')
            .replace(/[ \t]+\n/g, '\n')
            .trim();
          pageTexts.push({ page: n, text, ocr: false });
          page.cleanup();
        }
        const empty = pageTexts.filter((p) => p.text === '').map((p) => p.page ?? 0);
        if (empty.length && options.ocrPages) {
          if (objects) for (const n of empty) checkPage(objects, n, file.name, true);
          for (const ocred of await options.ocrPages(file.path, empty, limits)) {
            const index = pageTexts.findIndex((p) => p.page === ocred.page);
            if (index >= 0) pageTexts[index] = ocred;
          }
        }
        const fields = [
          ...formFields(objects, file.name),
          ...pageTexts.flatMap((p) => labelLineFields(p.text, file.name, p.page)),
        ];
        return {
          name: file.name,
          contentType: file.contentType,
          size: file.size,
          pages: pdf.numPages,
          pageTexts,
          fields,
        };
      } catch (error) {
        if (error instanceof DocumentReadError || (error instanceof Error && error.name === 'AbortError')) throw error;
        throw new DocumentReadError(`${file.name}: a broken PDF (${describe(error)})`);
      } finally {
        await pdf.loadingTask.destroy();
      }
    },
  };
}
