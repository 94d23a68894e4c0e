// The scripts that run inside web pages, as typed functions for Playwright's `evaluate`. Their code
// is written as TypeScript next to this file and compiled at build time into self-contained
// sources (generated/scripts.ts, by scripts/build-injected.mjs): no transpiler helper or import can
// leak into what the page runs. This file is the engine's side: it names no DOM type (the engine is
// compiled without the DOM library); signatures.ts says how each is called, checkSignatures.ts
// proves the entries fit.
import {
  calendarGridSource,
  calendarOpenSource,
  segmentReadingSource,
  selectedLabelSource,
  hasFocusSource,
  twoFramesSource,
  markFocusedSource,
  takeMarkedSource,
  ariaCheckedStateSource,
  markFilterBoxSource,
  markListsBeforeSource,
  framesDrawnSource,
  markCascadeListSource,
  cascadeLabelsSource,
  nextTreeItemSource,
  markTriedSource,
  treeNodesSource,
  listTakesManySource,
  optionsCheckableSource,
  optionStatesSource,
  perceivableSource,
  matchRowsSource,
  pairedValueSource,
  probeSource,
  controlNamesSource,
  drawnByLabelSource,
  toggleByLabelSource,
  clickToggleSource,
  isNativeSelectSource,
  nativeOptionsSource,
  optionNamesSource,
  elementTextSource,
  bodyTextSource,
  resourceStartsSource,
  scrollPageSource,
  frameLocationSource,
  controlStateSource,
  controlReadSource,
  describeElementsSource,
  enterGuardSource,
  findListboxSource,
  liveViewSource,
  liveViewStyle,
  loginScanSource,
  markFieldSource,
  modelScanSource,
  pageFactsSource,
  pageTextSource,
  readAndLeaveSource,
  readOptionsSource,
  recordingMaskSource,
  secretFieldsShownSource,
  scanPageSource,
  shownValueSource,
  sliderSettledSource,
  sliderSettledAtSource,
  clickSettledSource,
  pointerTargetSource,
  tagChipsSource,
  uniqueSelectorSource,
} from './generated/scripts.ts';
import type { ClickSettledArgs, RecordingMaskArgs } from './scanTypes.ts';
import type { Signatures } from './signatures.ts';

/** A function whose text is exactly `source` (Playwright sends a function to the page by its text). */
function inPage<K extends keyof Signatures>(source: string): Signatures[K] {
  return new Function(`return (${source});`)() as Signatures[K];
}

export const scanPage = inPage<'scanPage'>(scanPageSource);
export const findListbox = inPage<'findListbox'>(findListboxSource);
export const readOptions = inPage<'readOptions'>(readOptionsSource);
export const shownValue = inPage<'shownValue'>(shownValueSource);
export const pageFacts = inPage<'pageFacts'>(pageFactsSource);
export const readAndLeave = inPage<'readAndLeave'>(readAndLeaveSource);
export const uniqueSelector = inPage<'uniqueSelector'>(uniqueSelectorSource);
export const loginScan = inPage<'loginScan'>(loginScanSource);
export const calendarOpen = inPage<'calendarOpen'>(calendarOpenSource);
export const calendarGrid = inPage<'calendarGrid'>(calendarGridSource);
export const sliderSettled = inPage<'sliderSettled'>(sliderSettledSource);
export const sliderSettledAt = inPage<'sliderSettledAt'>(sliderSettledAtSource);
export const clickSettled = inPage<'clickSettled'>(clickSettledSource);
export const pointerTarget = inPage<'pointerTarget'>(pointerTargetSource);
export const modelScan = inPage<'modelScan'>(modelScanSource);
export const recordingMask = inPage<'recordingMask'>(recordingMaskSource);
export const secretFieldsShown = inPage<'secretFieldsShown'>(secretFieldsShownSource);
export const liveView = inPage<'liveView'>(liveViewSource);
export const tagChips = inPage<'tagChips'>(tagChipsSource);
export const enterGuard = inPage<'enterGuard'>(enterGuardSource);
export const markField = inPage<'markField'>(markFieldSource);
export const pageText = inPage<'pageText'>(pageTextSource);
export const frameLocation = inPage<'frameLocation'>(frameLocationSource);
export const controlState = inPage<'controlState'>(controlStateSource);
export const controlRead = inPage<'controlRead'>(controlReadSource);
export const describeElements = inPage<'describeElements'>(describeElementsSource);
export const drawnByLabel = inPage<'drawnByLabel'>(drawnByLabelSource);
export const toggleByLabel = inPage<'toggleByLabel'>(toggleByLabelSource);
export const clickToggle = inPage<'clickToggle'>(clickToggleSource);
export const isNativeSelect = inPage<'isNativeSelect'>(isNativeSelectSource);
export const nativeOptions = inPage<'nativeOptions'>(nativeOptionsSource);
export const optionNames = inPage<'optionNames'>(optionNamesSource);
export const elementText = inPage<'elementText'>(elementTextSource);
export const bodyText = inPage<'bodyText'>(bodyTextSource);
export const resourceStarts = inPage<'resourceStarts'>(resourceStartsSource);
export const scrollPage = inPage<'scrollPage'>(scrollPageSource);
export const perceivable = inPage<'perceivable'>(perceivableSource);
export const matchRows = inPage<'matchRows'>(matchRowsSource);
export const pairedValue = inPage<'pairedValue'>(pairedValueSource);
export const probe = inPage<'probe'>(probeSource);
export const controlNames = inPage<'controlNames'>(controlNamesSource);
export const segmentReading = inPage<'segmentReading'>(segmentReadingSource);
export const selectedLabel = inPage<'selectedLabel'>(selectedLabelSource);
export const hasFocus = inPage<'hasFocus'>(hasFocusSource);
export const twoFrames = inPage<'twoFrames'>(twoFramesSource);
export const markFocused = inPage<'markFocused'>(markFocusedSource);
export const takeMarked = inPage<'takeMarked'>(takeMarkedSource);
export const ariaCheckedState = inPage<'ariaCheckedState'>(ariaCheckedStateSource);
export const markFilterBox = inPage<'markFilterBox'>(markFilterBoxSource);
export const markListsBefore = inPage<'markListsBefore'>(markListsBeforeSource);
export const framesDrawn = inPage<'framesDrawn'>(framesDrawnSource);
export const markCascadeList = inPage<'markCascadeList'>(markCascadeListSource);
export const cascadeLabels = inPage<'cascadeLabels'>(cascadeLabelsSource);
export const nextTreeItem = inPage<'nextTreeItem'>(nextTreeItemSource);
export const markTried = inPage<'markTried'>(markTriedSource);
export const treeNodes = inPage<'treeNodes'>(treeNodesSource);
export const listTakesMany = inPage<'listTakesMany'>(listTakesManySource);
export const optionsCheckable = inPage<'optionsCheckable'>(optionsCheckableSource);
export const optionStates = inPage<'optionStates'>(optionStatesSource);

