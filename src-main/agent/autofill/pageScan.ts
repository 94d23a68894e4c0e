import type { Frame } from 'playwright-core';

import { scanPage, type FrameScan } from '../injected/index.ts';

export type { FrameScan, ScannedButton, ScannedControl, ScannedOption } from '../injected/index.ts';

/**
 * Scans one frame (in-page code: src-main/agent/injected/pageScan.ts, open shadow roots included);
 * a frame that is detached or navigating yields null.
 */
export async function scanFrame(frame: Frame): Promise<FrameScan | null> {
  try {
    return await frame.evaluate(scanPage);
  } catch {
    return null;
  }
}
