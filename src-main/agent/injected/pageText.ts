// Runs in the page: its visible text (the body's innerText), blank lines folded, at most `max` characters.
export default function pageText(max: number): string {
  return (document.body?.innerText ?? '').replace(/\s+\n/g, '\n').slice(0, max);
}
