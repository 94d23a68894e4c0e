// Runs in the page, on one element: whether it is its document's focused element.
export default function hasFocus(el: Element): boolean {
  return el.ownerDocument.activeElement === el;
}
