import { readFile } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import { DocumentReadError, type DocumentReader, type ReadDocument } from '../types.ts';
import { tableFields, tableText } from './table.ts';
import { decodeText } from './text.ts';

/** CSV (or TSV): the header row names the columns; each cell becomes a `csv` field. */
export const csvReader: DocumentReader = {
  accepts: (contentType) => contentType === 'text/csv' || contentType === 'text/tab-separated-values',
  async read(file): Promise<ReadDocument> {
    const text = decodeText(await readFile(file.path), file.name);
    let rows: string[][];
    try {
      rows = parse(text, {
        delimiter: file.contentType === 'text/tab-separated-values' ? '\t' : ',',
        relax_column_count: true,
        relax_quotes: true,
        skip_empty_lines: true,
        bom: true,
      }) as string[][];
    } catch (error) {
      throw new DocumentReadError(
        `${file.name}: not valid CSV (${error instanceof Error ? error.message : String(error)})`,
      );
    }
    return {
      name: file.name,
      contentType: file.contentType,
      size: file.size,
      pages: 1,
      pageTexts: [{ page: null, text: tableText(rows), ocr: false }],
      fields: tableFields(rows, 'csv', file.name, null),
    };
  },
};
