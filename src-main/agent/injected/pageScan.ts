// Runs in the page: every form control, button and error message of one frame, open shadow roots
// included. Each element the engine may act on is stamped with a `data-portico-id` marker (pid).
// Native controls are read here; widgets built from ARIA roles are added by ariaScan.ts.
import { inlineCalendars, isCalendarTrigger, scanCalendarFields } from './calendarScan.ts';
import { pressedGroupOf, scanAriaWidgets } from './ariaScan.ts';
import {
  allElements,
  byIds,
  clean,
  closestAcross,
  flatQueryAll,
  formAssociated,
  hostLabelOf,
  hostOf,
  labelTextsOf,
  NATIVE_FIELDS,
  textOf,
  visible,
  visuallyHidden,
} from './dom.ts';
import { scanCharacterBoxes, scanSegmentedFields } from './segmentScan.ts';
import { rangeInputFacts, scanSliders } from './sliderScan.ts';
import { looksLikeTagInput } from './tagScan.ts';
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
import type { FrameScan, ScannedButton, ScannedControl, ScannedOption } from './scanTypes.ts';

/** What the scan reads off any native control; properties a tag lacks are undefined at run time. */
type NativeField = HTMLInputElement & HTMLSelectElement & HTMLTextAreaElement;

const hiddenMirror = (sel: Element): boolean =>
  sel.getAttribute('aria-hidden') === 'true' && (sel as HTMLElement).tabIndex < 0;
/** The combobox a hidden select sits beside, in the same wrapper. */
const mirroredSelectOf = (sel: Element): boolean =>
  hiddenMirror(sel) && !!sel.parentElement?.querySelector('[role=combobox]');
const mirrorSelectFor = (el: Element): HTMLSelectElement | null => {
  const wrapper = el.parentElement?.closest('.usa-combo-box, [class*=combo]') || el.parentElement;
  const sel = wrapper ? Array.from(wrapper.querySelectorAll('select')).find(hiddenMirror) : null;
  return sel || null;
};

// Group text is only read for fields that may hold a date (it is where a format example sits).
const DATEISH = /dat|dob|birth|born|day|dd|yy|expir|issue|when|valid|start|end|from|until/i;
// Prefix/suffix boxes (GOV.UK, NHS, USWDS, Bootstrap input groups) sit beside the input inside one wrapper.
const AFFIX = /(^|[-_ ])(prefix|suffix|addon|input-group-text)([-_ ]|$)|__(prefix|suffix)/i;
const affixesOf = (el: Element): string => {
  const out: string[] = [];
  const scope =
    el.parentElement && el.parentElement.querySelectorAll('input,select,textarea').length === 1
      ? el.parentElement
      : null;
  for (const sib of scope ? Array.from(scope.children) : []) {
    if (sib !== el && AFFIX.test(String(sib.className || ''))) {
      const t = clean(sib.textContent);
      if (t) out.push(t);
    }
  }
  return out.join(' ').slice(0, 60);
};

const PRIMARY = /primary|submit|cta|govuk-button(?!--secondary)/i;
const ADVANCE = /continue|next|start|submit|send|confirm|proceed|apply|finish/i;

/** A button, link or submit input that may advance the form; null when it is not one. */
function buttonOf(el: Element, tag: string, type: string, role: string): ScannedButton | null | 'skip' {
  if (
    !(
      tag === 'button' ||
      (tag === 'input' && (type === 'submit' || type === 'button' || type === 'image')) ||
      role === 'button' ||
      tag === 'a'
    )
  ) {
    return null;
  }
  const text = clean(
    tag === 'input'
      ? (el as HTMLInputElement).value || el.getAttribute('aria-label') || ''
      : el.getAttribute('aria-label') || textOf(el),
  );
  if (!text || text.length > 80) return 'skip';
  if (tag === 'a' && !role && !ADVANCE.test(text)) return 'skip';
  // A link in a <nav> (a site menu, a wizard's step indicator) or out of the tab order moves no form on.
  if (tag === 'a' && (closestAcross(el, 'nav') || el.getAttribute('tabindex') === '-1')) return 'skip';
  return {
    pid: pidOf(el),
    text,
    tag,
    type: tag === 'button' ? (el.getAttribute('type') || 'submit').toLowerCase() : type,
    visible: visible(el),
    disabled: !!(el as HTMLButtonElement).disabled || el.getAttribute('aria-disabled') === 'true',
    formKey: formKeyOf(el),
    primary: PRIMARY.test(String(el.className || '')),
  };
}

