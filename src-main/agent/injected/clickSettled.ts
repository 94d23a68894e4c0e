// Runs in the page around a click of the filler's, instead of a fixed pause after it. Called twice:
// `start` just before the click (it begins watching the page and answers at once), then `settle` once
// the click is done (or once the requests a click sent are answered, with no `start` before it): it
// answers when the page has reacted and stopped changing. The clock starts when the click reached the
// page (its pointerdown, mousedown, click or keydown; else when `settle` is called). Then: the DOM
// changed and has held still for two animation frames and `quietMs`, or nothing changed
// within `firstMs` (a click with no visible effect), or `maxMs` passed (a page that keeps changing).
// Changes counted: nodes added or removed, text, attributes other than `style` (animations) and the
// filler's own data-portico-* marks, in the document and in every open shadow root. A navigation to
// a new document ends the script (its evaluate rejects) and the watch with it.
import type { ClickSettled, ClickSettledArgs } from './scanTypes.ts';

interface Watch {
  start: number;
  clickAt: number;
  changes: number;
  lastChange: number;
  stop(): void;
}

const KEY = Symbol.for('portico.clickSettled');
const INPUT_EVENTS = ['pointerdown', 'mousedown', 'click', 'keydown'];

function startWatch(clickFirst: boolean): Watch {
  const now = performance.now();
  const watch: Watch = { start: now, clickAt: clickFirst ? -1 : now, changes: 0, lastChange: now, stop: () => {} };
  const onInput = (): void => {
    if (watch.clickAt < 0) watch.clickAt = performance.now();
  };
  for (const type of INPUT_EVENTS) window.addEventListener(type, onInput, true);
  const observer = new MutationObserver((records) => {
    const counted = records.some(
      (r) =>
        r.type !== 'attributes' ||
        !(r.attributeName === 'style' || (r.attributeName ?? '').startsWith('data-portico-')),
    );
    if (!counted || watch.clickAt < 0) return;
    watch.changes += 1;
    watch.lastChange = performance.now();
  });
  const options: MutationObserverInit = { childList: true, subtree: true, attributes: true, characterData: true };
  const observe = (root: Document | ShadowRoot): void => {
    observer.observe(root, options);
    for (const el of Array.from(root.querySelectorAll('*'))) if (el.shadowRoot) observe(el.shadowRoot);
  };
  observe(document);
  watch.stop = () => {
    observer.disconnect();
    for (const type of INPUT_EVENTS) window.removeEventListener(type, onInput, true);
  };
  return watch;
}

export default function clickSettled(args: ClickSettledArgs): Promise<ClickSettled> {
  const holder = window as unknown as Record<symbol, Watch | undefined>;
  const started = holder[KEY];
  holder[KEY] = undefined;
  if (args.start) {
    started?.stop();
    holder[KEY] = startWatch(true);
    return Promise.resolve({ clicked: false, changed: false, quiet: true, ms: 0 });
  }
  // The watch started before the click, else one from now (after a request's answer: nothing to click).
  const watch = started ?? startWatch(false);
  const clicked = !!started && started.clickAt >= 0;
  if (watch.clickAt < 0) watch.clickAt = performance.now();
  /** Animation frames since the last change was seen (the page's own pace: a loaded machine draws them later). */
  let stillFrames = 0;
  // A change made before this call (the click's own, synchronous) starts the count at its first tick.
  let counted = -1;
  return new Promise<ClickSettled>((resolve) => {
    /** The answer once there is one, else null (keep watching). */
    const verdict = (now: number): Omit<ClickSettled, 'ms' | 'clicked'> | null => {
      stillFrames = watch.changes === counted ? stillFrames + 1 : 0;
      counted = watch.changes;
      const since = now - watch.clickAt;
      if (!watch.changes && since >= args.firstMs) return { changed: false, quiet: true };
      if (watch.changes && stillFrames >= 2 && now - watch.lastChange >= args.quietMs)
        return { changed: true, quiet: true };
      if (since >= args.maxMs) return { changed: watch.changes > 0, quiet: false };
      return null;
    };
    const tick = (): void => {
      const answer = verdict(performance.now());
      if (answer) {
        watch.stop();
        resolve({ ...answer, clicked, ms: Math.round(performance.now() - watch.clickAt) });
        return;
      }
      // An animation frame, or a timer standing in for one in a hidden tab (which runs no frames).
      let done = false;
      const next = (): void => {
        if (done) return;
        done = true;
        tick();
      };
      requestAnimationFrame(next);
      setTimeout(next, 50);
    };
    tick();
  });
}
