// How the engine calls each in-page script: no DOM type here, so the Node side (which has no DOM
// library: tsconfig.node.json) can name them. `E` is what an element is on each side: `unknown` to
// the engine, `Element` in checkSignatures.ts, which proves every entry (typed against the DOM)
// accepts these arguments and returns these results.
import type {
  CalendarFacts,
  ClickSettled,
  ClickSettledArgs,
  ControlRead,
  ControlReadArgs,
  ControlState,
  FilterBoxArgs,
  FindListboxArgs,
  FrameLocation,
  FrameScan,
  LoginScan,
  MatchRowsArgs,
  ModelFrameScan,
  ModelScanArgs,
  OptionLabel,
  PairedValue,
  Perceived,
  Probe,
  ProbeArgs,
  RawPageFacts,
  RecordingMaskArgs,
  RowMatch,
  ScannedOption,
  ScrollDirection,
  SegmentReadingRaw,
  SliderSettled,
  SliderSettledArgs,
  SliderSettledAtArgs,
  TreeNode,
} from './scanTypes.ts';

export interface Signatures<E = unknown> {
  scanPage: () => FrameScan;
  findListbox: (el: E, args: FindListboxArgs) => boolean;
  readOptions: (els: E[]) => ScannedOption[];
  shownValue: (el: E) => string;
  pageFacts: () => RawPageFacts;
  readAndLeave: (el: E) => string;
  uniqueSelector: (el: E) => string;
  loginScan: (role: string) => LoginScan;
  calendarOpen: (el: E) => [number, number] | null;
  calendarGrid: (near: E | null) => CalendarFacts | null;
  sliderSettled: (el: E, args: SliderSettledArgs) => Promise<SliderSettled>;
  sliderSettledAt: (args: SliderSettledAtArgs) => Promise<SliderSettled> | null;
  clickSettled: (args: ClickSettledArgs) => Promise<ClickSettled>;
  pointerTarget: (el: E) => 'self' | 'label' | 'hidden' | 'other';
  modelScan: (args: ModelScanArgs) => ModelFrameScan;
  recordingMask: (args: RecordingMaskArgs) => void;
  secretFieldsShown: (selector: string) => boolean;
  liveView: () => void;
  tagChips: (el: E) => string[];
  enterGuard: (el: E, mode: 'on' | 'off') => number;
  markField: (el: E, name: string) => void;
  pageText: (max: number) => string;
  frameLocation: () => FrameLocation;
  controlState: (el: E) => ControlState;
  controlRead: (args: ControlReadArgs) => ControlRead;
  describeElements: (els: E[]) => string[];
  drawnByLabel: (el: E) => boolean;
  toggleByLabel: (el: E, want: boolean) => boolean;
  clickToggle: (el: E) => boolean | null;
  isNativeSelect: (el: E) => boolean;
  nativeOptions: (el: E) => OptionLabel[];
  optionNames: (els: E[]) => OptionLabel[];
  elementText: (el: E) => string | null;
  bodyText: () => string;
  resourceStarts: (name: string) => number[] | null;
  scrollPage: (d: ScrollDirection) => void;
  perceivable: (els: E[], textOnly: boolean) => Perceived[];
  matchRows: (rows: E[], args: MatchRowsArgs) => RowMatch[];
  pairedValue: (el: E) => PairedValue;
  probe: (els: E[], args: ProbeArgs) => Probe;
  controlNames: (els: E[]) => string[][];
  segmentReading: (el: E) => SegmentReadingRaw;
  selectedLabel: (el: E) => string;
  hasFocus: (el: E) => boolean;
  twoFrames: (el: E) => Promise<boolean>;
  markFocused: (el: E) => string | null;
  takeMarked: (el: E) => string | null;
  ariaCheckedState: (el: E) => boolean;
  markFilterBox: (list: E, args: FilterBoxArgs<E>) => boolean;
  markListsBefore: (token: string) => void;
  framesDrawn: (args: { start: boolean; keepMs: number }) => number;
  markCascadeList: (token: string) => boolean;
  cascadeLabels: (els: E[]) => string[];
  nextTreeItem: (els: E[], token: string) => number;
  markTried: (el: E, token: string) => void;
  treeNodes: (els: E[]) => TreeNode[];
  listTakesMany: (el: E) => boolean;
  optionsCheckable: (els: E[]) => boolean;
  optionStates: (els: E[]) => boolean[];
}
