// Runs in the page: tag (chip) inputs — a text box that turns what is typed into chips on Enter or a
// comma, each chip drawn beside the box with a button that removes it. There is no WAI-ARIA role for
// the box itself; what a person sees is the pattern: chips with remove buttons around the box, or a
// hint telling them to press Enter after each entry (docs/autofill.md, Tag and chip inputs).
import { clean, FIELDS, ownGroupAncestors, textOf } from './dom.ts';

/** The box's own group (up to three ancestors holding no other field): where its chips are drawn. */
export function tagContainerOf(input: Element): Element | null {
  let container: Element | null = null;
  // A chip's own hidden editing box (Chakra/Ark: an `<input hidden>` in each chip) is part of the tag input.
  const sameField = (other: Element): boolean =>
    input.contains(other) || other.contains(input) || other.closest('[hidden]') !== null;
  for (const a of ownGroupAncestors(input, { fields: FIELDS, maxDepth: 3, sameField })) container = a;
  return container;
}

/**
 * The chips shown with a tag input, in order: for each button in its own group that is not around the
 * box (a chip's remove button), the element holding that button, read without the button's own text.
 */
export function tagChipsOf(input: Element): string[] {
  const container = tagContainerOf(input);
  if (!container) return [];
  const out: string[] = [];
  for (const button of Array.from(container.querySelectorAll('button,[role=button]'))) {
    const chip = button.parentElement;
    if (!chip || chip === container || chip.contains(input) || button.contains(input)) continue;
    const text = clean(textOf(chip).replace(textOf(button), ''));
    if (text) out.push(text);
  }
  return out;
}

/** Hints of a tag input: "Press Enter after each keyword", "Add a tag", "Type and hit Enter". */
const TAG_HINT =
  /\b(press|hit|type)\b[^.]{0,30}\b(enter|return)\b|\b(enter|return)\b[^.]{0,10}\bafter each\b|\badd (a |another )?tags?\b/i;

/** Is this text box a tag input: chips with remove buttons beside it already, or a hint saying so? */
export function looksLikeTagInput(input: Element): boolean {
  if (tagChipsOf(input).length) return true;
  const container = tagContainerOf(input);
  const hints = [
    input.getAttribute('placeholder'),
    input.getAttribute('title'),
    input.getAttribute('aria-description'),
    container ? textOf(container) : '',
  ].join(' ');
  return TAG_HINT.test(hints);
}
