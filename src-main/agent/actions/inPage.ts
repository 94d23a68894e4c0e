// Functions the action interpreter runs inside the page, kept as plain JavaScript source so that no
// transpiler helper can leak into what the page runs (the same reason agent/injected compiles its
// scripts). Each is made once with `new Function` and handed to Playwright's evaluate by its text.

function inPage<F>(source: string): F {
  return new Function(`return (${source});`)() as F;
}

/** What a person can perceive of one candidate: 0 not a target (hidden to them), 1 a target, 2 a target but covered at its centre. */
export type Perceived = 0 | 1 | 2;

/**
 * For each element: whether a person sees and can reach it. Not a target: inside an `aria-hidden="true"`
 * subtree or an `inert` one (crossing shadow roots), outside the open modal dialog (`<dialog>` opened
 * with showModal(), or a shown `[aria-modal=true]`), and, when `textOnly` (the element was found by its
 * text, not as a control), text that is visually hidden (clipped to 1px, `clip: rect(0 0 0 0)`, moved
 * off-screen): such text still names its control, it is not something to click or read on its own.
 */
const PERCEIVABLE = `(els, textOnly) => {
  const up = (n) => n.parentElement || (n.parentNode && n.parentNode.host) || null;
  const shown = (e) => {
    if (!e.getClientRects().length) return false;
    const s = getComputedStyle(e);
    return s.visibility !== 'hidden' && s.display !== 'none';
  };
  const modalOf = (doc) => {
    const found = [];
    for (const d of doc.querySelectorAll('dialog')) { try { if (d.matches(':modal')) found.push(d); } catch (e) { /* no :modal */ } }
    for (const d of doc.querySelectorAll('[aria-modal="true"]')) if (shown(d)) found.push(d);
    return found.length ? found[found.length - 1] : null;
  };
  const modal = els.length ? modalOf(els[0].ownerDocument) : null;
  const inside = (outer, el) => { for (let n = el; n; n = up(n)) if (n === outer) return true; return false; };
  const hiddenText = (el) => {
    for (let n = el, depth = 0; n && depth < 6 && n.nodeType === 1; n = up(n), depth += 1) {
      const s = getComputedStyle(n);
      const r = n.getBoundingClientRect();
      if (s.clip === 'rect(0px, 0px, 0px, 0px)' || s.clipPath === 'inset(50%)' || (r.width <= 1 && r.height <= 1 && s.overflow === 'hidden')) return true;
      if (s.position === 'absolute' && (r.right < -100 || r.bottom < -100)) return true;
      if (Number(s.opacity) === 0) return true;
    }
    return false;
  };
  const covered = (el) => {
    const r = el.getBoundingClientRect();
    const x = r.left + r.width / 2;
    const y = r.top + r.height / 2;
    if (r.width < 2 || r.height < 2 || x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) return false;
    let hit = el.ownerDocument.elementFromPoint(x, y);
    while (hit && hit.shadowRoot) { const deeper = hit.shadowRoot.elementFromPoint(x, y); if (!deeper || deeper === hit) break; hit = deeper; }
    if (!hit) return false;
    if (inside(el, hit) || inside(hit, el)) return false;
    if (hit.tagName === 'LABEL' && el.labels && Array.from(el.labels).includes(hit)) return false;
    return true;
  };
  return els.map((el) => {
    for (let n = el; n; n = up(n)) {
      if (n.nodeType !== 1) continue;
      if (n.getAttribute('aria-hidden') === 'true' || n.hasAttribute('inert')) return 0;
    }
    if (modal && !inside(modal, el)) return 0;
    if (textOnly && hiddenText(el)) return 0;
    return covered(el) ? 2 : 1;
  });
}`;
export const perceivable = inPage<(els: Element[], textOnly: boolean) => Perceived[]>(PERCEIVABLE);

/** Rows a key may name: table rows (ARIA ones too) and the rows of a description list (GOV.UK / NHS.UK summary lists). */
export const ROW_CSS = 'tr, [role=row], dl > div';

/** How one row matched a key, and (when a column was asked for) what its cell under that header holds. */
export interface RowMatch {
  index: number;
  /** 2: a cell reads the key; 1: the key is the cell's column header's word(s) and the cell ("order 1042" for 1042 under "Order"). */
  level: 1 | 2;
  cell?: { value: string } | { missing: true } | { ambiguous: number };
}

