// Runs in the page, on one segment of a sectioned date or time field: what it shows now. A number box
// shows its value; an AM/PM dropdown its chosen option (a select's, else its text without what is
// hidden from assistive technology: a drawn arrow); a drawn segment its text and aria-valuenow.
import type { SegmentReadingRaw } from './scanTypes.ts';

export default function segmentReading(el: Element): SegmentReadingRaw {
  if (el instanceof HTMLSelectElement)
    return { text: (el.selectedOptions[0]?.text ?? '').trim(), now: null, valueText: '' };
  if ((el.getAttribute('role') || '').toLowerCase() === 'combobox' || el.getAttribute('aria-haspopup') === 'listbox') {
    let out = '';
    const walk = (n: Node): void => {
      if (n.nodeType === Node.TEXT_NODE) out += `${n.nodeValue} `;
      else if (n.nodeType === Node.ELEMENT_NODE && (n as Element).getAttribute('aria-hidden') !== 'true')
        for (const c of Array.from(n.childNodes)) walk(c);
    };
    walk(el);
    return { text: out.replace(/\s+/g, ' ').trim(), now: null, valueText: '' };
  }
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
