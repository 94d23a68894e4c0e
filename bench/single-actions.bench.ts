// A cached single action through the API vs the raw Playwright call it replays, in the same run and the
// same session browser. API: POST /public/single-actions/run-action with an `id` whose cached step is
// "click button Save" (used_cache must be true). Raw: a Playwright client connected over the session's
// cdp_url clicking getByRole('button', {name: 'Save', exact: true}) on the same page. Runs alternate so
// machine load hits both alike; the overhead is the difference of the medians.
import { writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { median, startSessionBench } from './lib.ts';

const RUNS = Number(process.env.BENCH_ACTION_RUNS ?? 60);
const PAGE = '<!doctype html><title>Bench</title><h1>Draft</h1><button onclick="this.dataset.n = String(Number(this.dataset.n ?? 0) + 1)">Save</button><label>Notes <input></label>';

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};
const round = (v: number): number => Math.round(v * 10) / 10;

async function main(): Promise<void> {
  const { pageUrl, post, close } = await startSessionBench('actions', PAGE);
  try {
    const session = await post('/public/sessions', {});
    const sessionId = String(session.session_id);
    const action = async (): Promise<Record<string, unknown>> => post('/public/single-actions/run-action', { session_id: sessionId, action: 'click the Save button', id: 'bench-save' });
    await post('/public/single-actions/run-action', { session_id: sessionId, action: `go to ${pageUrl}` });
    const first = await action();
    if (first.success !== true || first.set_cache !== true) throw new Error(`first run did not store the step: ${JSON.stringify(first)}`);

    const client = await chromium.connectOverCDP(String(session.cdp_url));
    const page = client.contexts().flatMap((c) => c.pages()).find((p) => p.url() === pageUrl);
    if (!page) throw new Error('the session page is not visible over the CDP URL');
    const button = page.getByRole('button', { name: 'Save', exact: true });

    const api: number[] = [];
    const raw: number[] = [];
    for (let i = 0; i <= RUNS; i += 1) {
      const t0 = performance.now();
      const replayed = await action();
      const t1 = performance.now();
      await button.click();
      const t2 = performance.now();
      if (replayed.used_cache !== true || replayed.success !== true) throw new Error(`run ${i} did not replay: ${JSON.stringify(replayed)}`);
      if (i === 0) continue; // warm-up
      api.push(t1 - t0);
      raw.push(t2 - t1);
    }
    const clicks = Number(await button.getAttribute('data-n'));
    await client.close();

    const overhead = median(api) - median(raw);
    const result = {
      bench: 'single-actions',
      date: new Date().toISOString(),
      runs: RUNS,
      target: 'cached action through the API ≤ 30 ms over the raw Playwright call (difference of medians)',
      api_ms: { median: round(median(api)), p90: round(percentile(api, 90)) },
      raw_playwright_over_cdp_ms: { median: round(median(raw)), p90: round(percentile(raw, 90)) },
      overhead_ms_median: round(overhead),
      met: overhead <= 30,
      clicks_counted_by_page: clicks,
      machine: { cpus: cpus().length, platform: process.platform, loadavg: loadavg().map(round) },
    };
    await writeFile(join(import.meta.dirname, 'results', 'single-actions.json'), `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(`${JSON.stringify({ api: result.api_ms, raw: result.raw_playwright_over_cdp_ms, overhead_ms: result.overhead_ms_median, met: result.met })}\n`);
  } finally {
    await close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exit(1);
});
