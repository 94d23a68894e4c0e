// What the in-page scan (pageScan.ts here) returns to the engine: plain JSON, shared by both sides.

/** One option of a `<select>` (or a listbox). */
export interface ScannedOption {
  label: string;
  value: string;
  disabled: boolean;
}

/** A form control as the in-page scan sees it; `pid` is a marker attribute stamped on the element. */
export interface ScannedControl {
  pid: string;
  tag: string;
  type: string;
  role: string;
  name: string;
  id: string;
  /** `<label for>` and wrapping labels. */
  labels: string[];
  ariaLabel: string;
  labelledBy: string;
  describedBy: string;
  placeholder: string;
  title: string;
  /** Ancestor fieldset legends / group labels, innermost first. */
  legends: string[];
  /** Text just before the control (previous table cell, preceding sibling text). */
  nearText: string;
  autocomplete: string;
  ariaAutocomplete: string;
  required: boolean;
  visible: boolean;
  disabled: boolean;
  readOnly: boolean;
  value: string;
  checked: boolean;
  options: ScannedOption[];
  multiple: boolean;
  valid: boolean;
  validationMessage: string;
  errorText: string;
  pattern: string;
  maxLength: number;
  /** Id of the closest container (fieldset / role=group / parent) used to group split dates. */
  groupKey: string;
  formKey: string;
  hasListbox: boolean;
  /** A widget built from ARIA roles or contenteditable rather than a native form control. */
  aria: boolean;
  /** The hidden input an ARIA widget keeps its value in (what the site receives), when it has one. */
  hiddenPid: string;
  /** `<input list>`: `options` are the datalist's suggestions. */
  datalist: boolean;
  /** The language the control sits in (closest `lang` attribute). */
  lang: string;
  /** Text of the control's own group (label, hint, example), for format hints not tied by aria. */
  hintText: string;
  /** Prefix and suffix texts drawn beside an input ("£", "kg", "per hour"). */
  affixes: string;
  /** A radio, checkbox or upload drawn by its label while the input itself sits off-screen or under it: click the label. */
  labelOnly: boolean;
  /** The shape a masked input wants: `data-charset` ("A#A #A#") or `data-placeholder` ("___ __ ____"), when the page gives one. */
  mask: string;
  /**
   * A repeated row the control sits in (field arrays: "Attendee 1", "Attendee 2"): `row` marks the row,
   * `rowSet` the container of its sibling rows, `rowIndex` its position among them. Absent when the
   * control is in no such row.
   */
  row?: string;
  rowSet?: string;
  rowIndex?: number;
  /** Set for sliders (`role=slider`, `<input type=range>`). */
  slider?: SliderFacts;
  /** Set for sectioned date/time fields (one `role=spinbutton` per part inside one group), see segmentScan.ts. */
  segments?: SegmentedField;
  /** A tag (chip) input: chips with remove buttons beside the box, or a hint to press Enter after each (tagScan.ts). */
  tags?: boolean;
  /** Set for a row of one-character boxes taking one code (a PIN, a one-time code): the boxes' pids in order, see segmentScan.ts. */
  boxes?: string[];
  /** Set for a date field taking no typed date, only a calendar grid (a trigger opening a date picker dialog), see calendarScan.ts. */
  calendar?: CalendarField;
}

/** A calendar-only date field: what its trigger (or inline calendar) shows now. */
export interface CalendarField {
  /** The trigger's own text ("Choose date", "March 14, 2025"). */
  shown: string;
  /** The calendar is shown inline (no trigger to open it): the control is its grid. */
  inline: boolean;
  /**
   * The field takes a range: two clicks, start then end. An inline grid says so (`aria-multiselectable=true`);
   * a trigger's calendar is not there before it opens, so its label says so ("Stay dates", "Date range") and
   * the grid it opens is checked before anything is clicked.
   */
  range: boolean;
}

/** A month or year picker inside a calendar (calendarGrid.ts): a native select, or a button opening a listbox. */
export interface CalendarPicker {
  kind: 'select' | 'listbox';
  /** A native select's option texts, in order (a listbox's options show only once it is open). */
  options: string[];
  /** What it shows now ("July", "1986"). */
  shown: string;
}

