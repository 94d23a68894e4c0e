// Runs in the page while a date field's calendar is open (a date picker dialog or popover, or a calendar
// shown inline): what the visible calendar grid shows — the heading naming the month shown, each day
// cell's accessible name and state, and whether it has previous/next buttons. Cells and buttons are
// stamped `data-portico-cal` ("c<i>", "prev", "next") for the engine to click. `near` (optional) is
// the field's own element: a grid inside it (an inline calendar) is preferred. Null when no grid shows.
import { byIds, clean, textOf, visible } from './dom.ts';
import type { CalendarFacts } from './scanTypes.ts';

export default function calendarGrid(near: Element | null): CalendarFacts | null {
  const grids = Array.from(document.querySelectorAll('[role=grid]')).filter(visible);
  const inside = near ? grids.filter((g) => near.contains(g) || (near.parentElement?.contains(g) ?? false)) : [];
  const inDialog = grids.filter((g) => g.closest('[role=dialog],dialog'));
  const grid = inside.at(-1) ?? inDialog.at(-1) ?? grids.at(-1);
  if (!grid) return null;
  const nameOf = (el: Element): string =>
    clean(el.getAttribute('aria-label')) || byIds(el, el.getAttribute('aria-labelledby')) || clean(textOf(el));
  // The calendar around the grid: the closest ancestor holding a button besides the grid's own cells.
  let box: Element = grid;
  while (box.parentElement && box.parentElement !== document.body) {
    box = box.parentElement;
    if (Array.from(box.querySelectorAll('button,[role=button]')).some((b) => !grid.contains(b))) break;
  }
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
  for (const cell of Array.from(grid.querySelectorAll('[role=gridcell],td'))) {
    const button = cell.querySelector('button,[role=button]') ?? cell;
    const name = clean(button.getAttribute('aria-label')) || clean(cell.getAttribute('aria-label'));
    if (!name) continue;
    const hidden = !visible(button) || !!button.closest('[aria-hidden=true]');
    const disabled =
      button.getAttribute('aria-disabled') === 'true' ||
      cell.getAttribute('aria-disabled') === 'true' ||
      (button as HTMLButtonElement).disabled === true;
    const mark = `c${cells.length}`;
    button.setAttribute('data-portico-cal', mark);
    cells.push({ mark, name, disabled, hidden, selected: cell.getAttribute('aria-selected') === 'true' });
  }
  const buttons = Array.from(box.querySelectorAll('button,[role=button]')).filter(
    (b) => !grid.contains(b) && visible(b),
  );
  const nav = (re: RegExp): boolean => {
    const b = buttons.find((x) => re.test(nameOf(x)));
    if (!b) return false;
    b.setAttribute('data-portico-cal', re.source.startsWith('prev') ? 'prev' : 'next');
    return (b as HTMLButtonElement).disabled !== true && b.getAttribute('aria-disabled') !== 'true';
  };
  const prev = nav(/prev|previous|back|earlier|‹|«|</i);
  const next = nav(/next|forward|later|›|»|>/i);
  return { heading, cells, prev, next };
}
