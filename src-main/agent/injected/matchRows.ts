// Runs in the page, on the rows of a frame (actions/rowScope.ts ROW_CSS): the rows a person would say
// "the row of <key>" for: a cell of it reads the key (its shown text: never aria-hidden or visually
// hidden text, such as a responsive table's repeated heading or a link's hidden context), else the key
// is the cell's column header word(s) and the cell ("order 1042"). Header rows, rows a person cannot
// perceive (hidden, aria-hidden, inert, outside an open modal) are never matched. Only the best level
// is returned. With `column`, each row's cell under the header named so (the same text, else the one
// header containing those words).
import perceivable from './perceivable.ts';
import type { MatchRowsArgs, Perceived, RowMatch } from './scanTypes.ts';

const norm = (t: string | null | undefined): string => (t || '').replace(/\s+/g, ' ').trim().toLowerCase();
const words = (t: string): string[] =>
  norm(t)
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

const shown = (root: Node): string => {
  let out = '';
  const walk = (n: Node): void => {
    if (n.nodeType === 3) {
      out += n.textContent;
      return;
    }
    if (n.nodeType !== 1) return;
    const e = n as Element;
    if (e.getAttribute('aria-hidden') === 'true') return;
    const s = getComputedStyle(e);
    if (
      s.display === 'none' ||
      s.visibility === 'hidden' ||
      s.clip === 'rect(0px, 0px, 0px, 0px)' ||
      s.clipPath === 'inset(50%)'
    )
      return;
    const block = s.display !== 'inline';
    if (block) out += ' ';
    if (e.tagName === 'BR') out += ' ';
    for (const c of e.childNodes) walk(c);
    if (block) out += ' ';
  };
  walk(root);
  return out.replace(/\s+/g, ' ').trim();
};

const isCell = (c: Element): boolean =>
  /^(TD|TH|DT|DD)$/.test(c.tagName) || /^(cell|gridcell|columnheader|rowheader)$/.test(c.getAttribute('role') || '');
const cellsOf = (r: Element): Element[] => Array.from(r.children).filter(isCell);
const tableOf = (r: Element): Element | null => r.closest('table, [role=table], [role=grid], [role=treegrid]');
const isHeaderRow = (r: Element): boolean => {
  if (r.closest('thead')) return true;
  const cells = cellsOf(r);
  return (
    cells.length > 0 &&
    r.tagName !== 'DIV' &&
    cells.every(
      (c) => (c.tagName === 'TH' && c.getAttribute('scope') !== 'row') || c.getAttribute('role') === 'columnheader',
    )
  );
};
const columnsOf = (cells: Element[]): number[] => {
  const at: number[] = [];
  let col = 0;
  for (const c of cells) {
    at.push(col);
    col += Number(c.getAttribute('colspan') || 1) || 1;
  }
  return at;
};

export default function matchRows(rows: Element[], args: MatchRowsArgs): RowMatch[] {
  const headersCache = new Map<Element, Array<string | undefined>>();
  const headersOf = (table: Element | null): Array<string | undefined> => {
    if (!table) return [];
    const cached = headersCache.get(table);
    if (cached) return cached;
    const headerRows = Array.from(table.querySelectorAll('tr, [role=row]')).filter(
      (r) => tableOf(r) === table && isHeaderRow(r),
    );
    const names: Array<string | undefined> = [];
    const last = headerRows[headerRows.length - 1];
    if (last) {
      const cells = cellsOf(last);
      const at = columnsOf(cells);
      cells.forEach((c, i) => {
        names[at[i] as number] = shown(c);
      });
    }
    headersCache.set(table, names);
    return names;
  };
  const key = norm(args.key);
  // Cheap first: a row that can match holds the key's last word somewhere in its text (a long table is
  // then read cell by cell, styles and all, only where it may match).
  const last = key.split(' ').pop() || '';
  const maybe: number[] = [];
  rows.forEach((row, index) => {
    if (norm(row.textContent).includes(last)) maybe.push(index);
  });
  const seen = new Map<number, Perceived>();
  perceivable(
    maybe.map((i) => rows[i] as Element),
    false,
  ).forEach((s, k) => {
    seen.set(maybe[k] as number, s);
  });
  const out: RowMatch[] = [];
  for (const index of maybe) {
    const row = rows[index] as Element;
    if (seen.get(index) === 0 || !row.getClientRects().length || isHeaderRow(row)) continue;
    if (row.tagName === 'DIV' && !row.querySelector(':scope > dt')) continue;
    const cells = cellsOf(row);
    const at = columnsOf(cells);
    const headers = row.tagName === 'DIV' ? [] : headersOf(tableOf(row));
    let level = 0 as 0 | 1 | 2;
    cells.forEach((c, i) => {
      const text = norm(shown(c));
      if (!text) return;
      if (text === key) {
        level = 2;
        return;
      }
      const header = headers[at[i] as number];
      if (level < 1 && header && key.endsWith(` ${text}`)) {
        const lead = words(key.slice(0, key.length - text.length));
        const heading = new Set(words(header));
        if (lead.length && lead.every((w) => heading.has(w))) level = 1;
      }
    });
    if (level === 0) continue;
    const match: RowMatch = { index, level };
    if (args.column !== undefined) {
      const wanted = norm(args.column);
      const wantedWords = words(args.column);
      let columns = headers.map((h, col) => (h !== undefined && norm(h) === wanted ? col : -1)).filter((c) => c >= 0);
      if (!columns.length && wantedWords.length) {
        columns = headers
          .map((h, col) => {
            if (h === undefined) return -1;
            const hw = words(h);
            for (let k = 0; k + wantedWords.length <= hw.length; k += 1)
              if (wantedWords.every((w, j) => hw[k + j] === w)) return col;
            return -1;
          })
          .filter((c) => c >= 0);
      }
      if (columns.length > 1) match.cell = { ambiguous: columns.length };
      else if (!columns.length) match.cell = { missing: true };
      else {
        const i = at.indexOf(columns[0] as number);
        const cell = cells[i];
        match.cell = i >= 0 && cell ? { value: shown(cell) } : { missing: true };
      }
    }
    out.push(match);
  }
  const best = Math.max(0, ...out.map((m) => m.level));
  return out.filter((m) => m.level === best);
}
