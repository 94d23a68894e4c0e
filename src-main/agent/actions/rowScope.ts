import type { Frame, Locator, Page } from 'playwright-core';
import { matchRows, type RowMatch } from '../injected/index.ts';

import { searchFrames } from './searchFrames.ts';
import { TargetError } from './targetResolver.ts';

/** Rows a key may name: table rows (ARIA ones too) and the rows of a description list (GOV.UK / NHS.UK summary lists). */
export const ROW_CSS = 'tr, [role=row], dl > div';

/** The one row a key names, and (when a column was asked for) its cell under that header. */
export interface FoundRow {
  row: Locator;
  cell?: RowMatch['cell'];
}

/**
 * The row of the page (its frames included) that a person would call "the row of <key>": a table row or a
 * description-list row with a cell reading the key (see `matchRows`). Undefined when no row has it;
 * several rows at the best level → TargetError (ambiguous): a row is never picked among look-alikes.
 */
export async function findRow(
  page: Page,
  key: string,
  column?: string,
  frames?: readonly Frame[],
): Promise<FoundRow | undefined> {
  const scopes = frames ?? (await searchFrames(page));
  const args = {
    key: key.replace(/\s+/g, ' ').trim(),
    ...(column !== undefined && { column: column.replace(/\s+/g, ' ').trim() }),
  };
  if (!args.key) return undefined;
  const found = await Promise.all(
    scopes.map(async (frame) => {
      const rows = frame.locator(ROW_CSS);
      return { rows, matches: await rows.evaluateAll(matchRows, args).catch(() => [] as RowMatch[]) };
    }),
  );
  const best = Math.max(0, ...found.flatMap((f) => f.matches.map((m) => m.level)));
  const hits = found.flatMap((f) => f.matches.filter((m) => m.level === best).map((m) => ({ rows: f.rows, match: m })));
  if (hits.length > 1)
    throw new TargetError(
      `Ambiguous row: ${hits.length} rows match ${JSON.stringify(args.key)}; name the row more precisely`,
      'ambiguous',
    );
  const hit = hits[0];
  if (!hit) return undefined;
  return { row: hit.rows.nth(hit.match.index), ...(hit.match.cell && { cell: hit.match.cell }) };
}
