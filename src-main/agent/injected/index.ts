// The scripts that run inside web pages, as typed functions for Playwright's `evaluate`. Their code
// is written as TypeScript next to this file and compiled at build time into self-contained
// sources (generated/scripts.ts, by scripts/build-injected.mjs): no transpiler helper or import can
// leak into what the page runs.
import type calendarOpenEntry from './calendarOpen.ts';
import type findListboxEntry from './findListbox.ts';
import type loginScanEntry from './loginScan.ts';
import {
  calendarOpenSource,
  findListboxSource,
  loginScanSource,
  pageFactsSource,
  readAndLeaveSource,
  readOptionsSource,
  scanPageSource,
  shownValueSource,
  uniqueSelectorSource,
} from './generated/scripts.ts';
import type pageFactsEntry from './pageFacts.ts';
import type scanPageEntry from './pageScan.ts';
import type readAndLeaveEntry from './readAndLeave.ts';
import type readOptionsEntry from './readOptions.ts';
import type shownValueEntry from './shownValue.ts';
import type uniqueSelectorEntry from './uniqueSelector.ts';

/** A function whose text is exactly `source` (Playwright sends a function to the page by its text). */
function inPage<F>(source: string): F {
  return new Function(`return (${source});`)() as F;
}

export const scanPage = inPage<typeof scanPageEntry>(scanPageSource);
export const findListbox = inPage<typeof findListboxEntry>(findListboxSource);
export const readOptions = inPage<typeof readOptionsEntry>(readOptionsSource);
export const shownValue = inPage<typeof shownValueEntry>(shownValueSource);
export const pageFacts = inPage<typeof pageFactsEntry>(pageFactsSource);
export const readAndLeave = inPage<typeof readAndLeaveEntry>(readAndLeaveSource);
export const uniqueSelector = inPage<typeof uniqueSelectorEntry>(uniqueSelectorSource);
export const loginScan = inPage<typeof loginScanEntry>(loginScanSource);
export const calendarOpen = inPage<typeof calendarOpenEntry>(calendarOpenSource);

export type { FindListboxArgs } from './findListbox.ts';
export type { LoginScan } from './loginScan.ts';
export type { RawPageFacts } from './pageFacts.ts';
export type {
  FrameScan,
  ScannedButton,
  ScannedControl,
  ScannedOption,
  SegmentedField,
  SegmentFacts,
  SegmentKind,
  SliderFacts,
} from './scanTypes.ts';
