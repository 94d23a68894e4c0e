// Runs in the page: scrolls the window to its top or bottom, or most of a screen up or down.
import type { ScrollDirection } from './scanTypes.ts';

export default function scrollPage(d: ScrollDirection): void {
  if (d === 'top') window.scrollTo(0, 0);
  else if (d === 'bottom') window.scrollTo(0, document.documentElement.scrollHeight);
  else window.scrollBy(0, (d === 'up' ? -0.8 : 0.8) * window.innerHeight);
}
