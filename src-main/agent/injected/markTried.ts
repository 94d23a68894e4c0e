// Runs in the page, on a tree item about to be expanded: marked with `token` (data-portico-tried), so
// nextTreeItem.ts moves past it whether or not it expands.
export default function markTried(e: Element, t: string): void {
  e.setAttribute('data-portico-tried', t);
}
