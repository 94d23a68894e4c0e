// Runs in every document of a recorded page (browser/recorder.ts): paints secret fields over while
// recording. `on` adopts the mask sheet into the document (constructed sheets are not inline styles,
// so a page's CSP does not refuse them), once per document; off takes it away. `key` is the
// recording's own, so two recordings of one page (a job inside a recorded session) do not take each
// other's mask away.
import type { RecordingMaskArgs } from './scanTypes.ts';

export default function recordingMask({ key, css, on }: RecordingMaskArgs): void {
  const slots = window as unknown as Record<string, CSSStyleSheet | undefined>;
  if (!on) {
    const sheet = slots[key];
    if (!sheet) return;
    delete slots[key];
    document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => s !== sheet);
    return;
  }
  if (slots[key]) return;
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(css);
  slots[key] = sheet;
  const adopt = (): void => {
    if (!slots[key]) return;
    if (!document.adoptedStyleSheets.includes(sheet))
      document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  };
  adopt();
  new MutationObserver(adopt).observe(document, { childList: true, subtree: false });
}
