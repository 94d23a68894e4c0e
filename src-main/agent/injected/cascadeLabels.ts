// Runs in the page, on the items of one level of a cascader's list: each item's name, its text
// without the lists inside it.
export default function cascadeLabels(els: Element[]): string[] {
  return els.map((e) => {
    const parts: string[] = [];
    const walk = (n: Node): void => {
      if (n.nodeType === 3) parts.push(n.nodeValue ?? '');
      else if (n.nodeType === 1 && (n as Element).getAttribute('role') !== 'listbox')
        for (const c of Array.from(n.childNodes)) walk(c);
    };
    walk(e);
    return parts.join(' ').replace(/\s+/g, ' ').trim();
  });
}
