// Runs in the page, as part of pageScan.ts: sectioned date and time fields. A date or time drawn as
// one `role=spinbutton` per part (month, day, year; hour, minute, AM/PM) inside one group labelled as
// the field (React Aria's DateField/TimeField, MUI X's sectioned fields) is ONE field: it becomes one
// ScannedControl of type `segments` carrying its segments (what each part is, by the segment's own
// accessible name, and its range), so the key lands on the field, never on one of its parts.
// Two runs of the same parts in one group (month/day/year twice) are a date range.
import { byIds, clean, closestAcross, elementById, labelTextsOf, parentAcross, textOf, visible } from './dom.ts';
import { formKeyOf, nearTextOf, pidOf, rowOf, widgetControl } from './scanFields.ts';
import type { ScannedControl, SegmentFacts, SegmentKind } from './scanTypes.ts';

// What a segment is, from its own accessible name ("month, ", "AM/PM, ", "hour, Start time"). The
// day period is tested before "day"; a name naming none of these (era, time zone) is no part we fill.
const KINDS: Array<[SegmentKind, RegExp]> = [
  ['dayPeriod', /\b(am\s*\/\s*pm|a\.m\.\s*\/\s*p\.m\.|day\s*period|meridiem)\b/i],
  ['year', /\byears?\b/i],
  ['month', /\bmonths?\b/i],
  ['day', /\bdays?\b/i],
  ['hour', /\bhours?\b/i],
  ['minute', /\bminutes?\b/i],
  ['second', /\bseconds?\b/i],
];

const num = (s: string | null): number | null => {
  const n = s === null || s.trim() === '' ? Number.NaN : Number(s);
  return Number.isFinite(n) ? n : null;
};

/** A segment's own name: aria-label, else the elements aria-labelledby names other than itself and the group's label. */
function segmentName(el: Element, group: Element): string {
  const own = clean(el.getAttribute('aria-label'));
  if (own) return own;
  const groupIds = new Set((group.getAttribute('aria-labelledby') || '').split(/\s+/));
  const ids = (el.getAttribute('aria-labelledby') || '')
    .split(/\s+/)
    .filter((id) => id && id !== el.id && !groupIds.has(id));
  return byIds(el, ids.join(' ')) || clean(el.getAttribute('title'));
}

/** An input segment's own name: as any segment's, else its `<label for>`. */
function inputSegmentName(el: Element): string {
  return (
    clean(el.getAttribute('aria-label')) ||
    byIds(el, el.getAttribute('aria-labelledby')) ||
    labelTextsOf(el, true).filter(Boolean).join(' ') ||
    clean(el.getAttribute('title'))
  );
}

function kindOf(name: string): SegmentKind | null {
  for (const [kind, re] of KINDS) if (re.test(name)) return kind;
  return null;
}

/** The element holding a segment's field: the closest `role=group` around it, else its parent when that holds another segment. */
function containerOf(el: Element): Element | null {
  const group = closestAcross(el, '[role=group]');
  if (group) return group;
  const parent = parentAcross(el);
  return parent && parent.nodeType === Node.ELEMENT_NODE ? (parent as Element) : null;
}

const DATE_KINDS: SegmentKind[] = ['year', 'month', 'day'];
const TIME_KINDS: SegmentKind[] = ['hour', 'minute', 'second', 'dayPeriod'];

/** A dropdown (a native select, a combobox, a button opening a listbox) that is a time field's AM/PM part. */
function periodDropdown(el: Element): 'select' | 'listbox' | null {
  const select = el.tagName === 'SELECT' ? (el as HTMLSelectElement) : null;
  const listbox =
    (el.getAttribute('role') || '').toLowerCase() === 'combobox' || el.getAttribute('aria-haspopup') === 'listbox';
  if (!select && !listbox) return null;
  // Its name, hidden label text included (aria-labelledby may name a hidden "AM/PM" label).
  const hiddenToo = (el.getAttribute('aria-labelledby') || '')
    .split(/\s+/)
    .map((id) => (id ? clean(elementById(el, id)?.textContent) : ''))
    .join(' ');
  if (kindOf(`${inputSegmentName(el)} ${hiddenToo}`) === 'dayPeriod') return select ? 'select' : 'listbox';
  // A select offering exactly AM and PM (with or without an empty first option).
  const options = select ? Array.from(select.options).map((o) => clean(o.text).toLowerCase().replace(/\./g, '')) : [];
  const real = options.filter(Boolean);
  return select && real.length === 2 && real.includes('am') && real.includes('pm') ? 'select' : null;
}

