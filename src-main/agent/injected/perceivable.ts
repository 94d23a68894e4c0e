// Runs in the page, on the elements a target matched: for each, whether a person sees and can reach it.
// Not a target: inside an `aria-hidden="true"` subtree or an `inert` one (crossing shadow roots), outside
// the open modal dialog (`<dialog>` opened with showModal(), or a shown `[aria-modal=true]`), and, when
// `textOnly` (the element was found by its text, not as a control), text that is visually hidden
// (clipped to 1px, `clip: rect(0 0 0 0)`, moved off-screen): such text still names its control, it is
// not something to click or read on its own. A target covered at its centre by another element is 2.
import type { Perceived } from './scanTypes.ts';

const up = (n: Node): Node | null => n.parentElement || (n.parentNode as ShadowRoot | null)?.host || null;

const shown = (e: Element): boolean => {
  if (!e.getClientRects().length) return false;
  const s = getComputedStyle(e);
  return s.visibility !== 'hidden' && s.display !== 'none';
};

const modalOf = (doc: Document): Element | null => {
  const found: Element[] = [];
  for (const d of doc.querySelectorAll('dialog')) {
    try {
      if (d.matches(':modal')) found.push(d);
    } catch {
      // no :modal
    }
  }
  for (const d of doc.querySelectorAll('[aria-modal="true"]')) if (shown(d)) found.push(d);
  return found.length ? (found[found.length - 1] ?? null) : null;
};

const inside = (outer: Node, el: Node): boolean => {
  for (let n: Node | null = el; n; n = up(n)) if (n === outer) return true;
  return false;
};

const hiddenText = (el: Element): boolean => {
  for (let n: Node | null = el, depth = 0; n && depth < 6 && n.nodeType === 1; n = up(n), depth += 1) {
    const s = getComputedStyle(n as Element);
    const r = (n as Element).getBoundingClientRect();
    if (
      s.clip === 'rect(0px, 0px, 0px, 0px)' ||
      s.clipPath === 'inset(50%)' ||
      (r.width <= 1 && r.height <= 1 && s.overflow === 'hidden')
    )
      return true;
    if (s.position === 'absolute' && (r.right < -100 || r.bottom < -100)) return true;
    if (Number(s.opacity) === 0) return true;
  }
  return false;
};

const covered = (el: Element): boolean => {
  const r = el.getBoundingClientRect();
  const x = r.left + r.width / 2;
  const y = r.top + r.height / 2;
  if (r.width < 2 || r.height < 2 || x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) return false;
  let hit = el.ownerDocument.elementFromPoint(x, y);
  while (hit?.shadowRoot) {
    const deeper = hit.shadowRoot.elementFromPoint(x, y);
    if (!deeper || deeper === hit) break;
    hit = deeper;
  }
  if (!hit) return false;
  if (inside(el, hit) || inside(hit, el)) return false;
  const labels = (el as HTMLInputElement).labels;
  if (hit.tagName === 'LABEL' && labels && Array.from(labels).includes(hit as HTMLLabelElement)) return false;
  return true;
};

export default function perceivable(els: Element[], textOnly: boolean): Perceived[] {
  const first = els[0];
  const modal = first ? modalOf(first.ownerDocument) : null;
  return els.map((el) => {
    for (let n: Node | null = el; n; n = up(n)) {
      if (n.nodeType !== 1) continue;
      if ((n as Element).getAttribute('aria-hidden') === 'true' || (n as Element).hasAttribute('inert')) return 0;
    }
    if (modal && !inside(modal, el)) return 0;
    if (textOnly && hiddenText(el)) return 0;
    return covered(el) ? 2 : 1;
  });
}