/** The text just before a radio's radiogroup when the group has no name of its own (aria-label/-labelledby naming nothing). */
function untiedGroupText(el: Element): string {
  const group = closestAcross(el, '[role=radiogroup]');
  if (!group || clean(group.getAttribute('aria-label')) || byIds(group, group.getAttribute('aria-labelledby')))
    return '';
  return nearTextOf(group);
}
/**
 * A `pattern` the page told the browser not to enforce (`<form novalidate>`): a number input that
 * formats its value ("$12,500") against its own pattern="[0-9]*" does not block the submit. Likewise
 * `required` on a combobox's empty text box (a multiselect shows its choices elsewhere).
 */
const patternIgnored = (el: NativeField): boolean => {
  const v = el.validity;
  if (!el.form?.noValidate || v.typeMismatch || v.tooLong || v.tooShort || v.customError || v.badInput) return false;
  // A multiselect combobox keeps its choices beside its text box, which stays empty: `required` on
  // that box is not what the form checks (the browser does not either, under novalidate).
  if (v.valueMissing) return !v.patternMismatch && el.getAttribute('role') === 'combobox';
  return v.patternMismatch;
};

/**
 * Checkboxes with no name (a React app keeps their state itself) inside one fieldset or `role=group`
 * holding several are one checkbox group, as a person reads them: its key, prefixed `checkgroup:`
 * (targets.ts groups by it). '' when the checkbox stands alone.
 */
function namelessCheckboxGroup(el: Element): string {
  const group = closestAcross(el, 'fieldset,[role=group]');
  if (!group || group.tagName === 'FORM') return '';
  return flatQueryAll(group, 'input[type=checkbox]').length > 1 ? `checkgroup:${pidOf(group)}` : '';
}

