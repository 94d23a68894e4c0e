// Field arrays: an array of objects in form_data spread over a form's repeated rows ("Attendee 1",
// "Attendee 2"). Pure decisions on one page scan: which row set holds an array, which targets are row
// i's, and whether the form's own "Add another …" control must be clicked first. Keys of item i only
// ever match controls of row i, so a label repeated in every row ("Phone") is never ambiguous, and
// top-level keys never land in a row an array claimed.
import type { ScannedButton } from '../injected/scanTypes.ts';
import type { Entry } from './entries.ts';
import { MATCH_THRESHOLD, matchEntries, scoreMatch, type Ambiguity, type Placement } from './fieldMatcher.ts';
import type { Target } from './targets.ts';
import { conceptTokens } from './textNorm.ts';

export interface ArrayRows {
  /** The array's dotted key. */
  array: string;
  /** Items in form_data. */
  items: number;
  /** Row i's targets, for the rows the page shows (empty when no row set was recognised). */
  rows: Target[][];
  /** The "Add …" button to click for the next row, when the page shows fewer rows than items. */
  add: ScannedButton | null;
}

const ADD = /^\s*\+?\s*add\b/i;
const singular = (t: string): string => t.replace(/ies$/, 'y').replace(/s$/, '');

/** Whether an "Add …" button is about this array: it names the array (or its items) by a word of its key or title. */
export function addButtonFor(array: string, title: string, buttons: ScannedButton[]): ScannedButton | null {
  const words = new Set([...conceptTokens(array.split('.').pop() ?? array), ...conceptTokens(title)].map(singular));
  const fits = buttons.filter(
    (b) =>
      b.visible &&
      !b.disabled &&
      ADD.test(b.text) &&
      conceptTokens(b.text)
        .map(singular)
        .some((w) => words.has(w)),
  );
  return fits.length === 1 ? (fits[0] as ScannedButton) : null;
}

/** How many of the item's keys find a control in `row` (one apiece). */
function rowFit(item: Entry[], row: Target[]): number {
  return item.filter((e) => row.some((t) => scoreMatch(e, t) >= MATCH_THRESHOLD)).length;
}

/** The row sets of the page, for every array of objects among `entries`. */
export function arrayRows(entries: Entry[], targets: Target[], buttons: ScannedButton[]): ArrayRows[] {
  const arrays = new Map<string, Entry[]>();
  for (const e of entries) if (e.item) arrays.set(e.item.array, [...(arrays.get(e.item.array) ?? []), e]);
  // Row sets: targets by their first control's row container, in row order.
  const sets = new Map<string, Map<number, Target[]>>();
  for (const t of targets) {
    const c = t.controls[0];
    if (!c?.rowSet || c.rowIndex === undefined) continue;
    const rows = sets.get(c.rowSet) ?? new Map<number, Target[]>();
    rows.set(c.rowIndex, [...(rows.get(c.rowIndex) ?? []), t]);
    sets.set(c.rowSet, rows);
  }
  const claimed = new Set<string>();
  const out: ArrayRows[] = [];
  for (const [array, list] of arrays) {
    const items = Math.max(...list.map((e) => (e.item?.index ?? 0) + 1));
    const first = list.filter((e) => e.item?.index === 0);
    const need = Math.min(2, first.length);
    let best: { set: string; score: number } | null = null;
    for (const [set, rows] of sets) {
      if (claimed.has(set)) continue;
      const score = rowFit(first, rows.get(0) ?? []);
      if (score >= need && (!best || score > best.score)) best = { set, score };
    }
    const title = list[0]?.item?.arrayTitle ?? '';
    let rows: Target[][] = [];
    if (best) {
      claimed.add(best.set);
      const byIndex = sets.get(best.set) as Map<number, Target[]>;
      rows = [...byIndex.keys()].sort((a, b) => a - b).map((i) => byIndex.get(i) as Target[]);
    }
    // One row alone is not recognisable as a row: a single item matches it like any field; more items add rows
    // first. A single item whose keys find no controls anywhere on the page has no row yet (a list that starts
    // empty): the form's own "Add …" control makes one.
    const noRowYet = items === 1 && rows.length === 0 && rowFit(first, targets) < Math.max(1, need);
    const add =
      rows.length < items && (rows.length > 0 || items > 1 || noRowYet) ? addButtonFor(array, title, buttons) : null;
    out.push({ array, items, rows, add });
  }
  return out;
}

/**
 * matchEntries with field arrays scoped: item i's keys against row i's targets only, every other key
 * against the targets outside the claimed rows. Of an array whose rows the page does not show (yet), item 0
 * is matched like other keys when no row set was recognised; later items are left for a later page or pass.
 */
export function matchScoped(
  entries: Entry[],
  targets: Target[],
  layout: ArrayRows[],
): { placements: Placement[]; ambiguous: Ambiguity[] } {
  const withRows = new Map(layout.filter((l) => l.rows.length).map((l) => [l.array, l]));
  const inRows = new Set([...withRows.values()].flatMap((l) => l.rows.flat().map((t) => t.id)));
  // Without recognised rows only item 0 is matched like other keys (one row alone looks like any fields);
  // a later item never is: the fields outside a row belong to other keys ("Your name" of the booking
  // contact is not the second attendee's). It waits for its row (the form's own "Add …" control), else
  // it stays unplaced and is asked about or failed on, never guessed.
  const result = matchEntries(
    entries.filter((e) => !e.item || (!withRows.has(e.item.array) && e.item.index === 0)),
    targets.filter((t) => !inRows.has(t.id)),
  );
  for (const l of withRows.values()) {
    l.rows.forEach((row, index) => {
      const r = matchEntries(
        entries.filter((e) => e.item?.array === l.array && e.item.index === index),
        row,
      );
      result.placements.push(...r.placements);
      result.ambiguous.push(...r.ambiguous);
    });
  }
  return result;
}
