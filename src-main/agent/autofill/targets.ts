import type { Frame } from 'playwright-core';

import type { FrameScan, ScannedControl, ScannedOption } from './frameScan.ts';
import { rangeFormatFromHint, type RangeFormat } from './rangeAndNumber.ts';
import { conceptTokens } from './textNorm.ts';

export type TargetKind =
  | 'text'
  | 'textarea'
  | 'date'
  | 'select'
  | 'radio'
  | 'checkbox'
  | 'checkboxGroup'
  | 'dateSplit'
  | 'file'
  | 'combobox'
  /** A select-only combobox: a button or div opening a listbox of option elements. */
  | 'listbox'
  /** A contenteditable element (or role=textbox on one). */
  | 'editable'
  /** A slider: `role=slider` or `<input type=range>`, moved by keys (slider.ts). */
  | 'slider'
  /** One text input holding a date range ("MM/DD/YYYY – MM/DD/YYYY"), see rangeAndNumber.ts. */
  | 'dateRange'
  /** A sectioned date/time field: one spinbutton per part in one group (segments.ts). */
  | 'segments'
  /** A row of one-character boxes taking one code (a PIN, a one-time code). */
  | 'boxes'
  /** A date field taking no typed date: a trigger opening a calendar grid, driven by its month and day names. */
  | 'calendar'
  /** A tag (chip) input: each value typed and turned into a chip by Enter (or a comma). */
  | 'tags';

/** A choice inside a radio group, checkbox group or select. */
export interface Choice {
  label: string;
  value: string;
  /** The control to click for radios / checkbox groups. */
  pid: string;
}

/** Something one form_data key can be placed into: a control, or a group acting as one. */
export interface Target {
  /** Stable within a page: the first control's pid. */
  id: string;
  frame: Frame;
  kind: TargetKind;
  controls: ScannedControl[];
  /** Human description, used in logs, questions and errors. */
  label: string;
  /** Texts describing the target with how much each counts for matching. */
  texts: Array<{ text: string; weight: number }>;
  /** Fieldset legends and group labels around it (for nested-key context). */
  context: string[];
  choices: Choice[];
  required: boolean;
  /** Holds a value already (non-empty text, a checked radio, a chosen option). */
  hasValue: boolean;
  errorText: string;
  /** For `dateSplit`: which control holds which part (a month-year date has no day). */
  dateParts?: DateSplitParts;
  /** For `dateRange`: the date format and the separator between the two dates. */
  rangeFormat?: RangeFormat;
  /** A 12-hour time box's AM/PM choice beside it (a `<select>` offering AM and PM), see `twelveHourPairs`. */
  meridiem?: ScannedControl;
}

export interface DateSplitParts {
  day?: ScannedControl;
  month: ScannedControl;
  year: ScannedControl;
}

const TEXTLIKE = new Set([
  'text',
  'email',
  'tel',
  'number',
  'url',
  'search',
  'password',
  '',
  'datetime-local',
  'month',
  'time',
  'week',
]);

const AUTOCOMPLETE_TEXT: Record<string, string> = {
  'given-name': 'first name',
  'family-name': 'last name',
  name: 'full name',
  email: 'email',
  tel: 'phone',
  'tel-national': 'phone',
  'postal-code': 'postcode',
  bday: 'date of birth',
  'address-line1': 'address line 1',
  'address-line2': 'address line 2',
  'address-level2': 'city',
  'address-level1': 'region',
  'country-name': 'country',
  country: 'country',
  organization: 'organisation',
  'street-address': 'street address',
  'additional-name': 'middle name',
  username: 'username',
  'new-password': 'password',
  'current-password': 'password',
};

function ownTexts(c: ScannedControl, legendWeight: number): Array<{ text: string; weight: number }> {
  const texts: Array<{ text: string; weight: number }> = [];
  const add = (text: string, weight: number): void => {
    if (text) texts.push({ text, weight });
  };
  add(c.name, 1);
  add(c.id, 1);
  for (const label of c.labels) add(label, 1);
  add(c.ariaLabel, 1);
  add(c.labelledBy, 0.95);
  add(c.placeholder, 0.85);
  add(c.title, 0.8);
  add(c.nearText, 0.8);
  const ac = AUTOCOMPLETE_TEXT[c.autocomplete.split(/\s+/).pop() ?? ''];
  if (ac) add(ac, 0.95);
  add(c.describedBy, 0.5);
  // "Cost" with a £ prefix is a cost in pounds; "Weight" with a kg suffix, a weight in kilograms.
  if (c.affixes) for (const label of [...c.labels, c.ariaLabel].filter(Boolean)) add(`${label} ${c.affixes}`, 1);
  if (c.legends[0]) add(c.legends[0], legendWeight);
  return texts;
}

