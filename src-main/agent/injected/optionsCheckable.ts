// Runs in the page, on a list's options: whether any `role=option` carries a checked state
// (aria-checked: a list of checkboxes that never says it is multiselectable).
export default function optionsCheckable(els: Element[]): boolean {
  return els.some((e) => e.getAttribute('role') === 'option' && e.hasAttribute('aria-checked'));
}
