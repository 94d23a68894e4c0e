// Runs in the page: how many animation frames it has drawn since a count began, so a wait of the
// filler's can tell a page that drew and did not change (a press that opens nothing) from one too busy
// to draw yet (a loaded machine: the press is still being answered). With `start` a new count begins
// at 0. The count is a requestAnimationFrame loop that stops on its own `keepMs` after the last call
// (a page no one asks does not keep drawing for it). A hidden document draws no frames: -1 (the caller
// goes by the clock alone).
const KEY = Symbol.for('portico.framesDrawn');

interface Count {
  frames: number;
  until: number;
  running: boolean;
}

export default function framesDrawn(args: { start: boolean; keepMs: number }): number {
  if (document.visibilityState === 'hidden') return -1;
  const holder = window as unknown as Record<symbol, Count | undefined>;
  const count = holder[KEY] ?? { frames: 0, until: 0, running: false };
  holder[KEY] = count;
  if (args.start) count.frames = 0;
  count.until = performance.now() + args.keepMs;
  if (!count.running) {
    count.running = true;
    const tick = (now: number): void => {
      count.frames += 1;
      if (now < count.until) requestAnimationFrame(tick);
      else count.running = false;
    };
    requestAnimationFrame(tick);
  }
  return count.frames;
}
