import mammoth from 'mammoth';
import { labelLineFields } from '../labelLines.ts';
import { DocumentReadError, type DocumentReader, type ReadDocument } from '../types.ts';
import { inspectZip } from '../zipParts.ts';

export const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/** DOCX: mammoth's raw text (after the zip-bomb check); one page, its `Label: value` lines as fields. */
export const docxReader: DocumentReader = {
  accepts: (contentType) => contentType === DOCX_TYPE,
  async read(file): Promise<ReadDocument> {
    await inspectZip(file.path, file.name);
    let text: string;
    try {
      text = (await mammoth.extractRawText({ path: file.path })).value;
    } catch (error) {
      throw new DocumentReadError(
        `${file.name}: a broken DOCX file (${error instanceof Error ? error.message : String(error)})`,
      );
    }
    text = text.replace(/\n{3,}/g, '\n\n').trim();
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
