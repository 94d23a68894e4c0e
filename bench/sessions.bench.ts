// Session create → CDP-ready, warm (from the pool) and cold (pool size 0), and the idle RSS of the pool.
// "CDP-ready": POST /public/sessions answered, a WebSocket opened on its cdp_url (through Portico's
// proxy) and `Browser.getVersion` answered by the session's own Chromium. Playwright's connectOverCDP
// on top is reported too (it attaches to every target, so it costs more than the protocol itself).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startApp, type RunningApp } from '../src-main/app.ts';
import { readConfig } from '../src-main/base/config.ts';
import { BENCH_LIMITS, median } from './lib.ts';

const RUNS = Number(process.env.BENCH_SESSION_RUNS ?? 10);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface Started {
  app: RunningApp;
  dataDir: string;
  accountKey: string;
}

async function start(poolSize: number): Promise<Started> {
  const dataDir = await mkdtemp(join(tmpdir(), 'portico-bench-sessions-'));
  const notices: string[] = [];
  const app = await startApp({
    dataDir,
    port: 0,
    rendererDir: join(dataDir, 'no-console'),
    notice: (line) => notices.push(line),
    warmBrowser: false,
    sessionPoolSize: poolSize,
    limits: BENCH_LIMITS,
    config: readConfig(process.env),
  });
  const accountKey = /Account API key[^:]*:\s+(\S+)/.exec(notices.join('\n'))?.[1] ?? '';
  return { app, dataDir, accountKey };
}

async function post(s: Started, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${s.app.url}${path}`, {
    method: 'POST',
    headers: { 'x-api-key': s.accountKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

/** Opens the CDP URL and waits for the browser to answer one command. */
function cdpRoundTrip(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.onopen = () => ws.send(JSON.stringify({ id: 1, method: 'Browser.getVersion' }));
    ws.onmessage = (event) => {
      if (String(event.data).includes('"id":1')) {
        ws.close();
        resolve();
      }
    };
    ws.onerror = () => reject(new Error(`CDP connection to ${url} failed`));
  });
}

/**
 * Memory (KiB) of every process whose command line names `marker`: RSS summed (counts shared pages
 * once per process, so it overstates) and PSS summed (shared pages split between sharers: the
 * honest total, Linux only).
 */
function memoryKiB(marker: string): { processes: number; rss: number; pss: number | null } {
  const lines = execFileSync('ps', ['-eo', 'pid=,rss=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(marker) && line.includes('chromium'));
  let rss = 0;
  let pss: number | null = 0;
  for (const line of lines) {
    const [pid, kib] = line.trim().split(/\s+/);
    rss += Number(kib ?? 0);
    try {
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      if (pss !== null) pss += Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
    } catch {
      pss = null;
    }
  }
  return { processes: lines.length, rss, pss };
}

async function measure(s: Started, settleMs: number): Promise<{ cdpReady: number[]; playwright: number[] }> {
  const cdpReady: number[] = [];
  const playwright: number[] = [];
  for (let i = 0; i <= RUNS; i += 1) {
    // Let the pool refill (and the machine settle) between runs, as separate API calls would.
    await sleep(settleMs);
    const t0 = performance.now();
    const session = await post(s, '/public/sessions', {});
    await cdpRoundTrip(String(session.cdp_url));
    const t1 = performance.now();
    const browser = await chromium.connectOverCDP(String(session.cdp_url));
    const t2 = performance.now();
    await browser.close();
    await post(s, `/public/sessions/${String(session.session_id)}/terminate`, {});
    if (i === 0) continue; // warm-up
    cdpReady.push(t1 - t0);
    playwright.push(t2 - t0);
  }
  return { cdpReady, playwright };
}

const round = (values: number[]): number[] => values.map((v) => Math.round(v * 10) / 10);

async function main(): Promise<void> {
  const warm = await start(1);
  await sleep(3_000);
  const idle = memoryKiB(join(warm.dataDir, 'tmp', 'sessions'));
  const warmRuns = await measure(warm, 2_500);
  await warm.app.close();
  await rm(warm.dataDir, { recursive: true, force: true });

  const cold = await start(0);
  const coldRuns = await measure(cold, 500);
  await cold.app.close();
  await rm(cold.dataDir, { recursive: true, force: true });

  const result = {
    bench: 'sessions',
    date: new Date().toISOString(),
    runs: RUNS,
    target: 'warm create → CDP-ready ≤ 150 ms (median)',
    warm: {
      create_to_cdp_ready_ms_median: round([median(warmRuns.cdpReady)])[0],
      create_to_playwright_connected_ms_median: round([median(warmRuns.playwright)])[0],
      create_to_cdp_ready_ms: round(warmRuns.cdpReady),
    },
    cold: {
      create_to_cdp_ready_ms_median: round([median(coldRuns.cdpReady)])[0],
      create_to_playwright_connected_ms_median: round([median(coldRuns.playwright)])[0],
      create_to_cdp_ready_ms: round(coldRuns.cdpReady),
    },
    pool: {
      size: 1,
      idle_processes: idle.processes,
      idle_pss_mib: idle.pss === null ? null : Math.round(idle.pss / 102.4) / 10,
      idle_rss_sum_mib: Math.round(idle.rss / 102.4) / 10,
    },
    machine: {
      cpus: cpus().length,
      platform: process.platform,
      load_average_1m: Math.round(loadavg()[0]! * 10) / 10,
      note: "shared by other engineers' test runs while measured",
    },
  };
  const out = join(import.meta.dirname, 'results', 'sessions.json');
  await writeFile(out, `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(
    `${JSON.stringify({ warm: result.warm.create_to_cdp_ready_ms_median, cold: result.cold.create_to_cdp_ready_ms_median, pool: result.pool })}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
