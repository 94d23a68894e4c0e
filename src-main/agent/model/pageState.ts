import type { Locator, Page } from 'playwright-core';

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
}

const REF_ATTR = 'data-portico-ref';

/** Indexes every visible, enabled interactive element (tagging it for this turn) and reads the page's text. */
export async function readPageState(page: Page): Promise<PageState> {
  const scanned = await page.evaluate((refAttr) => {
    const selector = 'input:not([type=hidden]),select,textarea,button,a[href],[role=button],[role=link],[role=checkbox],[role=radio],[role=combobox],[role=option],[role=tab],[role=menuitem],[role=switch],[contenteditable=true]';
    const clean = (t: string | null | undefined, max = 80): string => (t ?? '').replace(/\s+/g, ' ').trim().slice(0, max);
    const visible = (el: Element): boolean => {
      const r = el.getBoundingClientRect();
      const cs = getComputedStyle(el);
      return r.width > 0 && r.height > 0 && cs.visibility !== 'hidden' && cs.display !== 'none' && cs.opacity !== '0';
    };
    const labelOf = (el: Element): string => {
      const aria = el.getAttribute('aria-label');
      if (aria) return clean(aria);
      const by = el.getAttribute('aria-labelledby');
      if (by) return clean(by.split(/\s+/).map((id) => document.getElementById(id)?.textContent ?? '').join(' '));
      const labels = (el as HTMLInputElement).labels;
      if (labels && labels.length > 0) {
        // A wrapping label also contains the control (a select's options): read the label without it.
        return clean(Array.from(labels).map((l) => {
          const copy = l.cloneNode(true) as Element;
          copy.querySelectorAll('input,select,textarea').forEach((c) => c.remove());
          return copy.textContent;
        }).join(' '));
      }
      const tag = el.tagName.toLowerCase();
      if (tag === 'input' && ['submit', 'button'].includes((el as HTMLInputElement).type)) return clean((el as HTMLInputElement).value);
      if (tag === 'input' || tag === 'select' || tag === 'textarea') return clean(el.getAttribute('placeholder') || el.getAttribute('title') || el.getAttribute('name'));
      return clean((el as HTMLElement).innerText || el.getAttribute('title') || el.querySelector('img')?.getAttribute('alt'));
    };
    const roleOf = (el: Element): string => {
      const explicit = el.getAttribute('role');
      if (explicit) return explicit;
      const tag = el.tagName.toLowerCase();
      const type = (el.getAttribute('type') ?? '').toLowerCase();
      if (tag === 'a') return 'link';
      if (tag === 'button' || (tag === 'input' && ['submit', 'button', 'reset', 'image'].includes(type))) return 'button';
      if (tag === 'select') return el.hasAttribute('multiple') ? 'listbox' : 'combobox';
      if (tag === 'textarea') return 'textbox';
      if (tag === 'input') return type === 'checkbox' ? 'checkbox' : type === 'radio' ? 'radio' : type === 'range' ? 'slider' : type === 'file' ? 'file' : 'textbox';
      return tag;
    };
    document.querySelectorAll(`[${refAttr}]`).forEach((el) => el.removeAttribute(refAttr));
    const out: PageElement[] = [];
    for (const el of Array.from(document.querySelectorAll(selector))) {
      if ((el as HTMLInputElement).disabled || el.getAttribute('aria-disabled') === 'true') continue;
      const type = (el.getAttribute('type') ?? '').toLowerCase();
      // File inputs are often styled away behind a button; they still need an index.
      if (!visible(el) && type !== 'file') continue;
      const index = out.length;
      el.setAttribute(refAttr, String(index));
      const tag = el.tagName.toLowerCase();
      const isBox = type === 'checkbox' || type === 'radio';
      let value = '';
      if (tag === 'select') value = clean((el as HTMLSelectElement).selectedOptions[0]?.textContent);
      else if (tag === 'input' || tag === 'textarea') value = isBox ? '' : clean((el as HTMLInputElement).value, 120);
      out.push({
        index, role: roleOf(el), name: labelOf(el), tag, type,
        id: el.id, nameAttr: el.getAttribute('name') ?? '', testId: el.getAttribute('data-testid') ?? '', placeholder: el.getAttribute('placeholder') ?? '',
        // A password field's content is never read back: it may hold a real secret.
        value: type === 'password' ? (value ? '(filled)' : '') : value,
        checked: isBox ? (el as HTMLInputElement).checked : el.getAttribute('aria-checked') !== null ? el.getAttribute('aria-checked') === 'true' : null,
        options: tag === 'select' ? Array.from((el as HTMLSelectElement).options).map((o) => clean(o.textContent, 60)).slice(0, 40) : [],
      });
    }
    return { url: location.href, title: document.title, elements: out, text: clean(document.body?.innerText, 2000) };
  }, REF_ATTR);
  return scanned;
}

/** The element the model named by index this turn. */
export function locateByIndex(page: Page, index: number): Locator {
  return page.locator(`[${REF_ATTR}="${index}"]`);
}

/** The compact listing the model reads: one line per element. */
export function describeElements(elements: PageElement[]): string {
  return elements.map((e) => {
    const parts = [`[${e.index}] ${e.role}`];
    if (e.type && e.role === 'textbox' && e.type !== 'text') parts.push(`type=${e.type}`);
    if (e.name) parts.push(JSON.stringify(e.name));
    if (e.value) parts.push(`value=${JSON.stringify(e.value)}`);
    if (e.checked !== null) parts.push(e.checked ? 'checked' : 'unchecked');
    if (e.options.length > 0) parts.push(`options=${JSON.stringify(e.options)}`);
    return parts.join(' ');
  }).join('\n');
}

/** A stable fingerprint of what the page offers, to notice turns that change nothing. */
export function fingerprint(state: PageState): string {
  return `${state.url}|${state.elements.map((e) => `${e.role}:${e.name}:${e.value}:${String(e.checked)}`).join(',')}`;
}

/** Finds the element a descriptor names on the current page: exactly one match or none. */
export async function resolveDescriptor(page: Page, d: ElementDescriptor): Promise<Locator | undefined> {
  const candidates: Locator[] = [];
  if (d.testId) candidates.push(page.locator(`[data-testid="${cssEscape(d.testId)}"]`));
  if (d.id && !/\d{3,}/.test(d.id)) candidates.push(page.locator(`#${cssEscape(d.id)}`));
  if (d.name && ['button', 'link', 'checkbox', 'radio', 'combobox', 'textbox', 'tab', 'switch', 'option', 'menuitem'].includes(d.role)) {
    candidates.push(page.getByRole(d.role as 'button', { name: d.name, exact: true }));
  }
  if (d.name && ['textbox', 'combobox', 'checkbox', 'radio'].includes(d.role)) candidates.push(page.getByLabel(d.name, { exact: true }));
  if (d.nameAttr) candidates.push(page.locator(`${d.tag}[name="${cssEscape(d.nameAttr)}"]`));
  for (const candidate of candidates) {
    if ((await candidate.count()) === 1) return candidate;
  }
  return undefined;
}

function cssEscape(text: string): string {
  return text.replace(/["\\#.:[\]()]/g, (c) => `\\${c}`);
}
