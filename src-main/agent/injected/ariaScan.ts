// Runs in the page, as part of pageScan.ts: form widgets built without native controls — ARIA radio
// groups, checkboxes and switches, select-only comboboxes (a button or div opening a listbox of
// option divs: MUI Select, Headless UI Listbox) and contenteditable text boxes. They become
// ScannedControls with `aria: true`, so grouping, matching and questions treat them like their
// native counterparts.
import {
  byIds,
  clean,
  closestAcross,
  elementById,
  FIELDS,
  hostOf,
  flatQueryAll,
  formAssociated,
  labelTextsOf,
  ownGroupAncestors,
  parentAcross,
  textOf,
  visible,
} from './dom.ts';
import {
  errorTextOf,
  formKeyOf,
  groupKeyOf,
  hintTextOf,
  langOf,
  legendsOf,
  nearTextOf,
  pidOf,
  rowOf,
} from './scanFields.ts';
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
  if (!start || start.nodeType !== Node.ELEMENT_NODE || start.tagName === 'FORM' || start.tagName === 'BODY')
    return null;
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
    const t = elementById(el, id);
    if (t) return t.getAttribute('role') === 'listbox' ? t : flatQueryAll(t, '[role=listbox]')[0] || t;
  }
  return null;
}

/** A select-only combobox known to take several choices now (its list is multiselectable or its options checkable, its component `multiple`); often known only once open. */
function multipleOf(el: Element): boolean {
  const host = hostOf(el) as (Element & { multiple?: unknown }) | null;
  if (host && (host.hasAttribute('multiple') || host.multiple === true)) return true;
  const list = listboxOf(el);
  return list?.getAttribute('aria-multiselectable') === 'true' || !!list?.querySelector('[role=option][aria-checked]');
}

/** The value of the component an option, radio or chip button is drawn inside of (an option element's shadow `<li role=option>`, a chip's `<button aria-pressed>`). */
const hostValueOf = (o: Element): string => {
  const host = hostOf(o);
  return host ? host.getAttribute('data-value') || host.getAttribute('value') || propertyValueOf(host) : '';
};

/** The host's value, for the one radio, checkbox or toggle button a component draws (an app inside one shadow root has many). */
function soleHostValueOf(el: Element): string {
  const root = el.getRootNode() as ShadowRoot;
  if (root.nodeType !== Node.DOCUMENT_FRAGMENT_NODE) return '';
  return root.querySelectorAll('[role=radio],[role=checkbox],[role=switch],[aria-pressed]').length === 1
    ? hostValueOf(el)
    : '';
}

/** The `value` property of a custom element (frameworks set it as a property, not an attribute). */
function propertyValueOf(el: Element): string {
  const v = el.tagName.includes('-') ? (el as HTMLInputElement).value : undefined;
  return typeof v === 'string' ? v : '';
}

type WidgetType = 'radio' | 'checkbox' | 'listbox' | 'editable';

const PRESSED = '[aria-pressed=true],[aria-pressed=false]';
const groupLabelOf = (g: Element): string => clean(g.getAttribute('aria-label')) || nameByIds(g);

/**
 * The group a toggle button (`aria-pressed`) chooses in: the closest container in the flat tree
 * holding several toggle buttons (a chip set, a segmented control), or the labelled container just
 * around it. A lone toggle (show password, bold) is no choice: null.
 */
export function pressedGroupOf(el: Element): Element | null {
  if (!el.matches(PRESSED) || !(el.tagName === 'BUTTON' || el.getAttribute('role') === 'button')) return null;
  let n = parentAcross(el);
  for (let depth = 0; depth < 8 && n && n.nodeType === Node.ELEMENT_NODE; depth++) {
    const e = n as Element;
    if (e.tagName === 'FORM' || e.tagName === 'BODY') return null;
    if (flatQueryAll(e, PRESSED).length > 1) {
      // The chips' own slot holds them all; the labelled element around it names the group.
      let labelled: Node | null = e;
      for (let up = 0; up < 3 && labelled && labelled.nodeType === Node.ELEMENT_NODE; up++) {
        if (groupLabelOf(labelled as Element)) return labelled as Element;
        labelled = parentAcross(labelled);
      }
      return e;
    }
    n = parentAcross(e);
  }
  return null;
}

