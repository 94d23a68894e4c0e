// Runs in the page, on one widget: what it shows as its value — an input's value, else the visible
// text of the element or of the wrapper around it holding no other field (react-select shows its
// choice beside the input), leaving out live regions, option lists and visually hidden text.
import { ownGroup } from './dom.ts';

const SKIP = '[aria-live],[role=status],[role=log],[role=listbox],[role=option],[aria-hidden=true],script,style';
const FIELDS =
  'input:not([type=hidden]):not([aria-hidden=true]),select,textarea,[role=combobox],[aria-haspopup=listbox]';

const cleanShown = (s: string): string => s.replace(/[\s\u200b]+/g, ' ').trim();

function visibleText(root: Element): string {
  let out = '';
  const walk = (n: Node): void => {
    if (n.nodeType === Node.TEXT_NODE) {
      out += `${n.nodeValue || ''} `;
      return;
    }
    if (n.nodeType !== Node.ELEMENT_NODE || (n as Element).matches(SKIP)) return;
    const r = (n as Element).getBoundingClientRect();
    if (r.width <= 1 || r.height <= 1 || getComputedStyle(n as Element).visibility === 'hidden') return;
    for (const c of n.childNodes) walk(c);
  };
  walk(root);
  return cleanShown(out);
}

export default function shownValue(el: Element): string {
  const value = (el as HTMLInputElement).value;
  if ((el.tagName === 'INPUT' || el.tagName === 'TEXTAREA') && value) return value;
  // The wrapper stops before one holding a label or an option list: their text is not the value.
  const box =
    ownGroup(el, {
      fields: FIELDS,
      maxDepth: 3,
      acrossShadow: false,
      // (The trigger itself may say role=listbox: a tree select's hidden input.)
      stopAt: (n) =>
        !!(n.querySelector('label') || Array.from(n.querySelectorAll('[role=listbox]')).some((l) => l !== el)),
    }) ?? el;
  return (el.tagName === 'INPUT' ? '' : visibleText(el)) || visibleText(box);
}
