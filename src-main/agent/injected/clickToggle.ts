// Runs in the page, on a clicked element: for a checkbox or radio, the state a click means (a radio is
// chosen, a checkbox flips); null for anything else.
export default function clickToggle(el: Element): boolean | null {
  return el instanceof HTMLInputElement && (el.type === 'checkbox' || el.type === 'radio')
    ? el.type === 'radio' || !el.checked
    : null;
}