/**
 * The role of a form-associated custom element that sets it through ElementInternals (no role
 * attribute to read) and keeps a checked state in a `checked` property with no checkable control
 * in its shadow root: a radio when it sits in a radiogroup or shares its name with others of its
 * kind, else a checkbox.
 */
function internalsRoleOf(el: Element): string {
  if (!formAssociated(el) || typeof (el as HTMLInputElement).checked !== 'boolean') return '';
  if (el.shadowRoot?.querySelector('input[type=checkbox],input[type=radio],[role=checkbox],[role=radio],[role=switch]'))
    return '';
  const name = el.getAttribute('name');
  const parent = parentAcross(el);
  const inGroup =
    parent && parent.nodeType === Node.ELEMENT_NODE && closestAcross(parent as Element, '[role=radiogroup]');
  const named = name && document.querySelectorAll(`${el.tagName.toLowerCase()}[name="${CSS.escape(name)}"]`).length > 1;
  return inGroup || named ? 'radio' : 'checkbox';
}

/** Whether an ARIA radio, checkbox, switch or toggle button is on: aria-checked, aria-pressed, else its `checked` property. */
function isChecked(el: Element): boolean {
  const state = el.getAttribute('aria-checked') ?? el.getAttribute('aria-pressed');
  if (state !== null) return state === 'true';
  return (el as HTMLInputElement).checked === true;
}

/** A button beside a combobox input in the same wrapper, opening its list: `<input role=combobox><button aria-haspopup=listbox>` (or an input with aria-haspopup=listbox or tree: a tree select's hidden input). */
function comboboxButton(el: Element): boolean {
  if (!(el.tagName === 'BUTTON' || el.getAttribute('role') === 'button')) return false;
  const wrapper = el.parentElement;
  // The combobox's own wrapper: not the form, holding one input and no button but this one.
  if (
    !wrapper ||
    /^(FORM|FIELDSET|BODY)$/.test(wrapper.tagName) ||
    wrapper.querySelectorAll('button,[role=button]').length !== 1
  )
    return false;
  const inputs = Array.from(wrapper.querySelectorAll('input:not([type=hidden]),textarea'));
  const input = inputs.length === 1 ? (inputs[0] as Element) : null;
  const popup = input?.getAttribute('aria-haspopup');
  return !!input && (input.getAttribute('role') === 'combobox' || popup === 'listbox' || popup === 'tree');
}

/**
 * The name of the one button inside a combobox that nothing names (`<div role=combobox><button
 * aria-label="Month founded">June</button></div>`): the button's own name from `aria-label` or
 * `aria-labelledby` — never its text, which is the value it shows. '' when there is no such button.
 */
function triggerNameOf(el: Element): string {
  const buttons = flatQueryAll(el, 'button,[role=button]');
  if (buttons.length !== 1) return '';
  const button = buttons[0] as Element;
  return clean(button.getAttribute('aria-label')) || nameByIds(button);
}

function widgetTypeOf(el: Element, role: string): WidgetType | null {
  if (role === 'radio') return 'radio';
  if (role === 'checkbox' || role === 'switch') return 'checkbox';
  // A trigger opening a tree (a tree select) is chosen in like a list (the filler walks the tree).
  const popup = el.getAttribute('aria-haspopup');
  if (role === 'combobox' || popup === 'listbox' || popup === 'tree') {
    // The ARIA 1.0 pattern wraps a text input in the combobox: the input is the field.
    if (el.querySelector('input:not([type=hidden]),textarea')) return null;
    // The button an editable combobox draws beside its input to open the list (APG: the combobox's own
    // button, out of the tab order) is part of that combobox, not a second field.
    if (role !== 'combobox' && comboboxButton(el)) return null;
    return 'listbox';
  }
  const html = el as HTMLElement;
  if (html.isContentEditable && !html.parentElement?.isContentEditable) return 'editable';
  return null;
}

