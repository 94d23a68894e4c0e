// Runs in the page around a click of the filler's, instead of a fixed pause after it. Called twice:
// `start` just before the click (it begins watching the page and answers at once), then `settle` once
// the click is done (or once the requests a click sent are answered, with no `start` before it): it
// answers when the page has reacted and stopped changing. The clock starts when the click reached the
// page (its pointerdown, mousedown, click or keydown; else when `settle` is called). Then: the DOM
// changed and has held still for two animation frames and `quietMs`, or nothing changed
// within `firstMs` (a click with no visible effect), or `maxMs` passed (a page that keeps changing).
// With `controlsEnd`, a change that put new controls on the page (the next step's fields or buttons,
// rendered: not `display: none`) ends the wait after the two still frames, without `quietMs`: the
// page's own sign that the next step is drawn. Controls drawn later still are found by the reveal
// pass's scan after the fills, as any field a choice reveals.
// Changes counted: nodes added or removed, text, attributes other than `style` (animations) and the
// filler's own data-portico-* marks, in the document and in every open shadow root. A navigation to
// a new document ends the script (its evaluate rejects) and the watch with it.
import { flatQueryAll, visible } from './dom.ts';
import type { ClickSettled, ClickSettledArgs } from './scanTypes.ts';

interface Watch {
  start: number;
  clickAt: number;
  changes: number;
  lastChange: number;
  /** Elements the page added since the click (at most ADDED_MAX), looked in for new controls. */
  added: Element[];
  stop(): void;
}

const KEY = Symbol.for('portico.clickSettled');
const INPUT_EVENTS = ['pointerdown', 'mousedown', 'click', 'keydown'];
const ADDED_MAX = 200;
/** What a step's controls are: what the page scan fills or clicks (a custom element's own are in its shadow root). */
const CONTROLS =
  'input:not([type=hidden]), select, textarea, button, [contenteditable=""], [contenteditable=true], ' +
  '[role=textbox], [role=combobox], [role=checkbox], [role=radio], [role=switch], [role=spinbutton], [role=slider], [role=button]';

/** Whether an element the page added is, or holds (through shadow roots), a control that is drawn. */
function holdsControl(el: Element): boolean {
  if (!el.isConnected) return false;
  if (el.matches(CONTROLS) && visible(el)) return true;
  return flatQueryAll(el, CONTROLS).some(visible);
}

function startWatch(clickFirst: boolean): Watch {
  const now = performance.now();
  const watch: Watch = {
    start: now,
    clickAt: clickFirst ? -1 : now,
    changes: 0,
    lastChange: now,
    added: [],
    stop: () => {},
  };
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
    for (const r of records)
      for (const node of Array.from(r.addedNodes))
        if (node.nodeType === Node.ELEMENT_NODE && watch.added.length < ADDED_MAX) watch.added.push(node as Element);
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
    return Promise.resolve({ clicked: false, changed: false, quiet: true, controls: false, ms: 0 });
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
      if (!watch.changes && since >= args.firstMs) return { changed: false, quiet: true, controls: false };
      if (watch.changes && stillFrames >= 2) {
        if (now - watch.lastChange >= args.quietMs) return { changed: true, quiet: true, controls: false };
        // Looked for once the page held still (two frames), not on every change.
        if (args.controlsEnd && watch.added.some(holdsControl)) return { changed: true, quiet: true, controls: true };
      }
      if (since >= args.maxMs) return { changed: watch.changes > 0, quiet: false, controls: false };
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
