// Runs in the page, around the Enter that turns a tag input's text into a chip. Enter in a text box is
// also how a browser submits its form (implicit submission: the form's default button is clicked,
// then the form is submitted), and that must never happen while the filler is still filling. `on`
// installs the guard: after the page's own handlers have seen Enter, its default action is prevented;
// a click on a submit button and a form's submit event are stopped before the page hears them. `off`
// removes it and returns how many submissions it stopped.
interface Guard {
  stopped: number;
  remove(): void;
}

export default function enterGuard(_el: Element, mode: 'on' | 'off'): number {
  const w = window as unknown as { __porticoEnterGuard?: Guard };
  if (mode === 'off') {
    const guard = w.__porticoEnterGuard;
    w.__porticoEnterGuard = undefined;
    guard?.remove();
    return guard?.stopped ?? 0;
  }
  if (w.__porticoEnterGuard) return 0;
  const guard: Guard = { stopped: 0, remove: () => undefined };
  const stop = (e: Event): void => {
    e.preventDefault();
    e.stopImmediatePropagation();
    guard.stopped += 1;
  };
  // Bubble phase on the window: the widget's own keydown handlers ran first and made the chip.
  const keydown = (e: KeyboardEvent): void => {
    if (e.key !== 'Enter') return;
    // Left to the browser, Enter in a form's text box submits the form: counted as a submission stopped.
    const t = e.composedPath()[0] as HTMLInputElement | undefined;
    if (!e.defaultPrevented && t?.tagName === 'INPUT' && t.form) guard.stopped += 1;
    e.preventDefault();
  };
  const click = (e: MouseEvent): void => {
    const t = e.composedPath()[0] as Element | undefined;
    const button = t?.closest?.('button,input[type=submit],input[type=image]') as HTMLButtonElement | null;
    if (button && (button.type === 'submit' || button.getAttribute('type') === 'image')) stop(e);
  };
  window.addEventListener('keydown', keydown, false);
  window.addEventListener('click', click, true);
  window.addEventListener('submit', stop, true);
  guard.remove = () => {
    window.removeEventListener('keydown', keydown, false);
    window.removeEventListener('click', click, true);
    window.removeEventListener('submit', stop, true);
  };
  w.__porticoEnterGuard = guard;
  return 0;
}
