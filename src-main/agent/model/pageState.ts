import type { Frame, Locator, Page } from 'playwright-core';
import { answerWithin, scriptableFrames } from '../../browser/frameAccess.ts';

/** What identifies an element across page loads (for replay): role + accessible name, label, stable attributes. */
export interface ElementDescriptor {
  role: string;
  name: string;
  tag: string;
  type: string;
  id: string;
  nameAttr: string;
  testId: string;
  placeholder: string;
}

/** One interactive element as the model sees it. */
export interface PageElement extends ElementDescriptor {
  index: number;
  value: string;
  checked: boolean | null;
  options: string[];
}

export interface PageState {
  url: string;
  title: string;
  elements: PageElement[];
  text: string;
  /** The frame each element lives in, by index: actions go to the right iframe. */
  frames: Frame[];
}

interface FrameScan {
  url: string;
  title: string;
  elements: PageElement[];
  text: string;
}

/** An iframe worth listing: attached and shown (a hidden iframe's controls cannot be used). */
async function isShownFrame(frame: Frame): Promise<boolean> {
  if (frame.isDetached()) return false;
  const owner = await frame.frameElement().catch(() => null);
  return owner !== null && (await owner.isVisible().catch(() => false));
}

const REF_ATTR = 'data-portico-ref';

/**
 * Indexes every visible, enabled interactive element of the page, its shown iframes and open shadow
 * roots (tagging each for this turn), and reads the visible text.
 */
export async function readPageState(page: Page): Promise<PageState> {
  const state: PageState = { url: page.url(), title: '', elements: [], text: '', frames: [] };
  const texts: string[] = [];
  for (const frame of scriptableFrames(page)) {
    if (frame !== page.mainFrame() && !(await isShownFrame(frame))) continue;
    // A frame that navigates or detaches mid-scan simply offers nothing this turn.
    const scan = await answerWithin(frame, scanFrame(frame, state.elements.length)).catch(() => null);
    if (!scan) continue;
    if (frame === page.mainFrame()) Object.assign(state, { url: scan.url, title: scan.title });
    state.elements.push(...scan.elements);
    for (const _ of scan.elements) state.frames.push(frame);
    if (scan.text) texts.push(scan.text);
  }
  state.text = texts.join(' | ').slice(0, 2000);
  return state;
}

async function scanFrame(frame: Frame, start: number): Promise<FrameScan> {
  return frame.evaluate(
    ({ refAttr, start }) => {
      const selector =
        'input:not([type=hidden]),select,textarea,button,a[href],[role=button],[role=link],[role=checkbox],[role=radio],[role=combobox],[role=option],[role=tab],[role=menuitem],[role=switch],[contenteditable=true]';
      const clean = (t: string | null | undefined, max = 80): string =>
        (t ?? '').replace(/\s+/g, ' ').trim().slice(0, max);
      const visible = (el: Element): boolean => {
        const r = el.getBoundingClientRect();
        const cs = getComputedStyle(el);
        return r.width > 0 && r.height > 0 && cs.visibility !== 'hidden' && cs.display !== 'none' && cs.opacity !== '0';
      };
      const labelOf = (el: Element): string => {
        const aria = el.getAttribute('aria-label');
        if (aria) return clean(aria);
        const by = el.getAttribute('aria-labelledby');
        if (by) {
          const root = el.getRootNode() as Document | ShadowRoot;
          return clean(
            by
              .split(/\s+/)
              .map((id) => (root.getElementById(id) ?? document.getElementById(id))?.textContent ?? '')
              .join(' '),
          );
        }
        const labels = (el as HTMLInputElement).labels;
        if (labels && labels.length > 0) {
          // A wrapping label also contains the control (a select's options): read the label without it.
          return clean(
            Array.from(labels)
              .map((l) => {
                const copy = l.cloneNode(true) as Element;
                for (const c of Array.from(copy.querySelectorAll('input,select,textarea'))) c.remove();
                return copy.textContent;
              })
              .join(' '),
          );
        }
        const tag = el.tagName.toLowerCase();
        if (tag === 'input' && ['submit', 'button'].includes((el as HTMLInputElement).type))
          return clean((el as HTMLInputElement).value);
        if (tag === 'input' || tag === 'select' || tag === 'textarea')
          return clean(el.getAttribute('placeholder') || el.getAttribute('title') || el.getAttribute('name'));
        return clean(
          (el as HTMLElement).innerText || el.getAttribute('title') || el.querySelector('img')?.getAttribute('alt'),
        );
      };
      const roleOf = (el: Element): string => {
        const explicit = el.getAttribute('role');
        if (explicit) return explicit;
        const tag = el.tagName.toLowerCase();
        const type = (el.getAttribute('type') ?? '').toLowerCase();
        if (tag === 'a') return 'link';
        if (tag === 'button' || (tag === 'input' && ['submit', 'button', 'reset', 'image'].includes(type)))
          return 'button';
        if (tag === 'select') return el.hasAttribute('multiple') ? 'listbox' : 'combobox';
        if (tag === 'textarea') return 'textbox';
        if (tag === 'input')
          return type === 'checkbox'
            ? 'checkbox'
            : type === 'radio'
              ? 'radio'
              : type === 'range'
                ? 'slider'
                : type === 'file'
                  ? 'file'
                  : 'textbox';
        return tag;
      };
      // Document order, descending into open shadow roots where their hosts sit.
      const deep = (root: Document | ShadowRoot, acc: Element[] = []): Element[] => {
        for (const el of Array.from(root.querySelectorAll('*'))) {
          acc.push(el);
          if (el.shadowRoot) deep(el.shadowRoot, acc);
        }
        return acc;
      };
      const all = deep(document);
      for (const el of all) el.removeAttribute(refAttr);
      const out: PageElement[] = [];
      for (const el of all.filter((e) => e.matches(selector))) {
        if ((el as HTMLInputElement).disabled || el.getAttribute('aria-disabled') === 'true') continue;
        const type = (el.getAttribute('type') ?? '').toLowerCase();
        // File inputs are often styled away behind a button; they still need an index.
        if (!visible(el) && type !== 'file') continue;
        const index = start + out.length;
        el.setAttribute(refAttr, String(index));
        const tag = el.tagName.toLowerCase();
        const isBox = type === 'checkbox' || type === 'radio';
        let value = '';
        if (tag === 'select') value = clean((el as HTMLSelectElement).selectedOptions[0]?.textContent);
        else if (tag === 'input' || tag === 'textarea') value = isBox ? '' : clean((el as HTMLInputElement).value, 120);
        out.push({
          index,
          role: roleOf(el),
          name: labelOf(el),
          tag,
          type,
          id: el.id,
          nameAttr: el.getAttribute('name') ?? '',
          testId: el.getAttribute('data-testid') ?? '',
          placeholder: el.getAttribute('placeholder') ?? '',
          // A password field's content is never read back: it may hold a real secret.
          value: type === 'password' ? (value ? '(filled)' : '') : value,
          checked: isBox
            ? (el as HTMLInputElement).checked
            : el.getAttribute('aria-checked') !== null
              ? el.getAttribute('aria-checked') === 'true'
              : null,
          options:
            tag === 'select'
              ? Array.from((el as HTMLSelectElement).options)
                  .map((o) => clean(o.textContent, 60))
                  .slice(0, 40)
              : [],
        });
      }
      return { url: location.href, title: document.title, elements: out, text: clean(document.body?.innerText, 2000) };
    },
    { refAttr: REF_ATTR, start },
  );
}

