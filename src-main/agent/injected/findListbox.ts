// Runs in the page, on a select-only combobox: finds the listbox it opened and marks it with `token`.
// Prefers the list the trigger names (aria-controls/owns), then one that appeared since `mark` ran,
// then the last one open (portals append the open list at the end of the page). Returns whether
// visible options exist.
import { allElements, elementById, flatQueryAll, visible } from './dom.ts';

export interface FindListboxArgs {
  token: string;
  /** Only note the lists open now (before the click), so a new one can be told apart. */
  mark: boolean;
}

export default function findListbox(el: Element, args: FindListboxArgs): boolean {
  const { token, mark } = args;
  // Lists rendered in shadow roots count, and so do options slotted into them from the light DOM.
  const open = allElements().filter((l) => l.getAttribute('role') === 'listbox' && visible(l));
  if (mark) {
    for (const l of open) l.setAttribute('data-portico-seen', '1');
    return false;
  }
  let lb: Element | null = null;
  for (const id of (el.getAttribute('aria-controls') || el.getAttribute('aria-owns') || '').split(/\s+/).filter(Boolean)) {
    const t = elementById(el, id);
    const l = t && (t.getAttribute('role') === 'listbox' ? t : flatQueryAll(t, '[role=listbox]')[0]);
    if (l && visible(l)) {
      lb = l;
      break;
    }
  }
  lb = lb || open.filter((l) => !l.hasAttribute('data-portico-seen')).pop() || open.pop() || null;
  const options = lb ? flatQueryAll(lb, '[role=option]') : [];
  if (!lb || !options.some(visible)) return false;
  for (const old of allElements().filter((e) => e.getAttribute('data-portico-listbox') === token || e.getAttribute('data-portico-option') === token)) {
    old.removeAttribute('data-portico-listbox');
    old.removeAttribute('data-portico-option');
  }
  lb.setAttribute('data-portico-listbox', token);
  // Options are marked themselves: slotted ones are not the list's descendants for a selector.
  for (const o of options) o.setAttribute('data-portico-option', token);
  return true;
}
