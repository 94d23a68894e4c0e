// Runs in the page, as part of pageScan.ts: date fields that take no typed date, only a calendar grid.
// A button opening a dialog or grid (`aria-haspopup=dialog|grid|true`) whose own name says it picks a
// date ("Choose date", "Calendar") or whose field label (the other elements its `aria-labelledby`
// names, the `role=group` around it) says it is a date is ONE date field: a ScannedControl of type
// `calendar` on the trigger, labelled by the field's label, never a button to press for moving on.
import { byIds, clean, ownGroupAncestors, textOf, visible } from './dom.ts';
import { rowOf, widgetControl } from './scanFields.ts';
import type { ScannedControl } from './scanTypes.ts';

const PICKS_DATE = /\b(calendar|(choose|select|pick|change)\s+(a\s+)?dates?)\b/i;
const TYPED = 'input:not([type=hidden]),textarea,select,[role=spinbutton],[role=combobox],[role=textbox]';
const SAYS_DATE = /\b(dates?|day|birthday|dob)\b/i;
/** A trigger whose label or name asks for several days ("Stay dates", "Date range", "Choose dates"): its calendar is expected to take a range (checked once it opens). */
const SAYS_RANGE = /\b(dates|date range|period)\b/i;

function isButton(el: Element): boolean {
  return el.tagName === 'BUTTON' || (el.getAttribute('role') || '').toLowerCase() === 'button';
}

/** What counts as another field beside a trigger: a field, a widget, another popup trigger. */
const OTHER_FIELDS =
  'input:not([type=hidden]),select,textarea,[role=combobox],[role=textbox],[role=spinbutton],[role=slider],[role=radio],[role=checkbox],[role=switch],[role=listbox],[role=grid],[aria-haspopup],[aria-expanded]';

/**
 * A label in the trigger's own field group that is tied to nothing else: the group is an ancestor
 * holding no other field (`ownGroupAncestors`), the innermost one holding a `<label>` or a fieldset's
 * `<legend>`; it must hold exactly one, before the trigger, labelling no element (`<label for>` naming an
 * input the page does not draw — a date picker drawn without its input —, or a label wrapping nothing).
 * Two labels there, or a label of another element, is no label: never a guess.
 */
