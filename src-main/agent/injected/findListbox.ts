// Runs in the page, on a select-only combobox: finds the listbox it opened and marks it with `token`
// (a menu of menuitemcheckbox items counts as a multi-select listbox).
// Prefers the list the trigger names (aria-controls/owns), then one that appeared since `mark` ran,
// then the last one open (portals append the open list at the end of the page); a list marked as another
// control's (one still closing) is never this one's. Returns whether visible options exist.
import { allElements, elementById, flatQueryAll, visible } from './dom.ts';

import type { FindListboxArgs } from './scanTypes.ts';

export type { FindListboxArgs };

/** The choices of a list: options, or the checkable items of a multi-select menu. */
const OPTIONS = '[role=option],[role=menuitemcheckbox]';

export default function findListbox(el: Element, args: FindListboxArgs): boolean {
  const { token, mark } = args;
  // Lists rendered in shadow roots count, and so do options slotted into them from the light DOM.
  // A multi-select may pop up a menu of menuitemcheckbox items instead of a listbox (Fluent v9's multiselect Combobox).
  const isList = (l: Element): boolean =>
    l.getAttribute('role') === 'listbox' ||
    (l.getAttribute('role') === 'menu' && !!l.querySelector('[role=menuitemcheckbox]'));
  const open = allElements().filter((l) => isList(l) && visible(l));
  if (mark) {
    for (const l of open) l.setAttribute('data-portico-seen', '1');
    return false;
  }
  let lb: Element | null = null;
  for (const id of (el.getAttribute('aria-controls') || el.getAttribute('aria-owns') || '')
    .split(/\s+/)
    .filter(Boolean)) {
    const t = elementById(el, id);
    const l = t && (isList(t) ? t : flatQueryAll(t, '[role=listbox],[role=menu]').find(isList));
    if (l && visible(l)) {
      lb = l;
      break;
    }
  }
  // Another control's list still closing (a popover's exit animation; it carries that control's mark) is
  // never taken for this one's: this list is waited for until it draws, however late.
  const mine = open.filter((l) => (l.getAttribute('data-portico-listbox') ?? token) === token);
  lb = lb || mine.filter((l) => !l.hasAttribute('data-portico-seen')).pop() || mine.pop() || null;
  const options = lb ? flatQueryAll(lb, OPTIONS) : [];
  if (!lb || !options.some(visible)) return false;
  for (const old of allElements().filter(
    (e) => e.getAttribute('data-portico-listbox') === token || e.getAttribute('data-portico-option') === token,
  )) {
    old.removeAttribute('data-portico-listbox');
    old.removeAttribute('data-portico-option');
  }
  lb.setAttribute('data-portico-listbox', token);
  // Options are marked themselves: slotted ones are not the list's descendants for a selector.
  for (const o of options) o.setAttribute('data-portico-option', token);
  return true;
}
