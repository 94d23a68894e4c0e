// Runs in the page for the model agent (agent/model/pageState.ts): lists every visible, enabled
// interactive element of this frame and its open shadow roots, tags each with `refAttr` = its index
// for this turn, and reads the visible text.
import type { ModelFrameScan, ModelScanArgs, PageElement } from './scanTypes.ts';

const SELECTOR =
  'input:not([type=hidden]),select,textarea,button,a[href],[role=button],[role=link],[role=checkbox],[role=radio],[role=combobox],[role=option],[role=tab],[role=menuitem],[role=switch],[contenteditable=true]';

const clean = (t: string | null | undefined, max = 80): string => (t ?? '').replace(/\s+/g, ' ').trim().slice(0, max);

function visible(el: Element): boolean {
  const r = el.getBoundingClientRect();
  const cs = getComputedStyle(el);
  return r.width > 0 && r.height > 0 && cs.visibility !== 'hidden' && cs.display !== 'none' && cs.opacity !== '0';
}

function labelOf(el: Element): string {
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
}

function roleOf(el: Element): string {
  const explicit = el.getAttribute('role');
  if (explicit) return explicit;
  const tag = el.tagName.toLowerCase();
  const type = (el.getAttribute('type') ?? '').toLowerCase();
  if (tag === 'a') return 'link';
  if (tag === 'button' || (tag === 'input' && ['submit', 'button', 'reset', 'image'].includes(type))) return 'button';
  if (tag === 'select') return el.hasAttribute('multiple') ? 'listbox' : 'combobox';
  if (tag === 'textarea') return 'textbox';
  if (tag === 'input') {
    const byType: Record<string, string> = { checkbox: 'checkbox', radio: 'radio', range: 'slider', file: 'file' };
    return byType[type] ?? 'textbox';
  }
  return tag;
}

/** Document order, descending into open shadow roots where their hosts sit. */
function deep(root: Document | ShadowRoot, acc: Element[] = []): Element[] {
  for (const el of Array.from(root.querySelectorAll('*'))) {
    acc.push(el);
    if (el.shadowRoot) deep(el.shadowRoot, acc);
  }
  return acc;
}

export default function modelScan({ refAttr, start }: ModelScanArgs): ModelFrameScan {
  const all = deep(document);
  for (const el of all) el.removeAttribute(refAttr);
  const out: PageElement[] = [];
  for (const el of all.filter((e) => e.matches(SELECTOR))) {
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
    const ariaChecked = el.getAttribute('aria-checked');
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
      checked: isBox ? (el as HTMLInputElement).checked : ariaChecked !== null ? ariaChecked === 'true' : null,
      options:
        tag === 'select'
          ? Array.from((el as HTMLSelectElement).options)
              .map((o) => clean(o.textContent, 60))
              .slice(0, 40)
          : [],
    });
  }
  return { url: location.href, title: document.title, elements: out, text: clean(document.body?.innerText, 2000) };
}
