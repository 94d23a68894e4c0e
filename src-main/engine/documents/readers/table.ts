import type { DocumentField } from '../types.ts';

/** The most fields a sheet or CSV yields (a huge table is read as text, but only its first rows become fields). */
export const TABLE_MAX_FIELDS = 10_000;

/**
 * Rows of a table as fields: the first row names the columns, each later cell becomes `header → cell`;
 * a two-column sheet also reads as key/value rows (`first cell → second cell`); a CSV's first row is always its header.
 */
export function tableFields(
  rows: readonly (readonly string[])[],
  kind: 'csv' | 'table',
  document: string,
  page: number | null,
): DocumentField[] {
  const fields: DocumentField[] = [];
  const push = (name: string, value: string, row: readonly string[]): boolean => {
    if (fields.length >= TABLE_MAX_FIELDS) return false;
    if (name.trim() && value.trim())
      fields.push({ name: name.trim(), value: value.trim(), kind, source: { document, page, text: row.join(', ') } });
    return true;
  };
  const header = rows[0] ?? [];
  for (const row of rows.slice(1)) {
    for (let c = 0; c < row.length; c += 1) if (!push(header[c] ?? '', row[c] ?? '', row)) return fields;
  }
  const width = Math.max(0, ...rows.map((row) => row.filter((cell) => cell.trim()).length));
  if (kind === 'table' && width === 2)
    for (const row of rows) if (!push(row[0] ?? '', row[1] ?? '', row)) return fields;
  return fields;
}

/** A table as text: one line a row, cells separated by tabs. */
export const tableText = (rows: readonly (readonly string[])[]): string => rows.map((row) => row.join('\t')).join('\n');