function humanLabel(c: ScannedControl): string {
  return (
    c.labels[0] || c.ariaLabel || c.labelledBy || c.placeholder || c.nearText || c.title || c.name || c.id || c.tag
  );
}

function datePart(c: ScannedControl): 'day' | 'month' | 'year' | null {
  // A custom dropdown is named by aria-labelledby; its own text is the value it shows, never read here.
  const tokens = new Set(
    conceptTokens(
      [c.labels.join(' '), c.ariaLabel, c.aria ? c.labelledBy : '', c.name, c.aria ? '' : c.id, c.placeholder].join(
        ' ',
      ),
    ),
  );
  const parts: Array<'day' | 'month' | 'year'> = [];
  if (tokens.has('day') || tokens.has('dd')) parts.push('day');
  if (tokens.has('month') || tokens.has('mm')) parts.push('month');
  if (tokens.has('year') || tokens.has('yyyy') || tokens.has('yy')) parts.push('year');
  // A box naming two parts or more ("MM/DD/YYYY") takes a whole date (or a range), not one part of it.
  return parts.length === 1 ? (parts[0] ?? null) : null;
}

function groupLabelOf(first: ScannedControl): string {
  return first.legends[0] || first.nearText || first.name;
}

/** A native select's options a person can pick: enabled, without a leading empty-valued placeholder ("Choose…", "Vehicle type"). */
export function selectChoices(c: ScannedControl): ScannedOption[] {
  return c.options.filter((o, i) => !o.disabled && !(i === 0 && o.value === ''));
}

