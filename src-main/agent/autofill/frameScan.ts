import type { Frame } from 'playwright-core';

import { answerWithin } from '../../browser/frameAccess.ts';
import { fromJsonText, scanPageText, type FrameScan } from '../injected/index.ts';

export type { FrameScan, ScannedButton, ScannedControl, ScannedOption } from '../injected/index.ts';

/**
 * Scans one frame (in-page code: src-main/agent/injected/pageScan.ts, open shadow roots included);
 * a frame that is detached, navigating or too busy to answer (FRAME_ANSWER_MS) yields null.
 */
export async function scanFrame(frame: Frame): Promise<FrameScan | null> {
  try {
    // As JSON text: a scan's nested answer crosses as one string (injected/index.ts, asJsonText).
    return fromJsonText<FrameScan>(await answerWithin(frame, frame.evaluate(scanPageText)));
  } catch {
    return null;
  }
}
