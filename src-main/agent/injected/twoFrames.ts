// Runs in the page, on any element of it: resolves once the page has drawn two animation frames (what it
// does in answer to the last input, in its handlers, effects and the renders they cause, has run). A
// hidden document draws no frames: it answers at once; a page holding its frames back, after 100 ms.
export default function twoFrames(el: Element): Promise<boolean> {
  const view = el.ownerDocument.defaultView;
  if (!view || el.ownerDocument.visibilityState === 'hidden') return Promise.resolve(false);
  return new Promise((resolve) => {
    const late = view.setTimeout(() => resolve(false), 100);
    view.requestAnimationFrame(() =>
      view.requestAnimationFrame(() => {
        view.clearTimeout(late);
        resolve(true);
      }),
    );
  });
}
