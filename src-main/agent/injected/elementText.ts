// Runs in the page, on one element an action reads: a field's value, else its shown text; null for a
// password field (a secret typed from a variable is never read back).
export default function elementText(el: Element): string | null {
  return el instanceof HTMLInputElement && el.type === 'password'
    ? null
    : el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement
      ? el.value
      : (el as HTMLElement).innerText;
}