/** What an open calendar grid shows (calendarGrid.ts). */
export interface CalendarFacts {
  /** The heading or caption naming the month shown ("March 2025"). */
  heading: string;
  /** Day cells with a name, in order; `mark` is their `data-portico-cal` stamp. */
  cells: Array<{ mark: string; name: string; disabled: boolean; hidden: boolean; selected: boolean; grid: number }>;
  /** Each grid's accessible name, in order ("Stay dates, April 2027"): one grid per month shown. */
  months: string[];
  /** A grid takes several days (`aria-multiselectable`): a range calendar. */
  range: boolean;
  /** A usable previous / next button is there (stamped "prev" / "next"). */
  prev: boolean;
  next: boolean;
  /** Month and year pickers inside the calendar (stamped "month" / "year"), or null. */
  month: CalendarPicker | null;
  year: CalendarPicker | null;
  /** Names of the buttons switching the calendar to a month or year view, in order (stamped "v0", "v1", …). */
  views: string[];
}

/** A part of a sectioned date or time field. */
export type SegmentKind = 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second' | 'dayPeriod';

/** One `role=spinbutton` segment of a sectioned field, as read when scanned. */
export interface SegmentFacts {
  pid: string;
  kind: SegmentKind;
  /** 0, or 1 for the end date of a date range held in one group. */
  part: number;
  /** aria-valuemin / aria-valuemax / aria-valuenow (null when absent: an empty segment has no aria-valuenow). */
  min: number | null;
  max: number | null;
  now: number | null;
  /** What the segment shows ("07", "PM", "mm" while empty) and its aria-valuetext. */
  text: string;
  valueText: string;
  /** The segment is an input (a number box): typed over after selecting what it holds, read by its value. */
  input?: boolean;
  /** An AM/PM part that is a dropdown beside hour and minute boxes: a native select, or a button opening a listbox. */
  choice?: 'select' | 'listbox';
}

/** A sectioned field: what it holds, and its segments in the order they are drawn. */
export interface SegmentedField {
  kind: 'date' | 'time' | 'dateTime' | 'dateRange';
  list: SegmentFacts[];
}

/** What a slider (`role=slider` or `<input type=range>`) says about its range. */
/** How sliderSettled.ts waits: read aria-valuenow (else the input's value), unchanged for `frames` animation frames, at most `maxMs`. */
export interface SliderSettledArgs {
  aria: boolean;
  frames: number;
  maxMs: number;
}

/** sliderSettledAt.ts: sliderSettled on the slider marked `pid`. */
export interface SliderSettledAtArgs extends SliderSettledArgs {
  pid: string;
  /** Focus the slider first (what `locator.focus` does), in the same call: its start read then follows the focus. */
  focus?: boolean;
}

/** clickSettled.ts: `start` (just before a click) begins watching; else it waits for the page to settle. */
export interface ClickSettledArgs {
  start: boolean;
  /** No change within this long after the click: the click changed nothing on the page. */
  firstMs: number;
  /** After a change: the page must hold still this long. */
  quietMs: number;
  /** At most this long after the click. */
  maxMs: number;
  /** A change that drew new controls ends the wait once the page held still two frames, without `quietMs`. */
  controlsEnd?: boolean;
  /**
   * A pattern (case-insensitive) of text saying a submission went through: a change that drew it ends the wait
   * once the page held still two frames, without `quietMs`, and the watch goes on for a `tail` call (also when
   * `quietMs` passed before the two frames did and the confirmation shows).
   */
  confirmed?: string;
  /** The watch goes on after its answer, for a later call with `answered`. */
  keep?: boolean;
  /** The URLs of the click's requests, answered: the kept watch counts changes from their arrival in the page. */
  answered?: string[];
  /**
   * After an answer that ended on `confirmed`: waits until the page has held still `quietMs` (two frames) since
   * its last change (at most `maxMs`), and says whether it changed after that answer.
   */
  tail?: boolean;
}

