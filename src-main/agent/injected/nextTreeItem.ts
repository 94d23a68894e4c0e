// Runs in the page, on a tree's items: the index of the first one neither expanded nor tried yet
// (markTried.ts marks those with `token`); -1 when none is left.
export default function nextTreeItem(els: Element[], t: string): number {
  return els.findIndex((e) => e.getAttribute('aria-expanded') !== 'true' && e.getAttribute('data-portico-tried') !== t);
}
