// Runs in the page, on a text control after a fill: what it holds, then leaves it (blur is when
// many sites validate), in one round trip.
export default function readAndLeave(el: Element): string {
  const value = (el as HTMLInputElement).value;
  (el as HTMLElement).blur();
  return value;
}
