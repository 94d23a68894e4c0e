// Runs in the page, on a select-only combobox: finds the listbox it opened and marks it with `token`.
// Prefers the list the trigger names (aria-controls/owns), then one that appeared since `mark` ran,
// then the last one open (portals append the open list at the end of the page). Returns whether
// visible options exist.
import { elementById, visible } from './dom.ts';

export interface FindListboxArgs {
  token: string;
  /** Only note the lists open now (before the click), so a new one can be told apart. */
  mark: boolean;
}

export default function findListbox(el: Element, args: FindListboxArgs): boolean {
  const { token, mark } = args;
  const open = Array.from(document.querySelectorAll('[role=listbox]')).filter(visible);
  if (mark) {
    for (const l of open) l.setAttribute('data-portico-seen', '1');
    return false;
  }
  let lb: Element | null = null;
  for (const id of (el.getAttribute('aria-controls') || el.getAttribute('aria-owns') || '').split(/\s+/).filter(Boolean)) {
    const t = elementById(el, id);
    const l = t && (t.getAttribute('role') === 'listbox' ? t : t.querySelector('[role=listbox]'));
    if (l && visible(l)) {
      lb = l;
      break;
    }
  }
  lb = lb || open.filter((l) => !l.hasAttribute('data-portico-seen')).pop() || open.pop() || null;
  if (!lb || !Array.from(lb.querySelectorAll('[role=option]')).some(visible)) return false;
  for (const old of Array.from(document.querySelectorAll(`[data-portico-listbox="${token}"]`))) old.removeAttribute('data-portico-listbox');
  lb.setAttribute('data-portico-listbox', token);
  return true;
}
