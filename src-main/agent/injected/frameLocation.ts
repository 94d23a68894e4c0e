// Runs in the page (or on one of its elements, which it ignores): where the document is — its URL, its
// origin, and whether its frame is the top one.
import type { FrameLocation } from './scanTypes.ts';

export default function frameLocation(): FrameLocation {
  return { href: location.href, origin: location.origin, top: window === window.top };
}