/** The element the model named by index this turn, in its own frame (CSS locators pierce open shadow roots). */
export function locateByIndex(state: PageState, index: number): Locator {
  const frame = state.frames[index];
  if (!frame) throw new Error(`no element [${index}] in this turn's listing`);
  return frame.locator(`[${REF_ATTR}="${index}"]`);
}

/** The compact listing the model reads: one line per element. */
export function describeElements(elements: PageElement[]): string {
  return elements
    .map((e) => {
      const parts = [`[${e.index}] ${e.role}`];
      if (e.type && e.role === 'textbox' && e.type !== 'text') parts.push(`type=${e.type}`);
      if (e.name) parts.push(JSON.stringify(e.name));
      if (e.value) parts.push(`value=${JSON.stringify(e.value)}`);
      if (e.checked !== null) parts.push(e.checked ? 'checked' : 'unchecked');
      if (e.options.length > 0) parts.push(`options=${JSON.stringify(e.options)}`);
      return parts.join(' ');
    })
    .join('\n');
}

/** A stable fingerprint of what the page offers, to notice turns that change nothing. */
export function fingerprint(state: PageState): string {
  return `${state.url}|${state.elements.map((e) => `${e.role}:${e.name}:${e.value}:${String(e.checked)}`).join(',')}`;
}

/** Finds the element a descriptor names on the current page: exactly one match or none. */
export async function resolveDescriptor(page: Page, d: ElementDescriptor): Promise<Locator | undefined> {
  const candidates: ((f: Frame) => Locator)[] = [];
  if (d.testId) candidates.push((f) => f.locator(`[data-testid="${cssEscape(d.testId)}"]`));
  if (d.id && !/\d{3,}/.test(d.id)) candidates.push((f) => f.locator(`#${cssEscape(d.id)}`));
  if (
    d.name &&
    ['button', 'link', 'checkbox', 'radio', 'combobox', 'textbox', 'tab', 'switch', 'option', 'menuitem'].includes(
      d.role,
    )
  ) {
    candidates.push((f) => f.getByRole(d.role as 'button', { name: d.name, exact: true }));
  }
  if (d.name && ['textbox', 'combobox', 'checkbox', 'radio'].includes(d.role))
    candidates.push((f) => f.getByLabel(d.name, { exact: true }));
  if (d.nameAttr) candidates.push((f) => f.locator(`${d.tag}[name="${cssEscape(d.nameAttr)}"]`));
  const frames = scriptableFrames(page);
  // Unique across every frame: the same descriptor matching in two iframes is ambiguous.
  for (const candidate of candidates) {
    const hits: Locator[] = [];
    for (const frame of frames) {
      const locator = candidate(frame);
      const count = await locator.count().catch(() => 0);
      for (let i = 0; i < count; i += 1) hits.push(locator);
    }
    if (hits.length === 1) return hits[0];
  }
  return undefined;
}

function cssEscape(text: string): string {
  return text.replace(/["\\#.:[\]()]/g, (c) => `\\${c}`);
}
