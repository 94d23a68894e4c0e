// Runs in the page: sliderSettled.ts on the slider marked `pid` (data-portico-id), found in the same call — one
// round trip where a locator's evaluate takes several (controlRead.ts says why). Null when there is not exactly
// one such element: the caller takes the locator's way then (it waits for the element, and refuses several).
import { markedElements } from './dom.ts';
import type { SliderSettled, SliderSettledAtArgs } from './scanTypes.ts';
import sliderSettled from './sliderSettled.ts';

export default function sliderSettledAt(args: SliderSettledAtArgs): Promise<SliderSettled> | null {
  const found = markedElements(args.pid);
  const el = found[0];
  return found.length === 1 && el ? sliderSettled(el, args) : null;
}
