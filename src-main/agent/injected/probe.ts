// Runs in the page, on the elements a stored role and name (or text) match in one frame: what a person
// perceives of each (perceivable.ts), the one they would mean, whether the stored selector is that
// element, and the facts the operation needs (TargetFacts): everything a cached replay needs, in one call.
import pairedValue from './pairedValue.ts';
import perceivable from './perceivable.ts';
import type { Probe, ProbeArgs, TargetFacts } from './scanTypes.ts';

const implicit: Record<string, string> = {
  DT: 'term',
  DD: 'definition',
  P: 'paragraph',
  CAPTION: 'caption',
  BLOCKQUOTE: 'blockquote',
};

export default function probe(els: Element[], args: ProbeArgs): Probe {
  const seen = perceivable(els, args.textOnly);
  const hits: number[] = [];
  seen.forEach((s, i) => {
    if (s !== 0) hits.push(i);
  });
  let pick = hits.length === 1 ? (hits[0] as number) : -1;
  if (hits.length > 1) {
    const open = hits.filter((i) => seen[i] === 1);
    if (open.length === 1) pick = open[0] as number;
  }
  const el = els[pick];
  if (pick < 0 || !el) return { seen };
  let bySelector = false;
  if (args.selector) {
    try {
      const all = el.ownerDocument.querySelectorAll(args.selector);
      bySelector = all.length === 1 && all[0] === el;
    } catch {
      // not a selector here
    }
  }
  const roleSame = !el.hasAttribute('role') && implicit[el.tagName] === args.role;
  const facts: TargetFacts = {};
  if (args.op === 'click' || args.op === 'check') {
    facts.toggle =
      el instanceof HTMLInputElement && (el.type === 'checkbox' || el.type === 'radio')
        ? el.type === 'radio' || !el.checked
        : null;
    const r = el.getBoundingClientRect();
    facts.drawnByLabel = r.right <= 0 || r.bottom + scrollY <= 0 || (r.width <= 1 && r.height <= 1);
  }
  if (args.op === 'fill' || args.op === 'select') {
    facts.native = el.tagName === 'SELECT';
    if (facts.native)
      facts.options = Array.from((el as HTMLSelectElement).options).map((o) => ({
        label: o.text.replace(/\s+/g, ' ').trim(),
        value: o.value,
      }));
  }
  if (args.op === 'extract') {
    const p = el.matches('input, select, textarea') ? null : pairedValue(el);
    facts.read = p || {
      text:
        el instanceof HTMLInputElement && el.type === 'password'
          ? null
          : el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement
            ? el.value
            : (el as HTMLElement).innerText,
    };
  }
  return { seen, pick, bySelector, roleSame, facts, doc: performance.timeOrigin };
}