/**
 * The rows (of `rows`, matched by ROW_CSS) a person would say "the row of <key>" for: a cell of it reads
 * the key (its shown text: never aria-hidden or visually hidden text, such as a responsive table's
 * repeated heading or a link's hidden context), else the key is the cell's column header word(s) and the
 * cell ("order 1042"). Header rows, rows a person cannot perceive (hidden, aria-hidden, inert, outside an
 * open modal) are never matched. Only the best level is returned. With `column`, each row's cell under
 * the header named so (the same text, else the one header containing those words).
 */
export const matchRows = inPage<
  (rows: Element[], args: { key: string; column?: string }) => RowMatch[]
>(`(rows, args) => {
  const perceivable = (${PERCEIVABLE});
  const norm = (t) => (t || '').replace(/\\s+/g, ' ').trim().toLowerCase();
  const words = (t) => norm(t).split(/[^\\p{L}\\p{N}]+/u).filter(Boolean);
  const shown = (root) => {
    let out = '';
    const walk = (n) => {
      if (n.nodeType === 3) { out += n.textContent; return; }
      if (n.nodeType !== 1) return;
      if (n.getAttribute('aria-hidden') === 'true') return;
      const s = getComputedStyle(n);
      if (s.display === 'none' || s.visibility === 'hidden' || s.clip === 'rect(0px, 0px, 0px, 0px)' || s.clipPath === 'inset(50%)') return;
      const block = s.display !== 'inline';
      if (block) out += ' ';
      if (n.tagName === 'BR') out += ' ';
      for (const c of n.childNodes) walk(c);
      if (block) out += ' ';
    };
    walk(root);
    return out.replace(/\\s+/g, ' ').trim();
  };
  const isCell = (c) => /^(TD|TH|DT|DD)$/.test(c.tagName) || /^(cell|gridcell|columnheader|rowheader)$/.test(c.getAttribute('role') || '');
  const cellsOf = (r) => Array.from(r.children).filter(isCell);
  const tableOf = (r) => r.closest('table, [role=table], [role=grid], [role=treegrid]');
  const isHeaderRow = (r) => {
    if (r.closest('thead')) return true;
    const cells = cellsOf(r);
    return cells.length > 0 && r.tagName !== 'DIV' && cells.every((c) => (c.tagName === 'TH' && c.getAttribute('scope') !== 'row') || c.getAttribute('role') === 'columnheader');
  };
  const columnsOf = (cells) => { const at = []; let col = 0; for (const c of cells) { at.push(col); col += Number(c.getAttribute('colspan') || 1) || 1; } return at; };
  const headersCache = new Map();
  const headersOf = (table) => {
    if (!table) return [];
    if (headersCache.has(table)) return headersCache.get(table);
    const headerRows = Array.from(table.querySelectorAll('tr, [role=row]')).filter((r) => tableOf(r) === table && isHeaderRow(r));
    const names = [];
    const last = headerRows[headerRows.length - 1];
    if (last) { const cells = cellsOf(last); const at = columnsOf(cells); cells.forEach((c, i) => { names[at[i]] = shown(c); }); }
    headersCache.set(table, names);
    return names;
  };
  const key = norm(args.key);
  // Cheap first: a row that can match holds the key's last word somewhere in its text (a long table is
  // then read cell by cell, styles and all, only where it may match).
  const last = key.split(' ').pop() || '';
  const maybe = [];
  rows.forEach((row, index) => { if (norm(row.textContent).includes(last)) maybe.push(index); });
  const seen = new Map();
  perceivable(maybe.map((i) => rows[i]), false).forEach((s, k) => seen.set(maybe[k], s));
  const out = [];
  for (const index of maybe) {
    const row = rows[index];
    if (seen.get(index) === 0 || !row.getClientRects().length || isHeaderRow(row)) continue;
    if (row.tagName === 'DIV' && !row.querySelector(':scope > dt')) continue;
    const cells = cellsOf(row);
    const at = columnsOf(cells);
    const headers = row.tagName === 'DIV' ? [] : headersOf(tableOf(row));
    let level = 0;
    cells.forEach((c, i) => {
      const text = norm(shown(c));
      if (!text) return;
      if (text === key) { level = 2; return; }
      const header = headers[at[i]];
      if (level < 1 && header && key.endsWith(' ' + text)) {
        const lead = words(key.slice(0, key.length - text.length));
        const heading = new Set(words(header));
        if (lead.length && lead.every((w) => heading.has(w))) level = 1;
      }
    });
    if (level === 0) continue;
    const match = { index, level };
    if (args.column !== undefined) {
      const wanted = norm(args.column);
      const wantedWords = words(args.column);
      let columns = headers.map((h, col) => (h !== undefined && norm(h) === wanted ? col : -1)).filter((c) => c >= 0);
      if (!columns.length && wantedWords.length) {
        columns = headers.map((h, col) => {
          if (h === undefined) return -1;
          const hw = words(h);
          for (let k = 0; k + wantedWords.length <= hw.length; k += 1) if (wantedWords.every((w, j) => hw[k + j] === w)) return col;
          return -1;
        }).filter((c) => c >= 0);
      }
      if (columns.length > 1) match.cell = { ambiguous: columns.length };
      else if (!columns.length) match.cell = { missing: true };
      else {
        const i = at.indexOf(columns[0]);
        match.cell = i >= 0 && cells[i] ? { value: shown(cells[i]) } : { missing: true };
      }
    }
    out.push(match);
  }
  const best = Math.max(0, ...out.map((m) => m.level));
  return out.filter((m) => m.level === best);
}`);

