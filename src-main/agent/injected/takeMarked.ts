// Runs in the page, on any element of the document: the value of the field markFocused.ts marked, its
// mark removed; null when none is marked.
export default function takeMarked(el: Element): string | null {
  const a = el.ownerDocument.querySelector('[data-portico-left]') as HTMLInputElement | null;
  a?.removeAttribute('data-portico-left');
  return a ? a.value : null;
}
