// Compile-time only (nothing imports it): each entry, typed against the DOM, fits the DOM-free
// signature the engine calls it by (signatures.ts). A mismatch is a type error here.
import type calendarGrid from './calendarGrid.ts';
import type calendarOpen from './calendarOpen.ts';
import type segmentReading from './segmentReading.ts';
import type selectedLabel from './selectedLabel.ts';
import type hasFocus from './hasFocus.ts';
import type twoFrames from './twoFrames.ts';
import type markFocused from './markFocused.ts';
import type takeMarked from './takeMarked.ts';
import type ariaCheckedState from './ariaCheckedState.ts';
import type markFilterBox from './markFilterBox.ts';
import type markListsBefore from './markListsBefore.ts';
import type framesDrawn from './framesDrawn.ts';
import type markCascadeList from './markCascadeList.ts';
import type cascadeLabels from './cascadeLabels.ts';
import type nextTreeItem from './nextTreeItem.ts';
import type markTried from './markTried.ts';
import type treeNodes from './treeNodes.ts';
import type listTakesMany from './listTakesMany.ts';
import type optionsCheckable from './optionsCheckable.ts';
import type optionStates from './optionStates.ts';
import type perceivable from './perceivable.ts';
import type matchRows from './matchRows.ts';
import type pairedValue from './pairedValue.ts';
import type probe from './probe.ts';
import type controlNames from './controlNames.ts';
import type drawnByLabel from './drawnByLabel.ts';
import type toggleByLabel from './toggleByLabel.ts';
import type clickToggle from './clickToggle.ts';
import type isNativeSelect from './isNativeSelect.ts';
import type nativeOptions from './nativeOptions.ts';
import type optionNames from './optionNames.ts';
import type elementText from './elementText.ts';
import type bodyText from './bodyText.ts';
import type resourceStarts from './resourceStarts.ts';
import type scrollPage from './scrollPage.ts';
import type frameLocation from './frameLocation.ts';
import type controlState from './controlState.ts';
import type controlRead from './controlRead.ts';
import type describeElements from './describeElements.ts';
import type enterGuard from './enterGuard.ts';
import type findListbox from './findListbox.ts';
import type liveView from './liveView.ts';
import type loginScan from './loginScan.ts';
import type markField from './markField.ts';
import type modelScan from './modelScan.ts';
import type pageFacts from './pageFacts.ts';
import type pageText from './pageText.ts';
import type scanPage from './pageScan.ts';
import type readAndLeave from './readAndLeave.ts';
import type readOptions from './readOptions.ts';
import type recordingMask from './recordingMask.ts';
import type secretFieldsShown from './secretFieldsShown.ts';
import type shownValue from './shownValue.ts';
import type { Signatures } from './signatures.ts';
import type sliderSettled from './sliderSettled.ts';
import type sliderSettledAt from './sliderSettledAt.ts';
import type clickSettled from './clickSettled.ts';
import type pointerTarget from './pointerTarget.ts';
import type tagChips from './tagChips.ts';
import type uniqueSelector from './uniqueSelector.ts';

type Entries = {
  scanPage: typeof scanPage;
  findListbox: typeof findListbox;
  readOptions: typeof readOptions;
  shownValue: typeof shownValue;
  pageFacts: typeof pageFacts;
  readAndLeave: typeof readAndLeave;
  uniqueSelector: typeof uniqueSelector;
  loginScan: typeof loginScan;
  calendarOpen: typeof calendarOpen;
  calendarGrid: typeof calendarGrid;
  sliderSettled: typeof sliderSettled;
  sliderSettledAt: typeof sliderSettledAt;
  clickSettled: typeof clickSettled;
  pointerTarget: typeof pointerTarget;
  modelScan: typeof modelScan;
  recordingMask: typeof recordingMask;
  secretFieldsShown: typeof secretFieldsShown;
  liveView: typeof liveView;
  tagChips: typeof tagChips;
  enterGuard: typeof enterGuard;
  markField: typeof markField;
  pageText: typeof pageText;
  frameLocation: typeof frameLocation;
  controlState: typeof controlState;
  controlRead: typeof controlRead;
  describeElements: typeof describeElements;
  drawnByLabel: typeof drawnByLabel;
  toggleByLabel: typeof toggleByLabel;
  clickToggle: typeof clickToggle;
  isNativeSelect: typeof isNativeSelect;
  nativeOptions: typeof nativeOptions;
  optionNames: typeof optionNames;
  elementText: typeof elementText;
  bodyText: typeof bodyText;
  resourceStarts: typeof resourceStarts;
  scrollPage: typeof scrollPage;
  perceivable: typeof perceivable;
  matchRows: typeof matchRows;
  pairedValue: typeof pairedValue;
  probe: typeof probe;
  controlNames: typeof controlNames;
  segmentReading: typeof segmentReading;
  selectedLabel: typeof selectedLabel;
  hasFocus: typeof hasFocus;
  twoFrames: typeof twoFrames;
  markFocused: typeof markFocused;
  takeMarked: typeof takeMarked;
  ariaCheckedState: typeof ariaCheckedState;
  markFilterBox: typeof markFilterBox;
  markListsBefore: typeof markListsBefore;
  framesDrawn: typeof framesDrawn;
  markCascadeList: typeof markCascadeList;
  cascadeLabels: typeof cascadeLabels;
  nextTreeItem: typeof nextTreeItem;
  markTried: typeof markTried;
  treeNodes: typeof treeNodes;
  listTakesMany: typeof listTakesMany;
  optionsCheckable: typeof optionsCheckable;
  optionStates: typeof optionStates;
};

/** Every entry has a signature and every signature an entry, and each entry fits its signature. */
export type Checked = {
  [K in keyof Signatures]: K extends keyof Entries
    ? Entries[K] extends Signatures<Element>[K]
      ? true
      : ['does not fit its signature', K]
    : ['has no entry', K];
} & { [K in keyof Entries]: K extends keyof Signatures ? true : ['has no signature', K] };

export const checked: Checked = {
  scanPage: true,
  findListbox: true,
  readOptions: true,
  shownValue: true,
  pageFacts: true,
  readAndLeave: true,
  uniqueSelector: true,
  loginScan: true,
  calendarOpen: true,
  calendarGrid: true,
  sliderSettled: true,
  sliderSettledAt: true,
  clickSettled: true,
  pointerTarget: true,
  modelScan: true,
  recordingMask: true,
  secretFieldsShown: true,
  liveView: true,
  tagChips: true,
  enterGuard: true,
  markField: true,
  pageText: true,
  frameLocation: true,
  controlState: true,
  controlRead: true,
  describeElements: true,
  drawnByLabel: true,
  toggleByLabel: true,
  clickToggle: true,
  isNativeSelect: true,
  nativeOptions: true,
  optionNames: true,
  elementText: true,
  bodyText: true,
  resourceStarts: true,
  scrollPage: true,
  perceivable: true,
  matchRows: true,
  pairedValue: true,
  probe: true,
  controlNames: true,
  segmentReading: true,
  selectedLabel: true,
  hasFocus: true,
  twoFrames: true,
  markFocused: true,
  takeMarked: true,
  ariaCheckedState: true,
  markFilterBox: true,
  markListsBefore: true,
  framesDrawn: true,
  markCascadeList: true,
  cascadeLabels: true,
  nextTreeItem: true,
  markTried: true,
  treeNodes: true,
  listTakesMany: true,
  optionsCheckable: true,
  optionStates: true,
};
