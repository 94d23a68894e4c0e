// Runs in the page, on one element: a CSS selector that matches it alone right now (the step cache's
// fallback when its role and name no longer find it): its id, its name attribute, else a path of
// nth-of-type steps up to the nearest ancestor with a unique id.

function isUnique(selector: string): boolean {
  try {
    return document.querySelectorAll(selector).length === 1;
  } catch {
    return false;
  }
}

export default function uniqueSelector(el: Element): string {
  if (el.id && isUnique(`#${CSS.escape(el.id)}`)) return `#${CSS.escape(el.id)}`;
  const tag = el.tagName.toLowerCase();
  const nameAttr = el.getAttribute('name');
  if (nameAttr) {
    const byName = `${tag}[name="${CSS.escape(nameAttr)}"]`;
    if (isUnique(byName)) return byName;
  }
  const steps: string[] = [];
  let node: Element | null = el;
  while (node && node !== document.documentElement) {
    if (node.id && isUnique(`#${CSS.escape(node.id)}`)) {
      steps.unshift(`#${CSS.escape(node.id)}`);
      break;
    }
    const current: Element = node;
    const parent: Element | null = current.parentElement;
    const index = parent
      ? Array.from(parent.children)
          .filter((c) => c.tagName === current.tagName)
          .indexOf(current) + 1
      : 1;
    steps.unshift(`${current.tagName.toLowerCase()}:nth-of-type(${index})`);
    node = parent;
  }
  return steps.join(' > ');
}
