import { prepared, type Db } from './database.ts';

/** `column = value` filters; undefined values are left out. */
export type Filters = Record<string, string | number | undefined>;

/**
 * One page of `table` rows matching every given filter, ordered by `orderBy`, with the total
 * count of matches (what the list endpoints answer as `total`).
 */
export function listPage<Row>(
  db: Db,
  table: string,
  filters: Filters,
  orderBy: string,
  limit: number,
  offset: number,
): { rows: Row[]; total: number } {
  const given = Object.entries(filters).filter(([, value]) => value !== undefined);
  const where = given.length ? `WHERE ${given.map(([column]) => `${column} = @${column}`).join(' AND ')}` : '';
  const params = Object.fromEntries(given);
  const total =
    prepared<Record<string, unknown>, { n: number }>(db, `SELECT COUNT(*) AS n FROM ${table} ${where}`).get(params)
      ?.n ?? 0;
  const rows = prepared<Record<string, unknown>, Row>(
    db,
    `SELECT * FROM ${table} ${where} ORDER BY ${orderBy} LIMIT @limit OFFSET @offset`,
  ).all({ ...params, limit, offset });
  return { rows, total };
}
