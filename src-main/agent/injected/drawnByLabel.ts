// Runs in the page, on a checkbox or radio: whether it is moved off-screen or shrunk to a pixel (USWDS,
// sr-only), so that its label, not the input, is what a person clicks.
export default function drawnByLabel(el: Element): boolean {
  const r = el.getBoundingClientRect();
  return r.right <= 0 || r.bottom + scrollY <= 0 || (r.width <= 1 && r.height <= 1);
}