/** The text a dropdown shows as its choice: a select's chosen option, else its text without what is hidden from assistive technology. */
function choiceText(el: Element): string {
  if (el.tagName === 'SELECT') return clean((el as HTMLSelectElement).selectedOptions[0]?.text);
  let out = '';
  const walk = (n: Node): void => {
    if (n.nodeType === Node.TEXT_NODE) out += `${n.nodeValue} `;
    else if (n.nodeType === Node.ELEMENT_NODE && (n as Element).getAttribute('aria-hidden') !== 'true')
      for (const c of Array.from(n.childNodes)) walk(c);
  };
  walk(el);
  return clean(out);
}

/** The facts of one segment, read now (the filler reads them again after typing). */
function factsOf(el: Element, kind: SegmentKind, part: number): SegmentFacts {
  const choice = periodDropdown(el);
  if (choice)
    return { pid: pidOf(el), kind, part, min: null, max: null, now: null, text: choiceText(el), valueText: '', choice };
  if (el.tagName === 'INPUT') {
    // A number input is a spinbutton too: its range and value are its own attributes and value.
    const input = el as HTMLInputElement;
    return {
      pid: pidOf(el),
      kind,
      part,
      min: num(input.getAttribute('min') ?? el.getAttribute('aria-valuemin')),
      max: num(input.getAttribute('max') ?? el.getAttribute('aria-valuemax')),
      now: num(input.value),
      text: clean(input.value),
      valueText: '',
      input: true,
    };
  }
  return {
    pid: pidOf(el),
    kind,
    part,
    min: num(el.getAttribute('aria-valuemin')),
    max: num(el.getAttribute('aria-valuemax')),
    now: num(el.getAttribute('aria-valuenow')),
    text: clean(textOf(el).replace(/[\u2066-\u2069\u200e\u200f]/g, '')),
    valueText: clean(el.getAttribute('aria-valuetext')),
  };
}

/**
 * Every sectioned date/time field among `all`, as controls; `claimed` receives the segment
 * elements, which are then no fields of their own (not contenteditable text boxes).
 */
export function scanSegmentedFields(all: Element[], claimed: Set<Element>): ScannedControl[] {
  const groups = new Map<Element, Element[]>();
  for (const el of all) {
    const spin = (el.getAttribute('role') || '').toLowerCase() === 'spinbutton';
    // Inputs count when they are spinbuttons (type=number, or the role) named as time parts: hours and
    // minutes boxes (Blueprint's TimePicker). Date parts in inputs stay split dates (targets.ts).
    if (el.tagName === 'INPUT') {
      const type = (el.getAttribute('type') || 'text').toLowerCase();
      if (!(type === 'number' || (spin && /^(text|tel|)$/.test(type)))) continue;
      const kind = kindOf(inputSegmentName(el));
      if (!kind || !TIME_KINDS.includes(kind)) continue;
    } else if (!spin && !periodDropdown(el)) continue;
    const container = containerOf(el);
    if (!container) continue;
    groups.set(container, [...(groups.get(container) ?? []), el]);
  }
  const out: ScannedControl[] = [];
  for (const [group, found] of groups) {
    // An AM/PM dropdown is a part only beside hour and minute boxes.
    const boxKinds = found.filter((el) => el.tagName === 'INPUT').map((el) => kindOf(inputSegmentName(el)));
    const elements =
      boxKinds.includes('hour') && boxKinds.includes('minute') ? found : found.filter((el) => !periodDropdown(el));
    if (elements.length < 2) continue;
    const kinds = elements.map((el) =>
      periodDropdown(el) ? 'dayPeriod' : kindOf(el.tagName === 'INPUT' ? inputSegmentName(el) : segmentName(el, group)),
    );
    if (kinds.some((k) => k === null)) continue;
    // Inputs make a time field only: every part of the group a time part.
    if (elements.some((el) => el.tagName === 'INPUT') && kinds.some((k) => !TIME_KINDS.includes(k as SegmentKind)))
      continue;
    // A kind seen again starts the second half of a range ("Start date – End date" in one group).
    const segments: SegmentFacts[] = [];
    let part = 0;
    let seen = new Set<SegmentKind>();
    for (const [i, el] of elements.entries()) {
      const kind = kinds[i] as SegmentKind;
      if (seen.has(kind)) {
        part += 1;
        seen = new Set();
      }
      seen.add(kind);
      segments.push(factsOf(el, kind, part));
    }
    if (part > 1) continue;
    const partKinds = (p: number): string =>
      segments
        .filter((s) => s.part === p)
        .map((s) => s.kind)
        .sort()
        .join(',');
    if (part === 1 && partKinds(0) !== partKinds(1)) continue;
    const hasDate = segments.some((s) => DATE_KINDS.includes(s.kind));
    const hasTime = segments.some((s) => TIME_KINDS.includes(s.kind));
    // A range of times, or of date-times, is not a pattern the filler knows: left alone.
    if (part === 1 && hasTime) continue;
    for (const el of elements) claimed.add(el);
    const ariaLabel = clean(group.getAttribute('aria-label'));
    const labelledBy = byIds(group, group.getAttribute('aria-labelledby'));
    const labels = labelTextsOf(group, false).filter(Boolean);
    const vis = elements.some(visible);
    const empty = segments.some((s) => s.now === null);
    const inputs = elements.filter((el) => el.tagName === 'INPUT') as HTMLInputElement[];
    out.push({
      ...widgetControl(group, 'segments', vis),
      ...rowOf(group),
      labels,
      ariaLabel,
      labelledBy,
      nearText: labels.length || ariaLabel || labelledBy ? '' : nearTextOf(group),
      required:
        group.getAttribute('aria-required') === 'true' ||
        elements.some((el) => el.getAttribute('aria-required') === 'true') ||
        inputs.some((el) => el.required),
      disabled:
        group.getAttribute('aria-disabled') === 'true' ||
        elements.every(
          (el) => el.getAttribute('aria-disabled') === 'true' || (el as HTMLInputElement).disabled === true,
        ),
      readOnly: elements.every(
        (el) => el.getAttribute('aria-readonly') === 'true' || (el as HTMLInputElement).readOnly === true,
      ),
      value: empty
        ? ''
        : inputs.length
          ? segments
              .filter((s) => !s.choice)
              .map((s) => s.text)
              .join(':')
          : clean(textOf(group).replace(/[\u2066-\u2069\u200e\u200f]/g, '')),
      valid:
        group.getAttribute('aria-invalid') !== 'true' &&
        elements.every((el) => el.getAttribute('aria-invalid') !== 'true'),
      segments: {
        kind: part === 1 ? 'dateRange' : hasDate && hasTime ? 'dateTime' : hasDate ? 'date' : 'time',
        list: segments,
      },
    });
  }
  return out;
}