/**
 * The value a person reads next to a label: for a term of a description list (GOV.UK summary list
 * key) the definition beside it (never the row's actions); for a table header the cell it heads (the
 * only body row's, or the row's own cells for a row header); for a label its control's value; for a
 * legend the chosen options of its fieldset. Null when the element is none of these (its own text is
 * read). `{ambiguous: n}` when a column header heads several rows.
 */
const PAIRED_VALUE = `(el) => {
  const text = (e) => (e.innerText || e.textContent || '').replace(/[ \\t]+\\n/g, '\\n').replace(/\\s+$/, '').trim();
  const controlValue = (c) => {
    if (c instanceof HTMLSelectElement) return Array.from(c.selectedOptions).map((o) => o.text.trim()).join(', ');
    if (c instanceof HTMLInputElement && (c.type === 'checkbox' || c.type === 'radio')) return c.checked ? 'checked' : 'not checked';
    if (c instanceof HTMLInputElement || c instanceof HTMLTextAreaElement) return c.value;
    return null;
  };
  if (el.matches('input, select, textarea')) return null;
  const term = el.closest('dt');
  if (term) {
    for (let n = term.nextElementSibling; n; n = n.nextElementSibling) {
      if (n.tagName === 'DT') break;
      if (n.tagName === 'DD' && !/actions/.test(n.className)) return { value: text(n) };
    }
    return { value: '' };
  }
  const header = el.closest('th, [role=columnheader], [role=rowheader]');
  if (header) {
    const row = header.closest('tr, [role=row]');
    const table = header.closest('table, [role=table], [role=grid]');
    if (!row || !table) return null;
    const cellsOf = (r) => Array.from(r.children).filter((c) => /^(TD|TH)$/.test(c.tagName) || /^(cell|gridcell|columnheader|rowheader)$/.test(c.getAttribute('role') || ''));
    const isRowHeader = header.getAttribute('scope') === 'row' || header.getAttribute('role') === 'rowheader' || (header.parentElement && header.parentElement.closest('tbody') && cellsOf(row)[0] === header && !header.closest('thead'));
    if (isRowHeader) {
      // The row's own values: not its actions (a cell holding only links or buttons).
      const onlyActions = (c) => c.querySelector('a, button') && !Array.from(c.childNodes).some((n) => (n.nodeType === 3 && n.textContent.trim()) || (n.nodeType === 1 && !n.matches('a, button')));
      const cells = cellsOf(row).filter((c) => c !== header && c.tagName !== 'TH' && !onlyActions(c));
      return { value: cells.map(text).filter(Boolean).join('\\n') };
    }
    let column = 0;
    for (const c of cellsOf(row)) { if (c === header) break; column += Number(c.getAttribute('colspan') || 1); }
    const bodyRows = Array.from(table.querySelectorAll('tr, [role=row]')).filter((r) => r !== row && !r.closest('thead') && cellsOf(r).some((c) => c.tagName === 'TD' || /cell/.test(c.getAttribute('role') || '')));
    if (bodyRows.length !== 1) return { ambiguous: bodyRows.length };
    let at = 0;
    for (const c of cellsOf(bodyRows[0])) { if (at === column) return { value: text(c) }; at += Number(c.getAttribute('colspan') || 1); }
    return { value: '' };
  }
  const label = el.closest('label');
  if (label) {
    const control = label.control || label.querySelector('input, select, textarea');
    if (control && !(control instanceof HTMLInputElement && control.type === 'password')) {
      const v = controlValue(control);
      if (v !== null) return { value: v };
    }
  }
  const legend = el.closest('legend');
  if (legend && legend.parentElement && legend.parentElement.tagName === 'FIELDSET') {
    const chosen = Array.from(legend.parentElement.querySelectorAll('input:checked')).map((i) => (i.labels && i.labels[0] ? text(i.labels[0]) : i.value));
    return { value: chosen.join(', ') };
  }
  return null;
}`;
export const pairedValue = inPage<(el: Element) => { value: string } | { ambiguous: number } | null>(PAIRED_VALUE);

