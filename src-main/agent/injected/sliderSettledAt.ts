// Runs in the page: sliderSettled.ts on the slider marked `pid` (data-portico-id), found in the same call — one
// round trip where a locator's evaluate takes several (controlRead.ts says why). Null when there is not exactly
// one such element: the caller takes the locator's way then (it waits for the element, and refuses several).
// With `focus` the slider is focused first, in this same call (the start read of a slider whose step is learnt).
import { markedElements } from './dom.ts';
import type { SliderSettled, SliderSettledAtArgs } from './scanTypes.ts';
import sliderSettled from './sliderSettled.ts';

export default function sliderSettledAt(args: SliderSettledAtArgs): Promise<SliderSettled> | null {
  const found = markedElements(args.pid);
  const el = found[0];
  if (found.length !== 1 || !el) return null;
  // What Playwright's focus does (element.focus()); a slider that moves when focused is then watched settling.
  if (args.focus) (el as HTMLElement).focus();
  return sliderSettled(el, args);
}