/** A native input, select or textarea as a ScannedControl; null for ones that are not fields to fill. */
function nativeControlOf(el: NativeField, tag: string, type: string, role: string): ScannedControl | null {
  if (type === 'hidden' || type === 'reset') return null;
  // Value mirrors of custom widgets (MUI's native input, Radix's bubble inputs): hidden from people,
  // so not a field to fill. Selects stay: select2 & co. hide theirs the same way and still obey it.
  // (A file input hidden behind its "Choose file" button is the field itself: see the proxy below.)
  if (tag === 'input' && type !== 'file' && el.getAttribute('aria-hidden') === 'true' && el.tabIndex < 0) return null;
  // A select hidden behind a combobox that drives it (USWDS combo box, select2's role=combobox) is
  // that combobox's mirror: the combobox is the field, and it takes the select's options.
  if (tag === 'select' && mirroredSelectOf(el)) return null;
  // Inside a component's shadow root, an input taken out of the tab order is the component's own
  // validation proxy (a radio group's hidden text box), not something a person fills.
  const host = hostOf(el);
  if (host && el.getAttribute('tabindex') === '-1' && role !== 'combobox') return null;
  const labels = labelTextsOf(el, true);
  // A control rendered in a shadow root is often labelled by its host: `<label>` around a
  // form-associated element, or the component's `label` attribute shown inside its shadow root.
  if (host && !labels.some(Boolean) && !el.getAttribute('aria-label') && !el.getAttribute('aria-labelledby')) {
    const hostLabel = hostLabelOf(host);
    if (hostLabel) labels.splice(0, labels.length, hostLabel);
  }
  // The component around it holds the field's name and required flag (form-associated or not).
  const hostField =
    host && (formAssociated(host) || host.tagName.includes('-'))
      ? (host as HTMLElement & { required?: boolean })
      : null;
  const root = el.getRootNode() as Partial<ParentNode>;
  const wrap = closestAcross(el, 'label');
  let vis = visible(el);
  let labelOnly = false;
  if (vis && (type === 'radio' || type === 'checkbox')) {
    // USWDS and others move the real input off-screen and draw it with the label.
    const r = el.getBoundingClientRect();
    const off = r.right <= 0 || r.bottom <= 0 || r.left >= innerWidth + 1000 || (r.width <= 1 && r.height <= 1);
    const l = el.labels?.[0] || wrap;
    if (off && l && visible(l)) labelOnly = true;
  }
  if (!vis && tag === 'select' && el.parentElement && visible(el.parentElement)) {
    // Enhanced selects (select2, chosen, choices.js, tom-select) hide the native select next to their widget.
    vis = Array.from(el.parentElement.children).some(
      (s) =>
        s !== el &&
        /select2|chosen|choices|selectize|ts-wrapper|ts-control/i.test(String(s.className || '')) &&
        visible(s),
    );
  }
  if (!vis && (type === 'radio' || type === 'checkbox' || type === 'file')) {
    // Custom-styled radios hide the input and show the label.
    const l = el.labels?.[0] || wrap;
    vis = !!l && visible(l);
    labelOnly = vis;
  }
  if (!vis && type === 'file' && el.parentElement) {
    // Enhanced uploads (GOV.UK, NHS.UK) hide the input behind a "Choose file" button that takes its
    // id and label; the input still receives the files.
    const proxy = Array.from(el.parentElement.children).find(
      (s) => s !== el && s.matches('button,[role=button]') && visible(s),
    );
    if (proxy) {
      vis = true;
      if (!labels.length && proxy.id && root.querySelectorAll) {
        for (const l of Array.from(root.querySelectorAll(`label[for="${CSS.escape(proxy.id)}"]`)))
          labels.push(textOf(l));
      }
    }
  }
  const list = tag === 'input' && el.list ? el.list : null;
  const mirror = role === 'combobox' ? mirrorSelectFor(el) : null;
  const optionSource: HTMLSelectElement | HTMLDataListElement | null = tag === 'select' ? el : list || mirror;
  const options: ScannedOption[] = optionSource
    ? Array.from(optionSource.options as ArrayLike<HTMLOptionElement>)
        .filter((o, i) => optionSource !== mirror || i > 0 || o.value !== '')
        .map((o) => ({ label: clean(o.label || o.textContent) || o.value, value: o.value, disabled: o.disabled }))
    : [];
  const controlsId = el.getAttribute('aria-controls') || el.getAttribute('aria-owns') || '';
  const dateish = DATEISH.test([el.name, el.id, el.placeholder, el.getAttribute('aria-label'), ...labels].join(' '));
  return {
    pid: pidOf(el),
    tag,
    type,
    role,
    name: el.getAttribute('name') || hostField?.getAttribute('name') || '',
    // Ids inside a shadow root are the component's own ("input"), the same in every instance.
    id: host ? '' : el.id || '',
    labels: labels.filter(Boolean),
    ariaLabel: clean(el.getAttribute('aria-label')),
    labelledBy: byIds(el, el.getAttribute('aria-labelledby')),
    describedBy: byIds(el, el.getAttribute('aria-describedby')),
    placeholder: clean(el.getAttribute('placeholder')),
    title: clean(el.getAttribute('title')),
    legends: legendsOf(el),
    // A radio inside a radiogroup no label names (a segmented control under a plain-text heading) takes the text before the group.
    nearText: labels.length ? (type === 'radio' ? untiedGroupText(el) : '') : nearTextOf(el),
    autocomplete: (el.getAttribute('autocomplete') || '').toLowerCase(),
    ariaAutocomplete: (el.getAttribute('aria-autocomplete') || '').toLowerCase(),
    required: !!el.required || el.getAttribute('aria-required') === 'true' || hostField?.required === true,
    visible: vis,
    disabled: !!el.disabled,
    readOnly: !!el.readOnly,
    value: type === 'file' ? (el.files?.[0]?.name ?? '') : String(el.value == null ? '' : el.value),
    checked: !!el.checked,
    options,
    multiple: !!el.multiple,
    valid: el.validity ? el.validity.valid || patternIgnored(el) : true,
    validationMessage: el.validationMessage || '',
    errorText: vis ? errorTextOf(el) : '',
    pattern: el.getAttribute('pattern') || '',
    maxLength: el.maxLength > 0 ? el.maxLength : -1,
    groupKey:
      type === 'checkbox' && !el.getAttribute('name') ? namelessCheckboxGroup(el) || groupKeyOf(el) : groupKeyOf(el),
    formKey: formKeyOf(el),
    // An input that opens a listbox (aria-haspopup=listbox) is a combobox even without the role (PrimeReact's Dropdown input).
    hasListbox:
      role === 'combobox' ||
      /list|both/.test(el.getAttribute('aria-autocomplete') || '') ||
      !!controlsId ||
      el.getAttribute('aria-haspopup') === 'listbox',
    aria: false,
    hiddenPid: '',
    datalist: !!list,
    lang: langOf(el),
    hintText: /^(text|search|tel)$/.test(type) && vis && dateish ? hintTextOf(el) : '',
    affixes: tag === 'input' ? affixesOf(el) : '',
    labelOnly,
    mask: el.getAttribute('data-charset') || el.getAttribute('data-placeholder') || '',
    ...rowOf(el),
    ...(type === 'range' ? { slider: rangeInputFacts(el) } : {}),
    ...(tag === 'input' && /^(text|search)$/.test(type) && role !== 'combobox' && vis && looksLikeTagInput(el)
      ? { tags: true }
      : {}),
  };
}

