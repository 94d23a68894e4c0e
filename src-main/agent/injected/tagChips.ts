// Runs in the page, on a tag input: the chips it shows now, in order (tagScan.ts).
import { tagChipsOf } from './tagScan.ts';

export default function tagChips(el: Element): string[] {
  return tagChipsOf(el);
}