/** What clickSettled.ts saw: whether the click reached the watch, whether the page changed, and whether it then held still. */
export interface ClickSettled {
  clicked: boolean;
  changed: boolean;
  quiet: boolean;
  /** It ended on new controls drawn (`controlsEnd`), before `quietMs`. */
  controls: boolean;
  /** It ended with a confirmation drawn (`confirmed`; before `quietMs`, or once it passed): a `tail` call says whether the page changed after. */
  confirmed: boolean;
  /** Milliseconds from the click (or from `settle`, when the watch saw no click) to the answer. */
  ms: number;
}

/** What sliderSettled.ts saw: the value held, whether it held still, and every value seen meanwhile. */
export interface SliderSettled {
  now: number;
  stable: boolean;
  seen: number[];
}

export interface SliderFacts {
  min: number;
  max: number;
  /** The step between values; 0 when the page does not say (ARIA has no step attribute). */
  step: number;
  now: number;
  /** aria-valuetext, when the slider shows its value as text ("$40", "4 visits"). */
  valueText: string;
  /** The number input beside the slider showing the same value (one value, one target), or ''. */
  twinPid: string;
}

/** A clickable that may advance the form. */
export interface ScannedButton {
  pid: string;
  text: string;
  tag: string;
  type: string;
  visible: boolean;
  disabled: boolean;
  formKey: string;
  primary: boolean;
}

/** Everything one frame offers. */
export interface FrameScan {
  url: string;
  title: string;
  headings: string[];
  controls: ScannedControl[];
  buttons: ScannedButton[];
  /** Page-level error messages (error summaries, alerts); `targetPid` when a summary link points at a control. */
  errors: Array<{ text: string; targetPid: string }>;
  bodyText: string;
}

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

/** One interactive element as the model agent sees it (modelScan.ts). */
export interface PageElement extends ElementDescriptor {
  index: number;
  value: string;
  checked: boolean | null;
  options: string[];
}

/** What the model agent's scan (modelScan.ts) found in one frame. */
export interface ModelFrameScan {
  url: string;
  title: string;
  elements: PageElement[];
  text: string;
}

/** The model agent's scan: tag elements with `refAttr`, numbering them from `start`. */
export interface ModelScanArgs {
  refAttr: string;
  start: number;
}

/** What the login scan (loginScan.ts) found in one frame; elements are tagged `data-portico-login="<role>"`. */
export interface LoginScan {
  username: boolean;
  password: boolean;
  /** One field for the whole code, or N single-character boxes. */
  otpBoxes: number;
  submit: boolean;
}

/** The page facts (pageFacts.ts) read after the last step. */
export interface RawPageFacts {
  url: string;
  title: string;
  confirmation: string;
  /** A confirmation panel was found (it beats a plain heading). */
  panel: boolean;
  panelRef: string;
  pairs: Array<{ label: string; value: string }>;
  text: string;
}

export interface FindListboxArgs {
  token: string;
  /** Only note the lists open now (before the click), so a new one can be told apart. */
  mark: boolean;
}

/** The recording mask (recordingMask.ts): `css` adopted under the window slot `key` while `on`. */
export interface RecordingMaskArgs {
  key: string;
  css: string;
  on: boolean;
}

/** What the live-view page (liveView.ts) reads from its `#config` JSON. */
export interface LiveViewConfig {
  title: string;
  framesUrl: string;
  inputUrl: string;
  interactive: boolean;
}

/** Where a document is (frameLocation.ts). */
export interface FrameLocation {
  href: string;
  origin: string;
  /** Its frame is the top one. */
  top: boolean;
}

/** A filled control read back (controlState.ts): its name and id, its value, and for a choice what is selected. */
export interface ControlState {
  name: string;
  id: string;
  value: string;
  checked: boolean;
  selected: string[];
}

