// Runs in the page, on an element an action reads: the value a person reads next to it as a label. For a
// term of a description list (GOV.UK summary list key) the definition beside it (never the row's
// actions); for a table header the cell it heads (the only body row's, or the row's own cells for a row
// header); for a label its control's value; for a legend the chosen options of its fieldset. Null when
// the element is none of these (its own text is read). `{ambiguous: n}` when a column header heads
// several rows.
import type { PairedValue } from './scanTypes.ts';

const text = (e: Element): string =>
  ((e as HTMLElement).innerText || e.textContent || '')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\s+$/, '')
    .trim();

const controlValue = (c: Element): string | null => {
  if (c instanceof HTMLSelectElement)
    return Array.from(c.selectedOptions)
      .map((o) => o.text.trim())
      .join(', ');
  if (c instanceof HTMLInputElement && (c.type === 'checkbox' || c.type === 'radio'))
    return c.checked ? 'checked' : 'not checked';
  if (c instanceof HTMLInputElement || c instanceof HTMLTextAreaElement) return c.value;
  return null;
};

const cellsOf = (r: Element): Element[] =>
  Array.from(r.children).filter(
    (c) => /^(TD|TH)$/.test(c.tagName) || /^(cell|gridcell|columnheader|rowheader)$/.test(c.getAttribute('role') || ''),
  );

export default function pairedValue(el: Element): PairedValue {
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
    const isRowHeader =
      header.getAttribute('scope') === 'row' ||
      header.getAttribute('role') === 'rowheader' ||
      (header.parentElement?.closest('tbody') && cellsOf(row)[0] === header && !header.closest('thead'));
    if (isRowHeader) {
      // The row's own values: not its actions (a cell holding only links or buttons).
      const onlyActions = (c: Element) =>
        c.querySelector('a, button') &&
        !Array.from(c.childNodes).some(
          (n) =>
            (n.nodeType === 3 && (n.textContent ?? '').trim()) ||
            (n.nodeType === 1 && !(n as Element).matches('a, button')),
        );
      const cells = cellsOf(row).filter((c) => c !== header && c.tagName !== 'TH' && !onlyActions(c));
      return { value: cells.map(text).filter(Boolean).join('\n') };
    }
    let column = 0;
    for (const c of cellsOf(row)) {
      if (c === header) break;
      column += Number(c.getAttribute('colspan') || 1);
    }
    const bodyRows = Array.from(table.querySelectorAll('tr, [role=row]')).filter(
      (r) =>
        r !== row &&
        !r.closest('thead') &&
        cellsOf(r).some((c) => c.tagName === 'TD' || /cell/.test(c.getAttribute('role') || '')),
    );
    const only = bodyRows[0];
    if (bodyRows.length !== 1 || !only) return { ambiguous: bodyRows.length };
    let at = 0;
    for (const c of cellsOf(only)) {
      if (at === column) return { value: text(c) };
      at += Number(c.getAttribute('colspan') || 1);
    }
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
  if (legend?.parentElement && legend.parentElement.tagName === 'FIELDSET') {
    const chosen = Array.from(legend.parentElement.querySelectorAll<HTMLInputElement>('input:checked')).map((i) =>
      i.labels?.[0] ? text(i.labels[0]) : i.value,
    );
    return { value: chosen.join(', ') };
  }
  return null;
}