/** The ARIA widgets among `all`, in tree order; `claimed` are parts of a field scanned elsewhere (date segments). */
export function scanAriaWidgets(all: Element[], claimed: Set<Element> = new Set()): ScannedControl[] {
  const controls: ScannedControl[] = [];
  for (const el of all) {
    const tag = el.tagName.toLowerCase();
    if (tag === 'input' || tag === 'select' || tag === 'textarea' || tag === 'option' || claimed.has(el)) continue;
    const pressedGroup = pressedGroupOf(el);
    const role = (el.getAttribute('role') || internalsRoleOf(el)).toLowerCase();
    const type = pressedGroup ? 'checkbox' : widgetTypeOf(el, role);
    if (!type) continue;
    const vis = visible(el);
    const group =
      type === 'radio'
        ? closestAcross(el, '[role=radiogroup]') || (parentAcross(el) as Element | null)
        : type === 'checkbox'
          ? pressedGroup || closestAcross(el, '[role=group],fieldset')
          : null;
    const hidden = hiddenOf(type === 'radio' ? group : el);
    const checkboxGroup =
      group && type === 'checkbox' && (pressedGroup || group.querySelectorAll('[role=checkbox]').length > 1)
        ? group
        : null;
    const labels = labelTextsOf(el, formAssociated(el)).filter(Boolean);
    const ownLabel = clean(el.getAttribute('aria-label'));
    const labelledBy = nameByIds(el);
    // A combobox nothing names may be named by the one button inside it that opens it (its trigger).
    const ariaLabel = ownLabel || (type === 'listbox' && !labels.length && !labelledBy ? triggerNameOf(el) : '');
    const text = ownText(el);
    // Radios and checkboxes usually carry their label as content; a listbox trigger shows its value instead.
    if (!labels.length && !ariaLabel && !labelledBy && (type === 'radio' || type === 'checkbox') && text)
      labels.push(text);
    let value = '';
    let options: ScannedOption[] = [];
    if (type === 'radio' || type === 'checkbox')
      value =
        el.getAttribute('data-value') ||
        el.getAttribute('value') ||
        propertyValueOf(el) ||
        soleHostValueOf(el) ||
        text ||
        ariaLabel ||
        labelledBy;
    else if (type === 'editable') value = clean((el as HTMLElement).innerText);
    else {
      // A trigger inside a form-associated component: the host's value is what the form submits.
      const host = hostOf(el);
      value = hidden
        ? hidden.value
        : host && formAssociated(host) && 'value' in host
          ? String((host as HTMLInputElement).value ?? '')
          : text;
      const lb = listboxOf(el);
      if (lb) {
        options = flatQueryAll(lb, '[role=option]').map((o) => ({
          label: clean(o.getAttribute('aria-label') || textOf(o)),
          value: o.getAttribute('data-value') || o.getAttribute('value') || hostValueOf(o),
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
      id: hostOf(el) ? '' : el.id || '',
      labels,
      ariaLabel,
      labelledBy,
      describedBy: byIds(el, el.getAttribute('aria-describedby')),
      placeholder: clean(
        el.getAttribute('aria-placeholder') || el.getAttribute('data-placeholder') || el.getAttribute('placeholder'),
      ),
      title: clean(el.getAttribute('title')),
      legends:
        pressedGroup && groupLabelOf(pressedGroup) ? [groupLabelOf(pressedGroup), ...legendsOf(el)] : legendsOf(el),
      nearText:
        (type === 'radio' || pressedGroup) && group && !groupLabelled
          ? nearTextOf(group)
          : labels.length || ownLabel || labelledBy
            ? ''
            : nearTextOf(el),
      autocomplete: '',
      ariaAutocomplete: '',
      required:
        el.getAttribute('aria-required') === 'true' ||
        (hostOf(el) as HTMLInputElement | null)?.required === true ||
        !!(group && group.getAttribute('aria-required') === 'true') ||
        !!hidden?.required,
      visible: vis,
      disabled: el.getAttribute('aria-disabled') === 'true' || (el as HTMLButtonElement).disabled === true,
      readOnly: el.getAttribute('aria-readonly') === 'true',
      value,
      checked: isChecked(el),
      options,
      multiple: type === 'listbox' && multipleOf(el),
      valid: el.getAttribute('aria-invalid') !== 'true',
      validationMessage: '',
      errorText: vis ? errorTextOf(el) : '',
      pattern: '',
      maxLength: -1,
      // Radios group by their radiogroup, checkboxes by a group holding several; others stand alone.
      groupKey:
        type === 'radio' ? pidOf(group as Element) : type === 'checkbox' ? pidOf(checkboxGroup || el) : groupKeyOf(el),
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
      ...rowOf(el),
    });
  }
  return controls;
}
