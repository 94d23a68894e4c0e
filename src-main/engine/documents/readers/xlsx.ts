import ExcelJS from 'exceljs';
import { labelLineFields } from '../labelLines.ts';
import { DocumentReadError, type DocumentField, type DocumentReader, type ReadDocument } from '../types.ts';
import { inspectZip } from '../zipParts.ts';
import { tableFields, tableText } from './table.ts';

export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const MAX_ROWS = 100_000;

/** XLSX: each sheet a page (its cells as tab-separated lines); header row + rows as `table` fields. */
export const xlsxReader: DocumentReader = {
  accepts: (contentType) => contentType === XLSX_TYPE,
  async read(file, limits): Promise<ReadDocument> {
    await inspectZip(file.path, file.name);
    const workbook = new ExcelJS.Workbook();
    try {
      await workbook.xlsx.readFile(file.path);
    } catch (error) {
      throw new DocumentReadError(
        `${file.name}: a broken XLSX file (${error instanceof Error ? error.message : String(error)})`,
      );
    }
    const sheets = workbook.worksheets;
    if (sheets.length > limits.maxPages)
      throw new DocumentReadError(
        `${file.name}: has ${sheets.length} sheets; a bundle reads at most ${limits.maxPages} more pages`,
      );
    const pageTexts: ReadDocument['pageTexts'] = [];
    const fields: DocumentField[] = [];
    sheets.forEach((sheet, index) => {
      const page = index + 1;
      const rows: string[][] = [];
      sheet.eachRow({ includeEmpty: false }, (row) => {
        if (rows.length >= MAX_ROWS) return;
        const cells: string[] = [];
        for (let c = 1; c <= row.cellCount; c += 1) cells.push(row.getCell(c).text ?? '');
        rows.push(cells);
      });
      const text = tableText(rows);
      pageTexts.push({ page, text, ocr: false });
      fields.push(...tableFields(rows, 'table', file.name, page), ...labelLineFields(text, file.name, page));
    });
    return {
      name: file.name,
      contentType: file.contentType,
      size: file.size,
      pages: Math.max(1, sheets.length),
      pageTexts,
      fields,
    };
  },
};