/**
 * What an operation needs to know of its element, read in the same call that found it (a replay then
 * costs one call into each frame searched): whether a click toggles a checkbox or radio, whether the
 * input is drawn by its label, whether it is a native select and its options, and what a read returns.
 */
export interface TargetFacts {
  toggle?: boolean | null;
  drawnByLabel?: boolean;
  native?: boolean;
  options?: Array<{ label: string; value: string }>;
  read?: { value: string } | { ambiguous: number } | { text: string | null };
}

/** One probe of a stored target's candidates in one frame (or row): see `probe`. */
export interface Probe {
  seen: Perceived[];
  /** The candidate a person would mean (the only perceivable one, or the only uncovered one), when there is one. */
  pick?: number;
  /** The stored fallback selector matches that element alone in its document (a cheap locator for the operation). */
  bySelector?: boolean;
  /** The element's role is, without doubt, the stored one (found by text: a plain dt is a term). */
  roleSame?: boolean;
  facts?: TargetFacts;
  /** The document's time origin (one document from the next at the same address). */
  doc?: number;
}

/**
 * For the elements a stored role and name (or text) match in one frame: what a person perceives of
 * each (as `perceivable`), the one they would mean, whether the stored selector is that element, and
 * the facts the operation needs (`TargetFacts`): everything a cached replay needs, in one call.
 */
export const probe = inPage<
  (els: Element[], args: { textOnly: boolean; selector: string; role: string; op: string }) => Probe
>(`(els, args) => {
  const perceivable = (${PERCEIVABLE});
  const paired = (${PAIRED_VALUE});
  const seen = perceivable(els, args.textOnly);
  const hits = [];
  seen.forEach((s, i) => { if (s !== 0) hits.push(i); });
  let pick = hits.length === 1 ? hits[0] : -1;
  if (hits.length > 1) { const open = hits.filter((i) => seen[i] === 1); if (open.length === 1) pick = open[0]; }
  if (pick < 0) return { seen };
  const el = els[pick];
  let bySelector = false;
  if (args.selector) { try { const all = el.ownerDocument.querySelectorAll(args.selector); bySelector = all.length === 1 && all[0] === el; } catch (e) { /* not a selector here */ } }
  const implicit = { DT: 'term', DD: 'definition', P: 'paragraph', CAPTION: 'caption', BLOCKQUOTE: 'blockquote' };
  const roleSame = !el.hasAttribute('role') && implicit[el.tagName] === args.role;
  const facts = {};
  if (args.op === 'click' || args.op === 'check') {
    facts.toggle = el instanceof HTMLInputElement && (el.type === 'checkbox' || el.type === 'radio') ? (el.type === 'radio' || !el.checked) : null;
    const r = el.getBoundingClientRect();
    facts.drawnByLabel = r.right <= 0 || r.bottom + scrollY <= 0 || (r.width <= 1 && r.height <= 1);
  }
  if (args.op === 'fill' || args.op === 'select') {
    facts.native = el.tagName === 'SELECT';
    if (facts.native) facts.options = Array.from(el.options).map((o) => ({ label: o.text.replace(/\\s+/g, ' ').trim(), value: o.value }));
  }
  if (args.op === 'extract') {
    const p = el.matches('input, select, textarea') ? null : paired(el);
    facts.read = p || { text: el instanceof HTMLInputElement && el.type === 'password' ? null : el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement ? el.value : el.innerText };
  }
  return { seen, pick, bySelector, roleSame, facts, doc: performance.timeOrigin };
}`);

/** The names a person reads on each control (its labels, aria-label, aria-labelledby, placeholder, a fieldset's legend), for the lexicon tier. */
export const controlNames = inPage<(els: Element[]) => string[][]>(`(els) => els.map((el) => {
  const out = [];
  const add = (t) => { const s = (t || '').replace(/\\s+/g, ' ').trim(); if (s && s.length < 200) out.push(s); };
  if (el.labels) for (const l of el.labels) add(l.textContent);
  add(el.getAttribute('aria-label'));
  const by = el.getAttribute('aria-labelledby');
  if (by) add(by.split(/\\s+/).map((id) => { const n = el.ownerDocument.getElementById(id); return n ? n.textContent : ''; }).join(' '));
  add(el.getAttribute('placeholder'));
  if (el.tagName === 'FIELDSET') { const lg = el.querySelector(':scope > legend'); if (lg) add(lg.textContent); }
  return out;
})`);
