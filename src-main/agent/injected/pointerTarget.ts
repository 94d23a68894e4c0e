// Runs in the page, on a control the filler is about to click: what a pointer at the control's centre
// would hit, at once (brought into view first, as a click would be). 'self': the control or something
// inside it; 'label': part of the control's own label drawn over it (a styled checkbox or radio whose
// input lies under the label's box, or takes no pointer events); 'other': anything else (an overlay, a
// popup still closing) or a disabled control — the caller then waits with Playwright's own checks;
// 'hidden': something else is on top because the control is visually hidden (a pixel-sized box, or
// inside one with overflow hidden, or clipped to nothing: a focusable input under a drawn widget),
// which no wait changes. 'self', 'label' and 'hidden' are what a trial click finds at once or after
// retrying for its whole timeout.
import { closestAcross } from './dom.ts';

/**
 * Whether `el` is drawn nowhere a pointer could reach: shrunk to a pixel, or inside an ancestor that
 * is (the "visually hidden" pattern: a 1px box with overflow hidden), or clipped to nothing.
 */
function clippedAway(el: Element): boolean {
  for (let n: Element | null = el, depth = 0; n && depth < 6; n = n.parentElement, depth += 1) {
    const r = n.getBoundingClientRect();
    const style = getComputedStyle(n);
    const tiny = r.width <= 1 || r.height <= 1;
    if (tiny && (n === el || style.overflow !== 'visible')) return true;
    if (/^rect\(0(px)?,? 0(px)?,? 0(px)?,? 0(px)?\)$/.test(style.clip) && style.position === 'absolute') return true;
  }
  return false;
}

/**
 * Whether what the pointer hit at (x, y) is drawn inside `el` through a slot: a web component's own button
 * (`el`, in its shadow root) showing its host's light-DOM content (Shoelace's `<sl-radio-button>In person</…>`).
 * The hit test of `el`'s shadow root then answers that content's element, or the host itself for its text.
 */
function slottedInto(el: Element, hit: Element, x: number, y: number): boolean {
  for (let n: Node | null = hit, depth = 0; n && depth < 30; depth += 1) {
    if (n === el) return true;
    const slot: HTMLSlotElement | null = (n as Element).assignedSlot ?? null;
    n = slot ?? (n instanceof ShadowRoot ? n.host : n.parentNode);
  }
  const slots = el instanceof HTMLSlotElement ? [el] : Array.from(el.querySelectorAll('slot'));
  for (const slot of slots)
    for (const node of slot.assignedNodes({ flatten: true })) {
      if (node.nodeType !== Node.TEXT_NODE || node.parentElement !== hit) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      if (Array.from(range.getClientRects()).some((b) => x >= b.left && x <= b.right && y >= b.top && y <= b.bottom))
        return true;
    }
  return false;
}

export default function pointerTarget(el: Element): 'self' | 'label' | 'hidden' | 'other' {
  if (el.matches(':disabled') || el.getAttribute('aria-disabled') === 'true') return 'other';
  const inView = (r: DOMRect): boolean =>
    r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth && r.width > 0 && r.height > 0;
  if (!inView(el.getBoundingClientRect())) el.scrollIntoView({ block: 'center', inline: 'center' });
  const r = el.getBoundingClientRect();
  if (r.width <= 0 || r.height <= 0) return clippedAway(el) ? 'hidden' : 'other';
  const root = el.getRootNode() as Document | ShadowRoot;
  const x = r.left + r.width / 2;
  const y = r.top + r.height / 2;
  const hit = root.elementFromPoint(x, y);
  if (!hit) return 'other';
  if (hit === el || el.contains(hit) || slottedInto(el, hit, x, y)) return 'self';
  const labels = [...Array.from((el as HTMLInputElement).labels ?? []), closestAcross(el, 'label')];
  if (labels.some((l) => l && (l === hit || l.contains(hit)))) return 'label';
  return clippedAway(el) ? 'hidden' : 'other';
}
