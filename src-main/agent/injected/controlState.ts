// Runs in the page, on one filled control: the names its value travels under and the value it holds
// (for a choice, the option's own `value` attribute, not its label), read back for the submission check.
import type { ControlState } from './scanTypes.ts';

export default function controlState(el: Element): ControlState {
  const input = el as HTMLInputElement;
  const selected = el instanceof HTMLSelectElement ? Array.from(el.selectedOptions).map((o) => o.value) : [];
  // A toggle button (a filter chip) says it is on with aria-pressed.
  const checked =
    typeof input.checked === 'boolean'
      ? input.checked
      : (el.getAttribute('aria-checked') ?? el.getAttribute('aria-pressed')) === 'true';
  const value = typeof input.value === 'string' ? input.value : (el.textContent ?? '').trim();
  return { name: el.getAttribute('name') ?? '', id: el.id ?? '', value, checked, selected };
}
