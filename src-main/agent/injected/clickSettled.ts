// Runs in the page around a click of the filler's, instead of a fixed pause after it. Called before the
// click with `start` (it begins watching the page and answers at once), then to `settle` once the click is
// done: it answers when the page has reacted and stopped changing. The clock starts when the click reached
// the page (its pointerdown, mousedown, click or keydown; else when `settle` is called). Then: the DOM
// changed and has held still for two animation frames and `quietMs`, or nothing changed within `firstMs`
// (a click with no visible effect), or `maxMs` passed (a page that keeps changing).
// With `controlsEnd`, a change that put new controls on the page (the next step's fields or buttons,
// rendered: not `display: none`) ends the wait after the two still frames, without `quietMs`: the
// page's own sign that the next step is drawn. Controls drawn later still are found by the reveal
// pass's scan after the fills, as any field a choice reveals.
// With `confirmed` (a submit), a change that drew text saying the submission went through ends the wait
// after the two still frames too, and the watch goes on as the page's tail: a `tail` call then waits for
// the rest of the quiet period and says whether the page changed after that answer (an error drawn late),
// so the page the filler read meanwhile is trusted only if it did not. A wait whose quiet period passed before
// its two still frames (a loaded machine draws frames late) keeps the tail the same way when the confirmation
// shows: the page read after it is checked too (one call, answered at once when nothing changed).
// With `keep`, the watch goes on after its answer, for a `settle` with `answered` (the click's requests'
// URLs, once they are answered): that one counts only changes from the answers' arrival in the page (their
// Resource Timing `responseEnd`; from the call when the page has no entry for them), so an answer the page
// drew before the call is seen, not waited for. Without a kept watch it starts one from the call.
// Changes counted: nodes added or removed, text, attributes other than `style` (animations) and the
// filler's own data-portico-* marks, in the document and in every open shadow root. A navigation to
// a new document ends the script (its evaluate rejects) and the watch with it.
import { flatQueryAll, textOf, visible } from './dom.ts';
import type { ClickSettled, ClickSettledArgs } from './scanTypes.ts';

interface Seen {
  el: Element;
  at: number;
}

interface Watch {
  start: number;
  clickAt: number;
  changes: number;
  lastChange: number;
  /** When the last TIMES_MAX counted changes were seen, in order. */
  times: number[];
  /** Elements the page added since the click (at most ADDED_MAX), looked in for new controls. */
  added: Seen[];
  /** Elements whose text the page added or changed (at most ADDED_MAX), looked in for a confirmation. */
  texts: Seen[];
  /** The count of changes when a wait ended on a confirmation (`tail` says whether any came after); else null. */
  confirmedAt: number | null;
  /** Ends a kept watch no call took up. */
  expiry: ReturnType<typeof setTimeout> | undefined;
  stop(): void;
}

const KEY = Symbol.for('portico.clickSettled');
const INPUT_EVENTS = ['pointerdown', 'mousedown', 'click', 'keydown'];
const ADDED_MAX = 200;
const TIMES_MAX = 500;
/** A kept watch that no `settle` or `tail` took up by then stops (the click's requests are waited for 5 s at most). */
const KEPT_MS = 10_000;
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

/** Whether an element the page drew text in shows (drawn, through shadow roots) text matching `said`. */
function shows(el: Element, said: RegExp): boolean {
  if (!el.isConnected) return false;
  // The cheap test first: most changed elements hold no such text at all.
  if (!said.test(`${el.textContent ?? ''} ${el.shadowRoot?.textContent ?? ''}`)) return false;
  return visible(el) && said.test(textOf(el));
}

/** The element a changed node belongs to (a shadow root's is its host). */
function elementOf(node: Node): Element | null {
  if (node.nodeType === Node.ELEMENT_NODE) return node as Element;
  if (node instanceof ShadowRoot) return node.host;
  return node.parentElement ?? (node.parentNode instanceof ShadowRoot ? node.parentNode.host : null);
}

