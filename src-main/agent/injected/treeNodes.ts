// Runs in the page, on a tree's items: each item's name (its aria-label, else its own text: what is
// not inside its group of children) and the names of the items it sits under, outermost first.
import type { TreeNode } from './scanTypes.ts';

export default function treeNodes(els: Element[]): TreeNode[] {
  return els.map((e) => {
    const own = (el: Element): string => {
      const named = el.getAttribute('aria-label');
      if (named) return named.trim();
      // The item's own text: what is not inside its group of children.
      const parts: string[] = [];
      const walk = (n: Node): void => {
        if (n.nodeType === 3) parts.push(n.nodeValue ?? '');
        else if (n.nodeType === 1 && (n as Element).getAttribute('role') !== 'group')
          for (const c of Array.from(n.childNodes)) walk(c);
      };
      walk(el);
      return parts.join(' ').replace(/\s+/g, ' ').trim();
    };
    const ancestors: string[] = [];
    for (let a = e.parentElement?.closest('[role=treeitem]'); a; a = a.parentElement?.closest('[role=treeitem]'))
      ancestors.unshift(own(a));
    return { label: own(e), value: own(e), ancestors };
  });
}
