// Runs in the page, on a list's options: whether each is chosen (aria-selected, else aria-checked).
export default function optionStates(els: Element[]): boolean[] {
  return els.map((e) => (e.getAttribute('aria-selected') ?? e.getAttribute('aria-checked')) === 'true');
}
