// Runs in the page, on a control the filler is about to click: what a pointer at the control's centre
// would hit, at once (brought into view first, as a click would be). 'self': the control or something
// inside it; 'label': part of the control's own label drawn over it (a styled checkbox or radio whose
// input lies under the label's box, or takes no pointer events); 'other': anything else (an overlay, a
// popup still closing) or a disabled control — the caller then waits with Playwright's own checks.
// 'self' and 'label' are what a trial click finds at once or after retrying for its whole timeout.
import { closestAcross } from './dom.ts';

export default function pointerTarget(el: Element): 'self' | 'label' | 'other' {
  if (el.matches(':disabled') || el.getAttribute('aria-disabled') === 'true') return 'other';
  const inView = (r: DOMRect): boolean =>
    r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth && r.width > 0 && r.height > 0;
  if (!inView(el.getBoundingClientRect())) el.scrollIntoView({ block: 'center', inline: 'center' });
  const r = el.getBoundingClientRect();
  if (r.width <= 0 || r.height <= 0) return 'other';
  const root = el.getRootNode() as Document | ShadowRoot;
  const hit = root.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  if (!hit) return 'other';
  if (hit === el || el.contains(hit)) return 'self';
  const labels = [...Array.from((el as HTMLInputElement).labels ?? []), closestAcross(el, 'label')];
  return labels.some((l) => l && (l === hit || l.contains(hit))) ? 'label' : 'other';
}
