// Runs in the page while a date field's calendar is open (a date picker dialog or popover, or a calendar
// shown inline): what the visible calendar grid shows — the heading naming the month shown, each day
// cell's accessible name and state, whether it has previous/next buttons, and the month and year
// pickers it holds (a native select, or a button opening a listbox, named or filled as a month or a
// year), and the buttons switching it to a month or year view (stamped "v<i>", named in `views`). In
// such a view the cells are months or years, named as such ("March 1958", "Mar", "1958"). A calendar showing two months or more side by side has a grid per month: every grid is read,
// each cell saying which (`grid`), each grid by its name (`months`). Cells, buttons and pickers are stamped `data-portico-cal` ("c<i>", "prev", "next", "month",
// "year") for the engine to click. `near` is an inline calendar's grid (the field itself, see
// calendarScan.ts); null means the calendar a trigger opened: a grid shown inline on the page (stamped
// `data-portico-inline-cal` by the scan) is never that one. Null when no grid shows.
import { byIds, clean, textOf, visible } from './dom.ts';
import type { CalendarFacts, CalendarPicker } from './scanTypes.ts';

const MONTH_NAMES = /^(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)/i;
/** A button's name saying it shows a month or year view. */
const VIEW =
  /\b(months?|years?|decades?)\s+view\b|\b(switch|go|change|choose|select|pick|show)\b.*\b(months?|years?|decades?)\b/i;
/** A header button naming the month or year shown ("March 2025", "Mar", "2025"). */
const HEADER_PART = /^((jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?(\s+\d{4})?|\d{4})$/i;

export default function calendarGrid(near: Element | null): CalendarFacts | null {
  const grids = Array.from(document.querySelectorAll('[role=grid]')).filter(visible);
  const popups = grids.filter((g) => !g.closest('[data-portico-inline-cal]'));
  const inDialog = popups.filter((g) => g.closest('[role=dialog],dialog'));
  const grid = near ? grids.find((g) => g === near || near.contains(g)) : (inDialog.at(-1) ?? popups.at(-1));
  if (!grid) return null;
  const nameOf = (el: Element): string =>
    clean(el.getAttribute('aria-label')) || byIds(el, el.getAttribute('aria-labelledby')) || clean(textOf(el));
  // The calendar around the grid: the closest ancestor holding a button outside every grid (its
  // previous/next buttons) — another month's grid beside it (two months shown) holds only day cells.
  let box: Element = grid;
  while (box.parentElement && box.parentElement !== document.body) {
    box = box.parentElement;
    if (Array.from(box.querySelectorAll('button,[role=button]')).some((b) => !b.closest('[role=grid]'))) break;
  }
  // Every month the calendar shows: the grids in it, in order (one, or two or more side by side).
  const inline = (g: Element): boolean => g.closest('[data-portico-inline-cal]') !== null;
  const shownGrids = grids.filter((g) => g === grid || (box.contains(g) && inline(g) === inline(grid)));
  for (const el of Array.from(document.querySelectorAll('[data-portico-cal]'))) el.removeAttribute('data-portico-cal');
  const heading =
    clean(
      textOf(
        box.querySelector('h1,h2,h3,h4,h5,h6,[role=heading],caption') ??
          grid.querySelector('caption') ??
          document.createElement('span'),
      ),
    ) || nameOf(grid);
  const cells: CalendarFacts['cells'] = [];
  const months = shownGrids.map((g) => nameOf(g));
  for (const [index, g] of shownGrids.entries())
    for (const cell of Array.from(g.querySelectorAll('[role=gridcell],td'))) {
      const button = cell.querySelector('button,[role=button]') ?? cell;
      // A month or year view's cell may be named by its text only ("Mar", "1958").
      const name =
        clean(button.getAttribute('aria-label')) || clean(cell.getAttribute('aria-label')) || clean(textOf(button));
      if (!name) continue;
      const hidden = !visible(button) || !!button.closest('[aria-hidden=true]');
      const disabled =
        button.getAttribute('aria-disabled') === 'true' ||
        cell.getAttribute('aria-disabled') === 'true' ||
        (button as HTMLButtonElement).disabled === true;
      const mark = `c${cells.length}`;
      button.setAttribute('data-portico-cal', mark);
      cells.push({
        mark,
        name,
        disabled,
        hidden,
        selected: cell.getAttribute('aria-selected') === 'true',
        grid: index,
      });
    }
  const buttons = Array.from(box.querySelectorAll('button,[role=button]')).filter(
    (b) => !b.closest('[role=grid]') && visible(b),
  );
  const nav = (re: RegExp): boolean => {
    const b = buttons.find((x) => re.test(nameOf(x)));
    if (!b) return false;
    b.setAttribute('data-portico-cal', re.source.startsWith('prev') ? 'prev' : 'next');
    return (b as HTMLButtonElement).disabled !== true && b.getAttribute('aria-disabled') !== 'true';
  };
  const PREV = /prev|previous|back|earlier|‹|«|</i;
  const NEXT = /next|forward|later|›|»|>/i;
  const prev = nav(PREV);
  const next = nav(NEXT);
  // Month and year pickers: shown, not hidden from assistive technology (a custom select's hidden native twin).
  const pickers = Array.from(box.querySelectorAll('select,[role=combobox],button[aria-haspopup=listbox]')).filter(
    (p) => !p.closest('[role=grid]') && visible(p) && !p.closest('[aria-hidden=true]'),
  );
  const picker = (part: 'month' | 'year'): CalendarPicker | null => {
    for (const p of pickers) {
      const select = p.tagName === 'SELECT' ? (p as HTMLSelectElement) : null;
      const options = select ? Array.from(select.options).map((o) => clean(o.text)) : [];
      const label = clean(
        [
          p.getAttribute('aria-label'),
          select?.labels?.[0] ? textOf(select.labels[0]) : '',
          p.getAttribute('title'),
          p.getAttribute('name'),
        ].join(' '),
      );
      const byName = new RegExp(`\\b${part}\\b`, 'i').test(label);
      const byOptions =
        options.length >= 2 &&
        (part === 'month'
          ? options.filter((o) => MONTH_NAMES.test(o)).length >= 2
          : options.filter((o) => /^\d{4}$/.test(o)).length >= 2);
      if (!byName && !byOptions) continue;
      p.setAttribute('data-portico-cal', part);
      const shown = select ? clean(select.selectedOptions[0]?.text) : clean(textOf(p));
      return { kind: select ? 'select' : 'listbox', options, shown };
    }
    return null;
  };
  const month = picker('month');
  const year = picker('year');
  // Buttons switching the calendar to a month or year view: named so ("Switch to month view", "Choose
  // year") or naming what the header shows ("March 2025", "2025", "March"); never previous/next.
  const views: string[] = [];
  for (const b of buttons) {
    const name = nameOf(b);
    if (!name || PREV.test(name) || NEXT.test(name) || b.hasAttribute('data-portico-cal')) continue;
    if ((b as HTMLButtonElement).disabled === true || b.getAttribute('aria-disabled') === 'true') continue;
    const says = VIEW.test(name) || HEADER_PART.test(name);
    if (!says) continue;
    b.setAttribute('data-portico-cal', `v${views.length}`);
    views.push(name);
  }
  const range = shownGrids.some((g) => g.getAttribute('aria-multiselectable') === 'true');
  return { heading, cells, prev, next, month, year, months, range, views };
}