function startWatch(clickFirst: boolean): Watch {
  const now = performance.now();
  const watch: Watch = {
    start: now,
    clickAt: clickFirst ? -1 : now,
    changes: 0,
    lastChange: now,
    times: [],
    added: [],
    texts: [],
    confirmedAt: null,
    expiry: undefined,
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
    const at = performance.now();
    watch.changes += 1;
    watch.lastChange = at;
    watch.times.push(at);
    if (watch.times.length > TIMES_MAX) watch.times.shift();
    for (const r of records) {
      if (r.type === 'characterData') {
        const el = elementOf(r.target);
        if (el && watch.texts.length < ADDED_MAX) watch.texts.push({ el, at });
      }
      for (const node of Array.from(r.addedNodes)) {
        const el = node.nodeType === Node.ELEMENT_NODE ? (node as Element) : elementOf(r.target);
        if (!el) continue;
        if (node.nodeType === Node.ELEMENT_NODE && watch.added.length < ADDED_MAX) watch.added.push({ el, at });
        if (watch.texts.length < ADDED_MAX) watch.texts.push({ el, at });
      }
    }
  });
  const options: MutationObserverInit = { childList: true, subtree: true, attributes: true, characterData: true };
  const observe = (root: Document | ShadowRoot): void => {
    observer.observe(root, options);
    for (const el of Array.from(root.querySelectorAll('*'))) if (el.shadowRoot) observe(el.shadowRoot);
  };
  observe(document);
  watch.stop = () => {
    clearTimeout(watch.expiry);
    observer.disconnect();
    for (const type of INPUT_EVENTS) window.removeEventListener(type, onInput, true);
  };
  return watch;
}

/** How many of the watch's changes were seen at or after `from`. */
function changesSince(watch: Watch, from: number): number {
  let n = 0;
  for (let i = watch.times.length - 1; i >= 0 && (watch.times[i] as number) >= from; i--) n++;
  return n;
}

/**
 * When the last of the answers to `urls` (requests started after `since`) reached the page, by its Resource
 * Timing entries; null while one of them has none (not written yet, or never: another frame's, a failed one).
 */
function answeredAt(urls: string[], since: number): number | null {
  let at = 0;
  for (const url of urls) {
    let end = 0;
    for (const entry of performance.getEntriesByName(url, 'resource'))
      if (entry.startTime >= since) end = Math.max(end, (entry as PerformanceResourceTiming).responseEnd);
    if (!end) return null;
    at = Math.max(at, end);
  }
  return urls.length ? at : null;
}

type Holder = Record<symbol, Watch | undefined>;

/** Keeps `watch` for a later call (`settle` with `answered`, or `tail`), at most KEPT_MS. */
function keep(holder: Holder, watch: Watch): void {
  holder[KEY] = watch;
  watch.expiry = setTimeout(() => {
    if (holder[KEY] === watch) holder[KEY] = undefined;
    watch.stop();
  }, KEPT_MS);
}

