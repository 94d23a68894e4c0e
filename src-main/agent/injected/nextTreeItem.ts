// Runs in the page, on a tree's items: the index of the first one neither expanded nor tried yet, which
// is marked tried with `token` at once (data-portico-tried, as markTried.ts marks one), so the next call
// moves past it whether or not it expands; -1 when none is left.
export default function nextTreeItem(els: Element[], t: string): number {
  const index = els.findIndex(
    (e) => e.getAttribute('aria-expanded') !== 'true' && e.getAttribute('data-portico-tried') !== t,
  );
  els[index]?.setAttribute('data-portico-tried', t);
  return index;
}
