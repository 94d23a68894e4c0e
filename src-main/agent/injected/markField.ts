// Runs in the page, on one control: marks it with the attribute `name` (empty value), e.g. the secret-field
// marker that screenshots and recordings paint over (browser/pageScreenshot.ts SECRET_FIELD_ATTRIBUTE).
export default function markField(el: Element, name: string): void {
  el.setAttribute(name, '');
}
