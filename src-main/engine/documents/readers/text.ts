import { readFile } from 'node:fs/promises';
import { labelLineFields } from '../labelLines.ts';
import { DocumentReadError, type DocumentReader, type ReadDocument } from '../types.ts';

/** Decodes UTF-8 text (a BOM is dropped); binary or wrongly encoded bytes are a clear error. */
export function decodeText(bytes: Uint8Array, name: string): string {
  try {
    const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
    if (text.includes('\u0000')) throw new Error('NUL');
    return text;
  } catch {
    throw new DocumentReadError(
      `${name}: not a document Portico can read (not PDF, DOCX, XLSX, CSV, JSON, an image or UTF-8 text)`,
    );
  }
}

/** Plain UTF-8 text: one page, its `Label: value` lines as fields. */
export const textReader: DocumentReader = {
  accepts: (contentType) => contentType === 'text/plain',
  async read(file): Promise<ReadDocument> {
    const text = decodeText(await readFile(file.path), file.name);
    return {
      name: file.name,
      contentType: file.contentType,
      size: file.size,
      pages: 1,
      pageTexts: [{ page: null, text, ocr: false }],
      fields: labelLineFields(text, file.name, null),
    };
  },
};
