// Runs in the page, on the option elements of an open listbox: their labels, values and states.
import { textOf } from './dom.ts';
import type { ScannedOption } from './scanTypes.ts';

function hostValue(o: Element): string {
  const root = o.getRootNode() as ShadowRoot;
  const host = root.nodeType === Node.DOCUMENT_FRAGMENT_NODE ? root.host : null;
  const v = host ? host.getAttribute('value') || (host as HTMLInputElement).value : '';
  return typeof v === 'string' ? v : '';
}

export default function readOptions(els: Element[]): ScannedOption[] {
  return els.map((o) => ({
    // innerText leaves out slotted text (an option element's label slotted into its shadow <li>): textOf reads the flat tree.
    label: (o.getAttribute('aria-label') || (o as HTMLElement).innerText || textOf(o) || o.textContent || '')
      .replace(/\s+/g, ' ')
      .trim(),
    // An option drawn inside a component's shadow root (an <li role=option> of an option element) takes the host's value.
    value: o.getAttribute('data-value') || o.getAttribute('value') || hostValue(o),
    disabled: o.getAttribute('aria-disabled') === 'true',
  }));
}
