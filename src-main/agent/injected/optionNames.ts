// Runs in the page, on the options a custom dropdown shows: each one's name (aria-label, else its shown
// text, spacing folded) and its data-value.
import type { OptionLabel } from './scanTypes.ts';

export default function optionNames(els: Element[]): OptionLabel[] {
  return els.map((e) => ({
    label: (e.getAttribute('aria-label') || (e as HTMLElement).innerText || '').replace(/\s+/g, ' ').trim(),
    value: e.getAttribute('data-value') ?? '',
  }));
}
