// Runs in the page, on a native `<select>`: its options' shown text (spacing folded) and values.
import type { OptionLabel } from './scanTypes.ts';

export default function nativeOptions(el: Element): OptionLabel[] {
  return Array.from((el as HTMLSelectElement).options).map((o) => ({
    label: o.text.replace(/\s+/g, ' ').trim(),
    value: o.value,
  }));
}
