// Runs in the page, on a checkbox or radio a design system draws on its label: clicks its first label
// unless it already is as wanted; whether it is as wanted afterwards.
export default function toggleByLabel(el: Element, want: boolean): boolean {
  const input = el as HTMLInputElement;
  if (input.checked === want) return true;
  input.labels?.[0]?.click();
  return input.checked === want;
}
