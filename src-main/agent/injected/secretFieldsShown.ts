// Runs in an isolated world of a page's document (browser/pageScreenshot.ts, a step screenshot's mask
// check): whether any element of the document or of an open shadow root in it matches `selector` (the
// secret fields' selector, one compound selector per alternative, so a match never spans a shadow
// boundary). Closed shadow roots stay out, as for Playwright's CSS engine. An isolated world sees the
// page's DOM through its own wrappers: a page script that replaced `querySelector` or the `shadowRoot`
// getter in its own world changes nothing here.
export default function secretFieldsShown(selector: string): boolean {
  const roots: (Document | ShadowRoot)[] = [document];
  for (let root = roots.pop(); root; root = roots.pop()) {
    if (root.querySelector(selector)) return true;
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) roots.push(el.shadowRoot);
  }
  return false;
}
