// Runs in the page, on an open list (marked by findListbox.ts): the filter box of its popup — a text
// input with no name beside the list, inside the popup (below any ancestor holding the trigger, a form
// or the body) — marked with `token` (data-portico-filter). Returns whether there is one.
import type { FilterBoxArgs } from './scanTypes.ts';

export default function markFilterBox(lb: Element, args: FilterBoxArgs<Element>): boolean {
  // Only inside the popup: an ancestor holding the trigger (or a form, or the body) is the page, not the popup.
  let n: Element | null = lb.parentElement;
  for (
    let depth = 0;
    n && depth < 4 && n.tagName !== 'BODY' && n.tagName !== 'FORM' && !(args.trigger && n.contains(args.trigger));
    depth += 1, n = n.parentElement
  ) {
    const box = Array.from(n.querySelectorAll('input:not([type=hidden]):not([readonly]):not([name])')).find((i) => {
      const r = i.getBoundingClientRect();
      return !lb.contains(i) && r.width > 1 && r.height > 1;
    });
    if (box) {
      box.setAttribute('data-portico-filter', args.token);
      return true;
    }
  }
  return false;
}
