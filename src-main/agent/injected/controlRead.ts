// Runs in the page: one of the reads the filler makes of a scanned control (what a text control holds,
// then leaving it; the state the submission check needs; a select's chosen label; what a pointer at its
// centre would hit; an ARIA widget's checked state; the value it shows; a tag input's chips; the list a
// combobox opened; the Enter guard around a tag input; a tag box's chips, text and focus at once; what a segment of a sectioned date or time field
// shows), found by its `data-portico-id` and read in one round trip, where a locator's evaluate takes
// about eight (find, wait, resolve the element into the page's world, preview the handle, release it) —
// measured at about ten times the wall time of this on a loaded machine. The read is the same
// entry the locator's evaluate would run, on the same element, in the same (the page's) world. `found`
// counts the elements carrying the id in the document and its open shadow roots, as Playwright's CSS
// finds them; the read runs only when there is exactly one, else the caller takes the locator's way
// (which waits for the element, and refuses several).
import ariaCheckedState from './ariaCheckedState.ts';
import controlState from './controlState.ts';
import { markedElements } from './dom.ts';
import enterGuard from './enterGuard.ts';
import findListbox from './findListbox.ts';
import hasFocus from './hasFocus.ts';
import pointerTarget from './pointerTarget.ts';
import readAndLeave from './readAndLeave.ts';
import type { ControlRead, ControlReadArgs } from './scanTypes.ts';
import segmentReading from './segmentReading.ts';
import selectedLabel from './selectedLabel.ts';
import shownValue from './shownValue.ts';
import tagChips from './tagChips.ts';

export default function controlRead(args: ControlReadArgs): ControlRead {
  const found = markedElements(args.pid);
  const el = found[0];
  if (found.length !== 1 || !el) return { found: found.length };
  switch (args.read) {
    case 'readAndLeave':
      return { found: 1, value: readAndLeave(el) };
    case 'readAndLeaveState': {
      const shown = readAndLeave(el);
      return { found: 1, value: { shown, state: controlState(el) } };
    }
    case 'controlState':
      return { found: 1, value: controlState(el) };
    case 'selectedLabel':
      return { found: 1, value: selectedLabel(el) };
    case 'segmentReading':
      return { found: 1, value: segmentReading(el) };
    case 'pointerTarget':
      return { found: 1, value: pointerTarget(el) };
    case 'ariaCheckedState':
      return { found: 1, value: ariaCheckedState(el) };
    case 'shownValue':
      return { found: 1, value: shownValue(el) };
    case 'tagChips':
      return { found: 1, value: tagChips(el) };
    case 'tagBox':
      // A box with no text value (not an input) is read the locator's way, which refuses it as before.
      return el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement
        ? { found: 1, value: { chips: tagChips(el), text: el.value, focused: hasFocus(el) } }
        : { found: 1 };
    case 'findListbox':
      return args.listbox ? { found: 1, value: findListbox(el, args.listbox) } : { found: 1 };
    case 'enterGuard':
      return args.guard ? { found: 1, value: enterGuard(el, args.guard) } : { found: 1 };
  }
}