const SUMMARIES =
  '.govuk-error-summary, .error-summary, [role="alert"], .alert-danger, .alert-error, .errors, .form-errors, [aria-live="assertive"]';

/** Page-level error messages; a summary link pointing at a control names it. */
function pageErrorsOf(all: Element[]): FrameScan['errors'] {
  const errors: FrameScan['errors'] = [];
  // A live region drawn for screen readers only (a date field announcing the digits typed) says nothing to a person.
  const summaries = all.filter((e) => e.matches(SUMMARIES) && visible(e) && !visuallyHidden(e));
  for (const s of summaries) {
    if (summaries.some((o) => o !== s && o.contains(s))) continue;
    const links = Array.from(s.querySelectorAll('a[href^="#"]'));
    if (links.length) {
      for (const a of links) {
        const id = decodeURIComponent((a.getAttribute('href') || '').slice(1));
        let t: Element | null = id ? document.getElementById(id) : null;
        if (!t && id) t = document.querySelector(`[name="${CSS.escape(id)}"]`);
        if (t && !t.matches('input,select,textarea')) t = t.querySelector(NATIVE_FIELDS);
        errors.push({ text: textOf(a), targetPid: t ? pidOf(t) : '' });
      }
    } else {
      const t = textOf(s);
      if (t) errors.push({ text: t.slice(0, 400), targetPid: '' });
    }
  }
  return errors;
}

/** Everything one frame offers. */
export default function scanPage(): FrameScan {
  // A calendar shown on the page is one field: its day cells, previous/next buttons and month/year
  // pickers are parts of it, never fields or buttons of their own.
  const calendarParts = new Set<Element>();
  const everything = allElements();
  const inline = inlineCalendars(everything, calendarParts);
  const all = calendarParts.size ? everything.filter((el) => !calendarParts.has(el)) : everything;
  // A row of one-character boxes is one field (segmentScan.ts): its boxes are no fields of their own.
  const claimedBox = new Set<Element>();
  const boxRows = scanCharacterBoxes(all, claimedBox);
  const controls: ScannedControl[] = [];
  const buttons: ScannedButton[] = [];
  for (const el of all) {
    const tag = el.tagName.toLowerCase();
    const role = (el.getAttribute('role') || '').toLowerCase();
    const isField = tag === 'input' || tag === 'select' || tag === 'textarea';
    const type = tag === 'input' ? (el.getAttribute('type') || 'text').toLowerCase() : tag;
    // Buttons that open a listbox or a tree or carry a checked state are form widgets (ariaScan), not
    // navigation. Toggle buttons in a group (filter chips, segmented buttons) are choices too.
    const widget =
      el.getAttribute('aria-haspopup') === 'listbox' ||
      el.getAttribute('aria-haspopup') === 'tree' ||
      /^(combobox|switch|checkbox|radio|option|slider)$/.test(role) ||
      pressedGroupOf(el) !== null ||
      isCalendarTrigger(el);
    if (widget && !isField) continue;
    const button = buttonOf(el, tag, type, role);
    if (button) {
      if (button !== 'skip') buttons.push(button);
      continue;
    }
    if (!isField || claimedBox.has(el)) continue;
    const control = nativeControlOf(el as NativeField, tag, type, role);
    if (control) controls.push(control);
  }
  // Sectioned date/time fields first: their segments are parts of one field, not fields of their own.
  const claimed = new Set<Element>();
  const segmented = [...scanSegmentedFields(all, claimed), ...boxRows];
  // Number boxes that are parts of a time field (hours, minutes) are no fields of their own.
  if (claimed.size) {
    const parts = new Set([...claimed].map(pidOf));
    controls.splice(0, controls.length, ...controls.filter((c) => !parts.has(c.pid)));
  }
  controls.push(
    ...scanAriaWidgets(all, claimed),
    ...scanSliders(all),
    ...segmented,
    ...scanCalendarFields(all, inline),
  );
  const headings = all
    .filter((e) => /^H[1-3]$/.test(e.tagName) && visible(e))
    .map(textOf)
    .filter(Boolean)
    .slice(0, 8);
  return {
    url: location.href,
    title: document.title,
    headings,
    controls,
    buttons,
    errors: pageErrorsOf(all),
    bodyText: (document.body ? document.body.innerText : '').slice(0, 20000),
  };
}
