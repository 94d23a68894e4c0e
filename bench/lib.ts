import { chromium, type Page } from 'playwright-core';
import { chromiumArgs, findChromium, needsNoSandbox, systemChromiumHost } from '../src-main/browser/chromiumDiscovery.ts';

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/**
 * Times a hand-written Playwright script, the baseline a job is compared with: the same Chromium
 * and flags as Portico, a fresh 1280×800 context per run (as a job gets), one untimed warm-up.
 */
export async function timeScript(runs: number, steps: (page: Page) => Promise<void>): Promise<number[]> {
  const browser = await chromium.launch({ executablePath: findChromium(systemChromiumHost()), args: chromiumArgs({ noSandbox: needsNoSandbox(process.platform, process.env, process.getuid?.()) }) });
  const once = async (): Promise<number> => {
    const t0 = Date.now();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await steps(await context.newPage());
    await context.close();
    return Date.now() - t0;
  };
  try {
    await once();
    const times: number[] = [];
    for (let i = 0; i < runs; i += 1) times.push(await once());
    return times;
  } finally {
    await browser.close();
  }
}