/** Marks a value JSON has no text for (undefined, NaN, ±Infinity) in `scanPageText`'s output. */
const NOT_JSON = '__porticoNotJson';

/** `JSON.stringify`'s replacer for `scanPageText`: marks what JSON cannot say as itself (`fromJsonText` gives it back). */
const JSON_REPLACER = `(_key, value) => value === undefined || (typeof value === 'number' && !Number.isFinite(value)) ? { ${NOT_JSON}: String(value) } : value`;

/** The value `scanPageText` answered, from its text. */
export function fromJsonText<T>(text: string): T {
  return JSON.parse(text, (_key, value: unknown) => {
    if (value === null || typeof value !== 'object' || !(NOT_JSON in value) || Object.keys(value).length !== 1)
      return value;
    const marked = (value as Record<string, unknown>)[NOT_JSON];
    return marked === 'undefined' ? undefined : Number(marked);
  }) as T;
}

/** scanPageText's two calls: a scan, or a click's settle and then a scan. */
interface ScanPageText {
  (): Promise<string>;
  (settle: ClickSettledArgs): Promise<string>;
}

/**
 * scanPage answering as JSON text (read with `fromJsonText<FrameScan>`): one string crosses CDP and Playwright's
 * protocol, where a nested object is serialized value by value in the page, wrapped and checked value by value in
 * Node (a page scan's answer cost ~4× the wall time and ~2× the service's CPU as an object). Given clickSettled's
 * arguments, it settles first (clickSettled.ts) and scans as soon as that answers, in the same call (one round trip
 * fewer a click whose next read is that scan): then the text is `{ settled, scan }`. One function for both, so that
 * a page compiles and warms one scanner (a second copy of its source runs cold, as a document's first scan does:
 * the settle took ~8 ms longer a click that way).
 */
export const scanPageText = new Function(
  `return (async (settle) => { const settled = settle ? await (${clickSettledSource})(settle) : null; const scan = (${scanPageSource})(); return JSON.stringify(settle ? { settled, scan } : scan, ${JSON_REPLACER}); });`,
)() as ScanPageText;

/**
 * The recording mask as a script's text, for what takes a string (CDP's new-document scripts,
 * `Runtime.evaluate`, init scripts): it runs recordingMask.ts with `args` at once.
 */
export function recordingMaskScript(args: RecordingMaskArgs): string {
  return `(${recordingMaskSource})(${JSON.stringify(args)});`;
}

/**
 * secretFieldsShown.ts as an expression's text for CDP's `Runtime.evaluate` (run in an isolated world by
 * browser/pageScreenshot.ts): whether the document or an open shadow root in it holds a match of `selector`.
 */
export function secretFieldsShownScript(selector: string): string {
  return `(${secretFieldsShownSource})(${JSON.stringify(selector)})`;
}

/** The live-view page's script and style sheet, as the text of its one `<script>` and one `<style>`. */
export const liveViewPageScript = `(${liveViewSource})();`;
export { liveViewStyle };

export type {
  ControlRead,
  ControlReadArgs,
  ControlReads,
  ControlState,
  ElementDescriptor,
  FrameLocation,
  FilterBoxArgs,
  FindListboxArgs,
  FrameScan,
  LiveViewConfig,
  LoginScan,
  MatchRowsArgs,
  ModelFrameScan,
  OptionLabel,
  PageElement,
  PairedValue,
  Perceived,
  Probe,
  ProbeArgs,
  RawPageFacts,
  RowMatch,
  ScannedButton,
  ScannedControl,
  ScannedOption,
  ScrollDirection,
  SegmentedField,
  SegmentFacts,
  SegmentKind,
  SliderFacts,
  SliderSettled,
  SliderSettledArgs,
  TargetFacts,
  TreeNode,
} from './scanTypes.ts';
