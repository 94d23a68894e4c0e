import { readFile } from 'node:fs/promises';
import { PDFCheckBox, PDFDocument, PDFDropdown, PDFOptionList, PDFRadioGroup, PDFTextField, type PDFField } from 'pdf-lib';
import { getDocumentProxy } from 'unpdf';
import { labelLineFields } from '../labelLines.ts';
import { DocumentReadError, type DocumentField, type DocumentPage, type DocumentReader, type ReadDocument } from '../types.ts';

/** OCR for PDF pages whose text layer is empty (`ocrPdfPages` of readers/ocr.ts, when that reader is built in). */
export type PdfPageOcr = (path: string, pageNumbers: number[], limits: { maxPages: number; signal?: AbortSignal }) => Promise<DocumentPage[]>;

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));

function isPasswordError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && ((error as { name?: unknown }).name === 'PasswordException' || (error as { name?: unknown }).name === 'EncryptedPDFError');
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

/** AcroForm fields (name → value) with their page; an encrypted PDF is a clear error. */
async function formFields(bytes: Uint8Array, name: string): Promise<DocumentField[]> {
  let doc: PDFDocument;
  try {
    doc = await PDFDocument.load(bytes, { updateMetadata: false, throwOnInvalidObject: false });
  } catch (error) {
    if (isPasswordError(error)) throw new DocumentReadError(`${name}: the PDF is encrypted (password protected); upload an unprotected copy`);
    // The text layer was readable (pdf.js is more forgiving): no form fields then.
    return [];
  }
  const pageRefs = doc.getPages().map((page) => page.ref.toString());
  const fields: DocumentField[] = [];
  for (const field of doc.getForm().getFields()) {
    const value = fieldValue(field);
    if (value === undefined || value === '') continue;
    const fieldName = field.getName();
    fields.push({ name: fieldName, value, kind: 'form_field', source: { document: name, page: fieldPage(field, pageRefs), text: `${fieldName}: ${value}` } });
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
        if (isPasswordError(error)) throw new DocumentReadError(`${file.name}: the PDF is encrypted (password protected); upload an unprotected copy`);
        throw new DocumentReadError(`${file.name}: a broken PDF (${describe(error)})`);
      }
      try {
        if (pdf.numPages > limits.maxPages) {
          throw new DocumentReadError(`${file.name}: has ${pdf.numPages} pages; a bundle reads at most ${limits.maxPages} more pages`);
        }
        const pageTexts: DocumentPage[] = [];
        for (let n = 1; n <= pdf.numPages; n += 1) {
          limits.signal?.throwIfAborted();
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
          for (const ocred of await options.ocrPages(file.path, empty, limits)) {
            const index = pageTexts.findIndex((p) => p.page === ocred.page);
            if (index >= 0) pageTexts[index] = ocred;
          }
        }
        const fields = [
          ...(await formFields(bytes, file.name)),
          ...pageTexts.flatMap((p) => labelLineFields(p.text, file.name, p.page)),
        ];
        return { name: file.name, contentType: file.contentType, size: file.size, pages: pdf.numPages, pageTexts, fields };
      } catch (error) {
        if (error instanceof DocumentReadError || (error instanceof Error && error.name === 'AbortError')) throw error;
        throw new DocumentReadError(`${file.name}: a broken PDF (${describe(error)})`);
      } finally {
        await pdf.loadingTask.destroy();
      }
    },
  };
}
