// Runs in the page, on an open list (marked by findListbox.ts): whether it says it takes several
// choices — aria-multiselectable, or a menu of menuitemcheckbox items.
export default function listTakesMany(l: Element): boolean {
  return l.getAttribute('aria-multiselectable') === 'true' || !!l.querySelector('[role=menuitemcheckbox]');
}
