// Runs in the page, on an ARIA radio, checkbox or switch: its state — aria-checked, aria-pressed
// (toggle buttons), else the `checked` property (form-associated custom elements keep their ARIA
// state in ElementInternals).
export default function ariaCheckedState(el: Element): boolean {
  const state = el.getAttribute('aria-checked') ?? el.getAttribute('aria-pressed');
  return state !== null ? state === 'true' : (el as HTMLInputElement).checked === true;
}
