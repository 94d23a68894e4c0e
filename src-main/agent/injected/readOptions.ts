// Runs in the page, on the option elements of an open listbox: their labels, values and states.
import type { ScannedOption } from './scanTypes.ts';

export default function readOptions(els: Element[]): ScannedOption[] {
  return els.map((o) => ({
    label: (o.getAttribute('aria-label') || (o as HTMLElement).innerText || o.textContent || '').replace(/\s+/g, ' ').trim(),
    value: o.getAttribute('data-value') || o.getAttribute('value') || '',
    disabled: o.getAttribute('aria-disabled') === 'true',
  }));
}