/** What each read of controlRead.ts answers (the entry of the same name, run on the control). */
export interface ControlReads {
  readAndLeave: string;
  /** readAndLeave, then the control's state as left (the submission check's read, in the same round trip); null when not read. */
  readAndLeaveState: { shown: string; state: ControlState | null };
  controlState: ControlState;
  selectedLabel: string;
  segmentReading: SegmentReadingRaw;
  pointerTarget: 'self' | 'label' | 'hidden' | 'other';
  ariaCheckedState: boolean;
  shownValue: string;
  tagChips: string[];
  /** A tag box as a tag is waited for: its chips, the text left in it (what `inputValue` reads) and whether it holds the focus. */
  tagBox: { chips: string[]; text: string; focused: boolean };
  findListbox: boolean;
  enterGuard: number;
}

export interface ControlReadArgs {
  /** The control's `data-portico-id`. */
  pid: string;
  read: keyof ControlReads;
  /** findListbox's arguments (the read `findListbox` only). */
  listbox?: FindListboxArgs;
  /** enterGuard's mode (the read `enterGuard` only). */
  guard?: 'on' | 'off';
}

/** How many elements carry the id, and the read's answer when exactly one does. */
export interface ControlRead {
  found: number;
  value?: ControlReads[keyof ControlReads];
}

/** An option as an action chooses it (nativeOptions.ts, optionNames.ts): its name and its value. */
export interface OptionLabel {
  label: string;
  value: string;
}

/** Where an action scrolls the page (scrollPage.ts). */
export type ScrollDirection = 'up' | 'down' | 'top' | 'bottom';

/** What a person can perceive of one candidate (perceivable.ts): 0 not a target (hidden to them), 1 a target, 2 a target but covered at its centre. */
export type Perceived = 0 | 1 | 2;

/** What `matchRows` is asked: the key a row is named by, and optionally the column whose cell is wanted. */
export interface MatchRowsArgs {
  key: string;
  column?: string;
}

/** How one row matched a key (matchRows.ts), and (when a column was asked for) what its cell under that header holds. */
export interface RowMatch {
  index: number;
  /** 2: a cell reads the key; 1: the key is the cell's column header's word(s) and the cell ("order 1042" for 1042 under "Order"). */
  level: 1 | 2;
  cell?: { value: string } | { missing: true } | { ambiguous: number };
}

/** The value a person reads next to a label (pairedValue.ts); `ambiguous`: a column header heads that many rows. */
export type PairedValue = { value: string } | { ambiguous: number } | null;

/**
 * What an operation needs to know of its element, read in the same call that found it (a replay then
 * costs one call into each frame searched): whether a click toggles a checkbox or radio, whether the
 * input is drawn by its label, whether it is a native select and its options, and what a read returns.
 */
export interface TargetFacts {
  toggle?: boolean | null;
  drawnByLabel?: boolean;
  native?: boolean;
  options?: Array<{ label: string; value: string }>;
  read?: { value: string } | { ambiguous: number } | { text: string | null };
}

/** What `probe` is asked: how the candidates were found, the stored selector and role, and the operation. */
export interface ProbeArgs {
  textOnly: boolean;
  selector: string;
  role: string;
  op: string;
}

/** One probe of a stored target's candidates in one frame (or row): see probe.ts. */
export interface Probe {
  seen: Perceived[];
  /** The candidate a person would mean (the only perceivable one, or the only uncovered one), when there is one. */
  pick?: number;
  /** The stored fallback selector matches that element alone in its document (a cheap locator for the operation). */
  bySelector?: boolean;
  /** The element's role is, without doubt, the stored one (found by text: a plain dt is a term). */
  roleSame?: boolean;
  facts?: TargetFacts;
  /** The document's time origin (one document from the next at the same address). */
  doc?: number;
}

/** One segment of a sectioned field as read now (segmentReading.ts). */
export interface SegmentReadingRaw {
  text: string;
  now: number | null;
  valueText: string;
}

/** What `markFilterBox` is given: the mark for the filter box and the list's trigger (an element on the page's side). */
export interface FilterBoxArgs<E = unknown> {
  token: string;
  trigger: E | null;
}

/** One item of a tree select as read by treeNodes.ts: its name, and the names of the items it sits under (outermost first). */
export interface TreeNode {
  label: string;
  value: string;
  ancestors: string[];
}