export default function clickSettled(args: ClickSettledArgs): Promise<ClickSettled> {
  const holder = window as unknown as Holder;
  const taken = holder[KEY];
  holder[KEY] = undefined;
  if (taken) clearTimeout(taken.expiry);
  if (args.start) {
    taken?.stop();
    holder[KEY] = startWatch(true);
    return Promise.resolve({ clicked: false, changed: false, quiet: true, controls: false, confirmed: false, ms: 0 });
  }
  const called = performance.now();
  if (args.tail) {
    // Nothing kept (the document was replaced, the watch ended): what the page did meanwhile is unknown.
    if (!taken || taken.confirmedAt === null) {
      taken?.stop();
      return Promise.resolve({ clicked: false, changed: true, quiet: false, controls: false, confirmed: false, ms: 0 });
    }
  }
  // The watch started before the click (or kept for this call), else one from now (nothing to click).
  const watch = taken ?? startWatch(false);
  const clicked = !!taken && taken.clickAt >= 0;
  if (watch.clickAt < 0) watch.clickAt = called;
  const said = args.confirmed ? new RegExp(args.confirmed, 'i') : null;
  /** Changes count from here: the click, or the answers' arrival (moved earlier once the page's entry for them is there). */
  let from = args.answered ? called : watch.clickAt;
  const confirmedAt = watch.confirmedAt;
  watch.confirmedAt = null;
  /** Animation frames since the last change was seen (the page's own pace: a loaded machine draws them later). */
  let stillFrames = 0;
  /** Whether changes this wait counts were seen (at the last tick). */
  let changedNow = false;
  // A change made before this call (the click's own, synchronous) starts the count at its first tick. A tail
  // with no change since its confirmation goes on from the two still frames that answer had.
  let counted = -1;
  if (args.tail && watch.changes === confirmedAt) {
    counted = watch.changes;
    stillFrames = 2;
  }
  return new Promise<ClickSettled>((resolve) => {
    /** The answer once there is one, else null (keep watching). */
    const verdict = (now: number): Omit<ClickSettled, 'ms' | 'clicked'> | null => {
      stillFrames = watch.changes === counted ? stillFrames + 1 : 0;
      counted = watch.changes;
      if (args.tail) {
        const changed = watch.changes !== confirmedAt;
        changedNow = true;
        if (stillFrames >= 2 && now - watch.lastChange >= args.quietMs)
          return { changed, quiet: true, controls: false, confirmed: false };
        if (now - called >= args.maxMs) return { changed, quiet: false, controls: false, confirmed: false };
        return null;
      }
      if (args.answered) {
        const at = answeredAt(args.answered, watch.start);
        if (at !== null && at < from) from = at;
      }
      const changes = changesSince(watch, from);
      changedNow = changes > 0;
      const since = now - from;
      if (!changes && since >= args.firstMs) return { changed: false, quiet: true, controls: false, confirmed: false };
      if (changes && stillFrames >= 2) {
        // The quiet period can pass before two frames do (a loaded machine draws late): a confirmation then is one
        // still, and its tail is kept too, so that the page read after this answer is trusted only if it held.
        if (now - watch.lastChange >= args.quietMs)
          return {
            changed: true,
            quiet: true,
            controls: false,
            confirmed: !!said && watch.texts.some((t) => t.at >= from && shows(t.el, said)),
          };
        // Looked for once the page held still (two frames), not on every change.
        if (args.controlsEnd && watch.added.some((a) => a.at >= from && holdsControl(a.el)))
          return { changed: true, quiet: true, controls: true, confirmed: false };
        if (said && watch.texts.some((t) => t.at >= from && shows(t.el, said)))
          return { changed: true, quiet: true, controls: false, confirmed: true };
      }
      if (since >= args.maxMs) return { changed: changes > 0, quiet: false, controls: false, confirmed: false };
      return null;
    };
    const tick = (): void => {
      const now = performance.now();
      const answer = verdict(now);
      if (answer) {
        if (answer.confirmed) watch.confirmedAt = watch.changes;
        if (answer.confirmed || args.keep) keep(holder, watch);
        else watch.stop();
        resolve({ ...answer, clicked, ms: Math.round(performance.now() - (args.tail ? called : from)) });
        return;
      }
      // An animation frame, or a timer standing in for one in a hidden tab (which runs no frames); once the page
      // held still two frames and only the quiet period is left, the timer is set for its end.
      let done = false;
      const next = (): void => {
        if (done) return;
        done = true;
        tick();
      };
      requestAnimationFrame(next);
      const quietLeft = watch.lastChange + args.quietMs - now;
      setTimeout(next, stillFrames >= 2 && changedNow ? Math.max(0, Math.min(50, quietLeft)) : 50);
    };
    tick();
  });
}
