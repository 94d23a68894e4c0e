// Runs in the page, on a field just left: the field the focus went to, marked (data-portico-left) and
// its value read without waiting; null when that is the field itself or no input at all.
export default function markFocused(el: Element): string | null {
  const a = el.ownerDocument.activeElement as HTMLInputElement | null;
  if (!a || a === el || typeof a.value !== 'string') return null;
  a.setAttribute('data-portico-left', '1');
  return a.value;
}