function untiedLabelOf(el: Element): string {
  for (const group of ownGroupAncestors(el, { fields: OTHER_FIELDS, maxDepth: 4, acrossShadow: false })) {
    const labels = Array.from(group.querySelectorAll('label')).filter((l) => !l.contains(el));
    const legend = group.tagName === 'FIELDSET' ? Array.from(group.children).find((c) => c.tagName === 'LEGEND') : null;
    if (!labels.length && legend) return textOf(legend);
    if (!labels.length) continue;
    const label = labels[0] as HTMLLabelElement;
    if (labels.length > 1 || label.control) return '';
    const before = (label.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0;
    return before ? textOf(label) : '';
  }
  return '';
}

/**
 * The trigger's field label: what its aria-labelledby names besides itself, else its group's label,
 * else a `<label>` wrapping it (without the trigger's own text), else an untied label or legend of its
 * own field group (`untiedLabelOf`).
 */
function fieldLabelOf(el: Element): string {
  const ids = (el.getAttribute('aria-labelledby') || '').split(/\s+/).filter((id) => id && id !== el.id);
  const own = byIds(el, ids.join(' '));
  if (own) return own;
  const group = el.closest('[role=group]');
  const grouped = group
    ? clean(group.getAttribute('aria-label')) || byIds(group, group.getAttribute('aria-labelledby'))
    : '';
  if (grouped) return grouped;
  const wrap = el.closest('label');
  if (wrap) return clean(textOf(wrap).replace(textOf(el), ''));
  return untiedLabelOf(el);
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

/** Day cells whose names carry a year ("Friday, March 14, 2025"): a calendar's grid, not a data grid. */
function datedCells(grid: Element): number {
  return Array.from(grid.querySelectorAll('[role=gridcell],td')).filter((c) =>
    /\b\d{4}\b/.test(
      `${c.getAttribute('aria-label') || ''} ${c.querySelector('button,[role=button]')?.getAttribute('aria-label') || ''}`,
    ),
  ).length;
}

/** The calendar around a grid: the closest calendar region (`role=application`/`group`), else the closest ancestor holding a button besides its cells. */
function calendarBox(grid: Element): Element {
  const region = grid.closest('[role=application],[role=group]');
  if (region) return region;
  let box: Element = grid;
  for (let up = 0; up < 4 && box.parentElement && box.parentElement !== document.body; up++) {
    box = box.parentElement;
    if (Array.from(box.querySelectorAll('button,[role=button]')).some((b) => !grid.contains(b))) return box;
  }
  return grid;
}

/** An inline calendar's label: what its grid's (or its region's) `aria-labelledby` names besides itself, else its `aria-label`, without the month shown. */
function inlineLabelOf(grid: Element, box: Element): string {
  for (const el of [grid, box]) {
    const ids = (el.getAttribute('aria-labelledby') || '').split(/\s+/).filter((id) => id && id !== el.id);
    const named = byIds(el, ids.join(' '));
    if (named) return named;
  }
  const own = clean(grid.getAttribute('aria-label')) || clean(box.getAttribute('aria-label'));
  return clean(own.replace(/,?\s*\b[A-Z][a-z]+\.?\s+\d{4}\b.*$/, ''));
}

/**
 * Calendars shown on the page with no trigger: a visible `role=grid` whose day cells carry dated
 * names, outside any dialog or popup, not beside a box taking a typed date, with a label; grids sharing
 * one calendar region and one label (two months side by side) are one calendar. Each grid is
 * stamped `data-portico-inline-cal` (a trigger's popup calendar is never taken for it); the elements
 * of its calendar (day cells, previous/next buttons, month and year pickers) are parts of it, never
 * fields or buttons of their own (`parts`).
 */
export function inlineCalendars(all: Element[], parts: Set<Element>): Array<{ grid: Element; label: string }> {
  const out: Array<{ grid: Element; label: string }> = [];
  const boxes: Array<{ box: Element; label: string }> = [];
  for (const grid of all) {
    if ((grid.getAttribute('role') || '').toLowerCase() !== 'grid' || !visible(grid)) continue;
    if (grid.closest('[role=dialog],dialog,[aria-modal=true],[popover]') || datedCells(grid) < 7) continue;
    const box = calendarBox(grid);
    // A grid beside a box taking a typed date belongs to that field (an open date picker's popup).
    const field = box.parentElement;
    if (field && Array.from(field.querySelectorAll(TYPED)).some((t) => !box.contains(t))) continue;
    const label = inlineLabelOf(grid, box);
    if (!label) continue;
    grid.setAttribute('data-portico-inline-cal', '1');
    // Two months or more side by side: the grids of one calendar (one region, one label) are one field,
    // on its first grid; calendarGrid.ts reads them all.
    if (boxes.some((b) => b.box === box && b.label === label)) continue;
    boxes.push({ box, label });
    for (const el of Array.from(box.querySelectorAll('*'))) if (el !== grid) parts.add(el);
    out.push({ grid, label });
  }
  return out;
}

/** Every calendar-only date field among `all`, as controls; `inline` the calendars shown on the page. */
export function scanCalendarFields(
  all: Element[],
  inline: Array<{ grid: Element; label: string }> = [],
): ScannedControl[] {
  const out: ScannedControl[] = [];
  const fields = [
    ...all.filter(isCalendarTrigger).map((el) => ({ el, label: fieldLabelOf(el), inline: false })),
    ...inline.map((c) => ({ el: c.grid, label: c.label, inline: true })),
  ];
  for (const { el, label, inline: isInline } of fields) {
    const vis = visible(el);
    out.push({
      ...widgetControl(el, 'calendar', vis),
      ...rowOf(el),
      labelledBy: label,
      required:
        el.getAttribute('aria-required') === 'true' ||
        el.closest('[role=group]')?.getAttribute('aria-required') === 'true',
      disabled: el.getAttribute('aria-disabled') === 'true' || (el as HTMLButtonElement).disabled === true,
      calendar: {
        shown: isInline ? '' : clean(textOf(el)),
        inline: isInline,
        range: isInline
          ? el.getAttribute('aria-multiselectable') === 'true'
          : SAYS_RANGE.test(`${label} ${clean(el.getAttribute('aria-label'))} ${textOf(el)}`),
      },
    });
  }
  return out;
}
