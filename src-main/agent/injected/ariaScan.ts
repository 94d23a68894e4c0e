// Runs in the page, as part of pageScan.ts: form widgets built without native controls — ARIA radio
// groups, checkboxes and switches, select-only comboboxes (a button or div opening a listbox of
// option divs: MUI Select, Headless UI Listbox) and contenteditable text boxes. They become
// ScannedControls with `aria: true`, so grouping, matching and questions treat them like their
// native counterparts.
import { byIds, clean, closestAcross, FIELDS, labelTextsOf, ownGroupAncestors, parentAcross, textOf, visible } from './dom.ts';
import { errorTextOf, formKeyOf, groupKeyOf, hintTextOf, langOf, legendsOf, nearTextOf, pidOf } from './scanFields.ts';
import type { ScannedControl, ScannedOption } from './scanTypes.ts';

/** aria-labelledby often lists the widget itself ("Age" + the chosen value): the self-reference is dropped. */
const nameByIds = (el: Element): string =>
  byIds(
    el,
    (el.getAttribute('aria-labelledby') || '')
      .split(/\s+/)
      .filter((i) => i && i !== el.id)
      .join(' '),
  );

const ownText = (el: Element): string => clean(textOf(el).replace(/\u200b/g, ''));

const HIDDEN_VALUE = 'input[type=hidden][name], input[aria-hidden=true][name], select[aria-hidden=true][name]';

/** The hidden input holding a widget's value: inside it, or beside it in a wrapper holding no other field. */
function hiddenOf(start: Element | null): HTMLInputElement | HTMLSelectElement | null {
  if (!start || start.nodeType !== Node.ELEMENT_NODE || start.tagName === 'FORM' || start.tagName === 'BODY') return null;
  const inside = (n: Element): HTMLInputElement | HTMLSelectElement | null =>
    Array.from(n.querySelectorAll<HTMLInputElement | HTMLSelectElement>(HIDDEN_VALUE)).find(
      (i) => !/csrf|token|nonce|^_/i.test(i.getAttribute('name') || ''),
    ) ?? null;
  const own = inside(start);
  if (own) return own;
  for (const wrapper of ownGroupAncestors(start, { fields: FIELDS, maxDepth: 2 })) {
    const h = inside(wrapper);
    if (h) return h;
  }
  return null;
}

function listboxOf(el: Element): Element | null {
  const ids = (el.getAttribute('aria-controls') || el.getAttribute('aria-owns') || '').split(/\s+/).filter(Boolean);
  for (const id of ids) {
    const t = document.getElementById(id);
    if (t) return t.getAttribute('role') === 'listbox' ? t : t.querySelector('[role=listbox]') || t;
  }
  return null;
}

type WidgetType = 'radio' | 'checkbox' | 'listbox' | 'editable';

function widgetTypeOf(el: Element, role: string): WidgetType | null {
  if (role === 'radio') return 'radio';
  if (role === 'checkbox' || role === 'switch') return 'checkbox';
  if (role === 'combobox' || el.getAttribute('aria-haspopup') === 'listbox') {
    // The ARIA 1.0 pattern wraps a text input in the combobox: the input is the field.
    return el.querySelector('input:not([type=hidden]),textarea') ? null : 'listbox';
  }
  const html = el as HTMLElement;
  if (html.isContentEditable && !html.parentElement?.isContentEditable) return 'editable';
  return null;
}

/** The ARIA widgets among `all`, in tree order. */
export function scanAriaWidgets(all: Element[]): ScannedControl[] {
  const controls: ScannedControl[] = [];
  for (const el of all) {
    const tag = el.tagName.toLowerCase();
    if (tag === 'input' || tag === 'select' || tag === 'textarea' || tag === 'option') continue;
    const role = (el.getAttribute('role') || '').toLowerCase();
    const type = widgetTypeOf(el, role);
    if (!type) continue;
    const vis = visible(el);
    const group =
      type === 'radio'
        ? closestAcross(el, '[role=radiogroup]') || (parentAcross(el) as Element | null)
        : type === 'checkbox'
          ? closestAcross(el, '[role=group],fieldset')
          : null;
    const hidden = hiddenOf(type === 'radio' ? group : el);
    const checkboxGroup = group && type === 'checkbox' && group.querySelectorAll('[role=checkbox]').length > 1 ? group : null;
    const labels = labelTextsOf(el, false).filter(Boolean);
    const ariaLabel = clean(el.getAttribute('aria-label'));
    const labelledBy = nameByIds(el);
    const text = ownText(el);
    // Radios and checkboxes usually carry their label as content; a listbox trigger shows its value instead.
    if (!labels.length && !ariaLabel && !labelledBy && (type === 'radio' || type === 'checkbox') && text) labels.push(text);
    let value = '';
    let options: ScannedOption[] = [];
    if (type === 'radio' || type === 'checkbox') value = el.getAttribute('data-value') || el.getAttribute('value') || text || ariaLabel || labelledBy;
    else if (type === 'editable') value = clean((el as HTMLElement).innerText);
    else {
      value = hidden ? hidden.value : text;
      const lb = listboxOf(el);
      if (lb) {
        options = Array.from(lb.querySelectorAll('[role=option]')).map((o) => ({
          label: clean(o.getAttribute('aria-label') || textOf(o)),
          value: o.getAttribute('data-value') || '',
          disabled: o.getAttribute('aria-disabled') === 'true',
        }));
      }
    }
    const groupLabelled = group && (group.getAttribute('aria-label') || group.getAttribute('aria-labelledby'));
    controls.push({
      pid: pidOf(el),
      tag,
      type,
      role,
      name: hidden ? hidden.getAttribute('name') || '' : '',
      id: el.id || '',
      labels,
      ariaLabel,
      labelledBy,
      describedBy: byIds(el, el.getAttribute('aria-describedby')),
      placeholder: clean(el.getAttribute('aria-placeholder') || el.getAttribute('data-placeholder') || el.getAttribute('placeholder')),
      title: clean(el.getAttribute('title')),
      legends: legendsOf(el),
      nearText: type === 'radio' && group && !groupLabelled ? nearTextOf(group) : labels.length || ariaLabel || labelledBy ? '' : nearTextOf(el),
      autocomplete: '',
      ariaAutocomplete: '',
      required: el.getAttribute('aria-required') === 'true' || !!(group && group.getAttribute('aria-required') === 'true') || !!hidden?.required,
      visible: vis,
      disabled: el.getAttribute('aria-disabled') === 'true' || (el as HTMLButtonElement).disabled === true,
      readOnly: el.getAttribute('aria-readonly') === 'true',
      value,
      checked: el.getAttribute('aria-checked') === 'true',
      options,
      multiple: false,
      valid: el.getAttribute('aria-invalid') !== 'true',
      validationMessage: '',
      errorText: vis ? errorTextOf(el) : '',
      pattern: '',
      maxLength: -1,
      // Radios group by their radiogroup, checkboxes by a group holding several; others stand alone.
      groupKey: type === 'radio' ? pidOf(group as Element) : type === 'checkbox' ? pidOf(checkboxGroup || el) : groupKeyOf(el),
      formKey: formKeyOf(el),
      hasListbox: type === 'listbox',
      aria: true,
      hiddenPid: hidden ? pidOf(hidden) : '',
      datalist: false,
      lang: langOf(el),
      hintText: type === 'editable' && vis ? hintTextOf(el) : '',
      affixes: '',
      labelOnly: false,
      mask: '',
    });
  }
  return controls;
}
