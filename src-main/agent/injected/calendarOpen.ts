// Runs in the page, on a text date field just filled: is a calendar it opened still showing (a
// visible `role=grid` or `role=application` popup outside the field)? Null when none is; else a
// point to click to close it the way a person does (on a heading, or a corner holding nothing
// clickable), or [-1, -1] when there is none. Inside a modal dialog the answer is null: clicking
// outside or Escape would close the dialog rather than the calendar.
export default function calendarOpen(el: Element): [number, number] | null {
  if (el.closest('[aria-modal=true],dialog')) return null;
  const calendars = Array.from(document.querySelectorAll('[role=grid],[role=application]')).filter((g) => {
    const r = g.getBoundingClientRect();
    return !g.contains(el) && r.width > 0 && r.height > 0 && getComputedStyle(g).visibility !== 'hidden';
  });
  if (!calendars.length) return null;
  const quiet = (x: number, y: number): boolean => {
    const hit = document.elementFromPoint(x, y);
    return (
      !!hit &&
      !hit.closest('a,button,input,select,textarea,label,[role],[tabindex],[onclick]') &&
      !calendars.some((c) => c.contains(hit))
    );
  };
  for (const h of Array.from(document.querySelectorAll('h1,h2'))) {
    const r = h.getBoundingClientRect();
    const [x, y] = [r.left + Math.min(4, r.width / 2), r.top + r.height / 2];
    if (r.width > 0 && r.height > 0 && quiet(x, y)) return [x, y];
  }
  return quiet(1, 1) ? [1, 1] : [-1, -1];
}
