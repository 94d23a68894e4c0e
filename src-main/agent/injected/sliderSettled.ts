// Runs in the page, on a slider just moved (`role=slider`, or `<input type=range>`): waits until its
// value stops changing: `frames` animation frames in which it did not change (the app's own handlers and
// re-renders have run: a React component calls a controlled slider's onChange in an effect after the
// render, and the app's value comes back one render later; a change starts the count again). Resolves with
// the value it holds and every value seen meanwhile; `stable` false when it was still changing after `maxMs`.
import type { SliderSettledArgs, SliderSettled } from './scanTypes.ts';

export default async function sliderSettled(el: Element, args: SliderSettledArgs): Promise<SliderSettled> {
  const read = (): number => Number(args.aria ? el.getAttribute('aria-valuenow') : (el as HTMLInputElement).value);
  const seen = [read()];
  const start = performance.now();
  const note = (): void => {
    const v = read();
    if (v !== seen[seen.length - 1]) seen.push(v);
  };
  const observer = new MutationObserver(note);
  observer.observe(el, { attributes: true });
  el.addEventListener('input', note);
  // A hidden tab runs no animation frames: the timer stands in for one.
  const frame = (): Promise<void> =>
    new Promise((resolve) => {
      requestAnimationFrame(() => resolve());
      setTimeout(resolve, 100);
    });
  try {
    // Frames with no change in them (counted from the call, and again from each change).
    let still = 0;
    for (;;) {
      const before = seen.length;
      await frame();
      note();
      still = seen.length === before ? still + 1 : 0;
      if (still >= args.frames) return { now: read(), stable: true, seen };
      if (performance.now() - start >= args.maxMs) return { now: read(), stable: false, seen };
    }
  } finally {
    observer.disconnect();
    el.removeEventListener('input', note);
  }
}