/** Turns the scanned controls of all frames into fillable targets (visible, enabled ones). */
export function buildTargets(frames: Array<{ frame: Frame; scan: FrameScan }>): Target[] {
  const targets: Target[] = [];
  for (const { frame, scan } of frames) {
    const usable = scan.controls.filter((c) => c.visible && !c.disabled);
    const used = new Set<string>();

    // Split dates: day, month and year controls sharing one group.
    const byGroup = new Map<string, ScannedControl[]>();
    for (const c of usable) {
      // Select-only comboboxes may be the parts too (month and year as two custom dropdowns).
      if (c.type === 'radio' || c.type === 'checkbox' || c.type === 'file' || (c.aria && c.type !== 'listbox'))
        continue;
      const list = byGroup.get(c.groupKey) ?? [];
      list.push(c);
      byGroup.set(c.groupKey, list);
    }
    for (const list of byGroup.values()) {
      const parts = {
        day: undefined as ScannedControl | undefined,
        month: undefined as ScannedControl | undefined,
        year: undefined as ScannedControl | undefined,
      };
      for (const c of list) {
        const part = datePart(c);
        if (part && !parts[part]) parts[part] = c;
      }
      // Day, month and year; or month and year alone (an expiry date, "when did you move in").
      if (parts.month && parts.year) {
        const { day, month, year } = parts;
        const controls = day ? [day, month, year] : [month, year];
        const first = controls[0] as ScannedControl;
        const stem = (text: string): string => text.replace(/[-_.[]?(day|dd|month|mm)\]?$/i, '');
        const label = first.legends[0] || first.nearText || stem(first.name);
        // The control's kind is part of what it means: a title "Month I moved in" names a month-year date.
        const kindWords = day ? 'date' : 'month year date';
        targets.push({
          id: first.pid,
          frame,
          kind: 'dateSplit',
          controls,
          label,
          texts: [
            { text: label, weight: 1 },
            { text: `${label} ${kindWords}`, weight: 0.95 },
            { text: stem(first.name), weight: 1 },
            { text: stem(first.id), weight: 1 },
            { text: first.describedBy, weight: 0.5 },
          ].filter((t) => t.text),
          context: first.legends,
          choices: [],
          required: controls.some((c) => c.required),
          hasValue: controls.every((c) => c.value !== ''),
          errorText: controls.map((c) => c.errorText).find(Boolean) ?? '',
          dateParts: { ...(day && { day }), month, year },
        });
        for (const c of controls) used.add(c.pid);
      }
    }

    // A 12-hour time box with its AM/PM select beside it: one time field.
    const pairs = twelveHourPairs(usable, used);
    // Radio groups and checkbox groups by name.
    const groups = new Map<string, ScannedControl[]>();
    for (const c of usable) {
      if (c.type !== 'radio' && c.type !== 'checkbox') continue;
      // Nameless native checkboxes in one labelled group are one group too (groupKey `checkgroup:…`, pageScan.ts).
      const key = `${c.type}|${c.formKey}|${c.aria ? `aria:${c.groupKey}` : c.name || (c.groupKey.startsWith('checkgroup:') ? c.groupKey : c.pid)}`;
      const list = groups.get(key) ?? [];
      list.push(c);
      groups.set(key, list);
    }
    for (const list of groups.values()) {
      const first = list[0] as ScannedControl;
      const choices = list.map((c) => ({
        label: c.labels[0] || c.ariaLabel || c.labelledBy || c.value,
        value: c.value,
        pid: c.pid,
      }));
      const single = first.type === 'checkbox' && list.length === 1;
      if (single) {
        targets.push({
          id: first.pid,
          frame,
          kind: 'checkbox',
          controls: list,
          label: humanLabel(first),
          texts: ownTexts(first, 0.6),
          context: first.legends,
          choices,
          required: first.required,
          hasValue: first.checked,
          errorText: first.errorText,
        });
      } else {
        const label = groupLabelOf(first);
        const texts = [
          { text: first.legends[0] ?? '', weight: 1 },
          { text: first.name.replace(/\[\]$/, ''), weight: 1 },
          { text: first.nearText, weight: 0.8 },
          { text: first.describedBy, weight: 0.5 },
        ].filter((t) => t.text);
        targets.push({
          id: first.pid,
          frame,
          kind: first.type === 'radio' ? 'radio' : 'checkboxGroup',
          controls: list,
          label,
          texts,
          context: first.legends,
          choices,
          required: list.some((c) => c.required),
          hasValue: list.some((c) => c.checked),
          errorText: list.map((c) => c.errorText).find(Boolean) ?? '',
        });
      }
      for (const c of list) used.add(c.pid);
    }

    // A number input beside a slider showing the same value is the slider's twin: one value, one target (the slider).
    const twins = new Set(usable.map((c) => c.slider?.twinPid ?? '').filter(Boolean));
    for (const c of usable) {
      if (used.has(c.pid) || twins.has(c.pid) || (c.readOnly && !c.hasListbox)) continue;
      let kind: TargetKind | null = null;
      if (c.slider) kind = 'slider';
      else if (c.segments) kind = c.readOnly ? null : 'segments';
      else if (c.boxes) kind = c.readOnly ? null : 'boxes';
      else if (c.calendar) kind = 'calendar';
      else if (c.aria)
        kind =
          c.type === 'listbox'
            ? c.readOnly
              ? null
              : 'listbox'
            : c.type === 'editable'
              ? c.readOnly
                ? null
                : 'editable'
              : null;
      // A select with no real option (a library's hidden mirror holding only its placeholder) takes no value.
      else if (c.tag === 'select') kind = selectChoices(c).length || c.value !== '' ? 'select' : null;
      else if (c.tag === 'textarea') kind = 'textarea';
      else if (c.type === 'file') kind = 'file';
      else if (c.type === 'date') kind = 'date';
      // A read-only combobox input cannot be typed into: it only opens its list (react-select unsearchable).
      else if (TEXTLIKE.has(c.type) || c.role === 'combobox')
        kind = c.hasListbox ? (c.readOnly ? 'listbox' : 'combobox') : c.tags ? 'tags' : 'text';
      if (!kind) continue;
      // A text input whose hint shows two dates ("MM/DD/YYYY – MM/DD/YYYY") holds a date range.
      const rangeFormat =
        kind === 'text' && !c.hasListbox
          ? rangeFormatFromHint([c.placeholder, c.describedBy, c.title, ...c.labels, c.hintText].join(' '))
          : null;
      if (rangeFormat) kind = 'dateRange';
      const meridiem = kind === 'text' ? pairs.get(c.pid) : undefined;
      // A sectioned field's kind is part of what it says: "Start" holding a date reads "Start date".
      const texts = ownTexts(c, 0.7);
      if (c.calendar && c.labelledBy) texts.push({ text: `${c.labelledBy} date`, weight: 0.95 });
      if (c.segments)
        for (const label of [...c.labels, c.ariaLabel, c.labelledBy].filter(Boolean))
          texts.push({ text: `${label} ${SEGMENT_WORDS[c.segments.kind]}`, weight: 0.95 });
      targets.push({
        ...(rangeFormat && { rangeFormat }),
        ...(meridiem && { meridiem }),
        id: c.pid,
        frame,
        kind,
        controls: meridiem ? [c, meridiem] : [c],
        label: humanLabel(c),
        texts,
        context: c.legends,
        choices: (c.tag === 'select' ? selectChoices(c) : c.options.filter((o) => !o.disabled)).map((o) => ({
          label: o.label,
          value: o.value,
          pid: c.pid,
        })),
        required: c.required,
        hasValue:
          c.tag === 'select' ? c.value !== '' && c.options.findIndex((o) => o.value === c.value) > 0 : c.value !== '',
        errorText: c.errorText,
      });
    }
  }
  return targets;
}