// One character per box: a code typed into a row of single-character inputs (a PIN or one-time code:
// Chakra/Ark's PinInput, most OTP widgets) is ONE field too. Recognised when a container holds three
// or more text inputs and nothing else to fill, each taking one character (maxlength=1) or named as
// its place in the row ("pin code 2 of 6"), labelled as a whole by the container.
const PLACE = /\b(\d+)\s+of\s+(\d+)\b/i;

/** Every row of one-character boxes among `all`, as one control each; `claimed` receives the boxes. */
export function scanCharacterBoxes(all: Element[], claimed: Set<Element>): ScannedControl[] {
  const rows = new Map<Element, HTMLInputElement[]>();
  for (const el of all) {
    if (el.tagName !== 'INPUT') continue;
    const input = el as HTMLInputElement;
    if (!/^(text|tel|number|password|)$/.test((input.getAttribute('type') || '').toLowerCase())) continue;
    const place = PLACE.exec(input.getAttribute('aria-label') || '');
    if (input.maxLength !== 1 && !place) continue;
    const container = closestAcross(input, '[role=group]') || input.parentElement;
    if (container) rows.set(container, [...(rows.get(container) ?? []), input]);
  }
  const out: ScannedControl[] = [];
  for (const [group, boxes] of rows) {
    if (boxes.length < 3) continue;
    // Nothing else to fill in the container, and every box one place of the same row.
    const fields = Array.from(
      group.querySelectorAll(
        'input:not([type=hidden]):not([aria-hidden=true]),select,textarea,[role=combobox],[contenteditable]',
      ),
    );
    if (fields.length !== boxes.length) continue;
    const places = boxes.map((b) => PLACE.exec(b.getAttribute('aria-label') || ''));
    const byPlace = places.every((p, i) => p && Number(p[1]) === i + 1 && Number(p[2]) === boxes.length);
    if (!byPlace && !boxes.every((b) => b.maxLength === 1)) continue;
    for (const b of boxes) claimed.add(b);
    const first = boxes[0] as HTMLInputElement;
    const ariaLabel = clean(group.getAttribute('aria-label'));
    const labelledBy = byIds(group, group.getAttribute('aria-labelledby'));
    const labels = labelTextsOf(group, false).filter(Boolean);
    const vis = boxes.some(visible);
    out.push({
      ...widgetControl(group, 'boxes', vis),
      ...rowOf(group),
      labels,
      ariaLabel,
      labelledBy,
      nearText: labels.length || ariaLabel || labelledBy ? '' : nearTextOf(group),
      autocomplete: (first.getAttribute('autocomplete') || '').toLowerCase(),
      required: boxes.some((b) => b.required || b.getAttribute('aria-required') === 'true'),
      disabled: boxes.every((b) => b.disabled),
      readOnly: boxes.every((b) => b.readOnly),
      value: boxes.every((b) => b.value !== '') ? boxes.map((b) => b.value).join('') : '',
      valid: boxes.every((b) => b.getAttribute('aria-invalid') !== 'true'),
      maxLength: boxes.length,
      formKey: formKeyOf(first),
      boxes: boxes.map((b) => pidOf(b)),
    });
  }
  return out;
}
