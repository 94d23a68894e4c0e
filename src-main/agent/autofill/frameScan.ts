import type { Frame } from 'playwright-core';

import { answerWithin } from '../../browser/frameAccess.ts';
import { scanPage, type FrameScan } from '../injected/index.ts';

export type { FrameScan, ScannedButton, ScannedControl, ScannedOption } from '../injected/index.ts';

/**
 * Scans one frame (in-page code: src-main/agent/injected/pageScan.ts, open shadow roots included);
 * a frame that is detached, navigating or too busy to answer (FRAME_ANSWER_MS) yields null.
 */
export async function scanFrame(frame: Frame): Promise<FrameScan | null> {
  try {
    return await answerWithin(frame, frame.evaluate(scanPage));
  } catch {
    return null;
  }
}