const AM = /^a\.?\s?m\.?$/i;
const PM = /^p\.?\s?m\.?$/i;
/** Placeholders, hints and patterns of a time box: "hh:mm", "h:mm", a pattern of hours and minutes. */
const TIME_HINT = /\bh{1,2}\s*[:.]\s*mm\b/i;

/**
 * 12-hour time boxes whose AM/PM part is a `<select>` beside them (docs/autofill.md, Time pickers): in
 * one group (the same `groupKey`), a select offering exactly AM and PM and one text box asking for a
 * time (an "hh:mm" placeholder or hint, or the word "time" in its label). The select is marked used:
 * it is part of the time field, never a field of its own. Returns text box pid → its AM/PM select.
 */
function twelveHourPairs(usable: ScannedControl[], used: Set<string>): Map<string, ScannedControl> {
  const out = new Map<string, ScannedControl>();
  for (const sel of usable) {
    if (sel.tag !== 'select' || sel.multiple || used.has(sel.pid)) continue;
    const labels = selectChoices(sel).map((o) => o.label.trim());
    if (labels.length !== 2 || !labels.some((l) => AM.test(l)) || !labels.some((l) => PM.test(l))) continue;
    const boxes = usable.filter(
      (c) =>
        c.groupKey === sel.groupKey &&
        c.tag === 'input' &&
        (c.type === 'text' || c.type === '') &&
        !c.hasListbox &&
        !used.has(c.pid) &&
        (TIME_HINT.test([c.placeholder, c.title, c.describedBy, c.hintText].join(' ')) ||
          conceptTokens([...c.labels, c.ariaLabel, c.labelledBy].join(' ')).includes('time')),
    );
    if (boxes.length !== 1) continue;
    out.set((boxes[0] as ScannedControl).pid, sel);
    used.add(sel.pid);
  }
  return out;
}

const SEGMENT_WORDS: Record<NonNullable<ScannedControl['segments']>['kind'], string> = {
  date: 'date',
  time: 'time',
  dateTime: 'date time',
  dateRange: 'dates date range',
};

/** A readable description of a target for logs and messages. */
export function describeTarget(target: Target): string {
  const c = target.controls[0] as ScannedControl;
  const kind =
    target.kind === 'text'
      ? c.datalist
        ? 'datalist'
        : c.type || 'text'
      : target.kind === 'listbox'
        ? 'select-aria'
        : target.kind === 'editable'
          ? c.role === 'textbox'
            ? 'textbox-aria'
            : 'contenteditable'
          : target.kind === 'slider'
            ? c.aria
              ? 'slider-aria'
              : 'range'
            : target.kind === 'dateRange'
              ? 'date-range'
              : target.kind === 'segments'
                ? `${c.segments?.kind ?? 'date'}-segments`
                : target.kind === 'calendar'
                  ? 'calendar'
                  : target.kind === 'boxes'
                    ? `${c.boxes?.length ?? 0}-boxes`
                    : target.kind === 'tags'
                      ? 'tags'
                      : c.aria
                        ? `${c.role === 'switch' ? 'switch' : target.kind}-aria`
                        : target.kind;
  return `'${target.label}' (${kind}${c.name ? ` name=${c.name}` : c.id ? ` #${c.id}` : ''})`;
}

/**
 * A one-line text box that may be a tag input drawn bare (no chip yet, no hint): a plain `text` or
 * `search` input with no suggestions of its own. Only a list tries it as one (fillTags, `bare`).
 */
export function mayTakeTags(target: Target): boolean {
  const c = target.controls[0];
  return (
    target.kind === 'text' &&
    target.controls.length === 1 &&
    !!c &&
    c.tag === 'input' &&
    /^(text|search|)$/.test(c.type) &&
    !c.datalist &&
    !target.meridiem
  );
}
