// Runs in the page, as part of pageScan.ts: date fields that take no typed date, only a calendar grid.
// A button opening a dialog or grid (`aria-haspopup=dialog|grid|true`) whose own name says it picks a
// date ("Choose date", "Calendar") or whose field label (the other elements its `aria-labelledby`
// names, the `role=group` around it) says it is a date is ONE date field: a ScannedControl of type
// `calendar` on the trigger, labelled by the field's label, never a button to press for moving on.
import { byIds, clean, textOf, visible } from './dom.ts';
import { errorTextOf, formKeyOf, groupKeyOf, langOf, legendsOf, pidOf, rowOf } from './scanFields.ts';
import type { ScannedControl } from './scanTypes.ts';

const PICKS_DATE = /\b(calendar|(choose|select|pick|change)\s+(a\s+)?date)\b/i;
const TYPED = 'input:not([type=hidden]),textarea,select,[role=spinbutton],[role=combobox],[role=textbox]';
const SAYS_DATE = /\b(date|day|birthday|dob)\b/i;

function isButton(el: Element): boolean {
  return el.tagName === 'BUTTON' || (el.getAttribute('role') || '').toLowerCase() === 'button';
}

/** The trigger's field label: what its aria-labelledby names besides itself, else its group's label. */
function fieldLabelOf(el: Element): string {
  const ids = (el.getAttribute('aria-labelledby') || '').split(/\s+/).filter((id) => id && id !== el.id);
  const own = byIds(el, ids.join(' '));
  if (own) return own;
  const group = el.closest('[role=group]');
  if (!group) return '';
  return clean(group.getAttribute('aria-label')) || byIds(group, group.getAttribute('aria-labelledby'));
}

/** Is this element the trigger of a calendar-only date field? */
export function isCalendarTrigger(el: Element): boolean {
  if (!isButton(el) || el.closest('[role=grid]')) return false;
  const popup = (el.getAttribute('aria-haspopup') || '').toLowerCase();
  // A dialog trigger without aria-haspopup (React Aria's DialogTrigger sets only aria-expanded) counts too.
  if (!/^(dialog|grid|true)$/.test(popup) && !(popup === '' && el.hasAttribute('aria-expanded'))) return false;
  // A picker's button beside a box taking a typed date (an input, date segments) belongs to that field.
  const field = el.closest('[role=group]') ?? el.parentElement;
  if (field?.querySelector(TYPED)) return false;
  const label = fieldLabelOf(el);
  if (!label) return false;
  return PICKS_DATE.test(`${clean(el.getAttribute('aria-label'))} ${textOf(el)}`) || SAYS_DATE.test(label);
}

/** Every calendar-only date field among `all`, as controls. */
export function scanCalendarFields(all: Element[]): ScannedControl[] {
  const out: ScannedControl[] = [];
  for (const el of all) {
    if (!isCalendarTrigger(el)) continue;
    const label = fieldLabelOf(el);
    const vis = visible(el);
    out.push({
      pid: pidOf(el),
      tag: el.tagName.toLowerCase(),
      type: 'calendar',
      role: (el.getAttribute('role') || '').toLowerCase(),
      name: '',
      id: el.id || '',
      labels: [],
      ariaLabel: '',
      labelledBy: label,
      describedBy: byIds(el, el.getAttribute('aria-describedby')),
      placeholder: '',
      title: clean(el.getAttribute('title')),
      legends: legendsOf(el),
      nearText: '',
      autocomplete: '',
      ariaAutocomplete: '',
      required:
        el.getAttribute('aria-required') === 'true' ||
        el.closest('[role=group]')?.getAttribute('aria-required') === 'true',
      visible: vis,
      disabled: el.getAttribute('aria-disabled') === 'true' || (el as HTMLButtonElement).disabled === true,
      readOnly: false,
      value: '',
      checked: false,
      options: [],
      multiple: false,
      valid: el.getAttribute('aria-invalid') !== 'true',
      validationMessage: '',
      errorText: vis ? errorTextOf(el) : '',
      pattern: '',
      maxLength: -1,
      groupKey: groupKeyOf(el),
      formKey: formKeyOf(el),
      hasListbox: false,
      aria: true,
      hiddenPid: '',
      datalist: false,
      lang: langOf(el),
      hintText: '',
      affixes: '',
      labelOnly: false,
      mask: '',
      ...rowOf(el),
      calendar: { shown: clean(textOf(el)), inline: false },
    });
  }
  return out;
}
