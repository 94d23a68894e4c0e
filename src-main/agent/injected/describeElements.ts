// Runs in the page, on the elements a target matched: the first four as `role "text"` (text: the
// accessible label, else the visible text, placeholder, value or name, at most 40 characters), for an
// error that names what was found.
export default function describeElements(els: Element[]): string[] {
  return els.slice(0, 4).map((el) => {
    const tag = el.tagName.toLowerCase();
    const role = el.getAttribute('role') ?? tag;
    const text = (
      el.getAttribute('aria-label') ||
      (el as HTMLElement).innerText ||
      el.getAttribute('placeholder') ||
      (el as HTMLInputElement).value ||
      el.getAttribute('name') ||
      ''
    )
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 40);
    return `${role} "${text}"`;
  });
}
