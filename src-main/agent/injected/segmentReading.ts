// Runs in the page, on one segment of a sectioned date or time field: what it shows now. A number box
// shows its value; a drawn segment its text and aria-valuenow.
import type { SegmentReadingRaw } from './scanTypes.ts';

export default function segmentReading(el: Element): SegmentReadingRaw {
  if (el instanceof HTMLInputElement) {
    const n = el.value.trim() === '' ? null : Number(el.value);
    return { text: el.value.trim(), now: n, valueText: '' };
  }
  const now = el.getAttribute('aria-valuenow');
  return {
    text: (el.textContent ?? '').trim(),
    now: now === null || now.trim() === '' ? null : Number(now),
    valueText: el.getAttribute('aria-valuetext') ?? '',
  };
}
