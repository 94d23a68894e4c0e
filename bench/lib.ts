import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { startApp, type AppOptions, type RunningApp } from '../src-main/app.ts';
import { readConfig } from '../src-main/base/config.ts';
import {
  chromiumArgs,
  findChromium,
  findHeadlessShell,
  needsNoSandbox,
  systemChromiumHost,
} from '../src-main/browser/chromiumDiscovery.ts';

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/**
 * The executable Portico's headless jobs run: the headless shell of the chosen Chromium's build when one
 * is installed (as Playwright's own `headless: true` launches), else that Chromium (docs/decisions.md,
 * "Headless jobs in Chromium's headless shell"). A script compared with a job runs it too, so a ratio
 * compares the work each side makes a browser do, not two browsers.
 */
export function jobBrowserExecutable(): string {
  const config = readConfig(process.env);
  const chromiumPath = findChromium(systemChromiumHost(), { envPath: config.chromiumPath });
  return findHeadlessShell(systemChromiumHost(), chromiumPath, config.headlessShell) ?? chromiumPath;
}

/**
 * Times a hand-written Playwright script, the baseline a job is compared with: the browser and flags
 * Portico's headless jobs run (jobBrowserExecutable), a fresh 1280×800 context per run (as a job gets),
 * one untimed warm-up.
 */
export async function timeScript(runs: number, steps: (page: Page) => Promise<void>): Promise<number[]> {
  const config = readConfig(process.env);
  const browser = await chromium.launch({
    executablePath: jobBrowserExecutable(),
    args: chromiumArgs({ noSandbox: needsNoSandbox(process.platform, config.chromiumNoSandbox, process.getuid?.()) }),
  });
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

export interface BenchApp {
  app: RunningApp;
  /** JSON request to the app with its first-start org key; POST when a body is given. */
  api(path: string, body?: unknown): Promise<Record<string, unknown>>;
  /** That org key, for requests `api` does not make (streams). */
  key: string;
}

/** A benchmark drives the API far past a person's pace: the rate limiter stays on (its cost is measured) but never refuses. */
export const BENCH_LIMITS = Object.freeze({ requestsPerMinute: 1_000_000_000, browsersPerOrg: 64, browsersTotal: 256 });

/** Starts Portico in-process on a free port with one job at a time, as both benchmarks measure it. */
export async function startBenchApp(dataDir: string, options: Partial<AppOptions> = {}): Promise<BenchApp> {
  const notices: string[] = [];
  const app = await startApp({
    dataDir,
    port: 0,
    rendererDir: join(dataDir, 'no-console'),
    notice: (l) => notices.push(l),
    jobConcurrency: 1,
    limits: BENCH_LIMITS,
    ...options,
    config: options.config ?? readConfig(process.env),
  });
  const key = /Organization API key[^:]*:\s+(\S+)/.exec(notices.join('\n'))?.[1] ?? '';
  const api = async (path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const res = await fetch(`${app.url}${path}`, {
      method: body ? 'POST' : 'GET',
      headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return (await res.json()) as Record<string, unknown>;
  };
  return { app, api, key };
}

/** A session benchmark's rig: one HTML page served locally, Portico with no warm browsers, POST with the account key. */
export interface SessionBench {
  app: RunningApp;
  /** The page's address (`/draft` on the local page server). */
  pageUrl: string;
  accountKey: string;
  /** POST with the first-start account key; a non-2xx answer throws with its body. */
  post(path: string, body: unknown): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/** Starts the page server and Portico (no warm browser, no session pool) for a benchmark named `name`. */
export async function startSessionBench(name: string, html: string): Promise<SessionBench> {
  const pages = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(html));
  await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
  const pageUrl = `http://127.0.0.1:${(pages.address() as AddressInfo).port}/draft`;
  const dataDir = await mkdtemp(join(tmpdir(), `portico-bench-${name}-`));
  const notices: string[] = [];
  const app = await startApp({
    dataDir,
    port: 0,
    rendererDir: join(dataDir, 'no-console'),
    notice: (l) => notices.push(l),
    warmBrowser: false,
    sessionPoolSize: 0,
    limits: BENCH_LIMITS,
    config: readConfig(process.env),
  });
  const accountKey = /Account API key[^:]*:\s+(\S+)/.exec(notices.join('\n'))?.[1] ?? '';
  const post = async (path: string, body: unknown): Promise<Record<string, unknown>> => {
    const res = await fetch(`${app.url}${path}`, {
      method: 'POST',
      headers: { 'x-api-key': accountKey, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, unknown>;
    if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const close = async (): Promise<void> => {
    await app.close();
    pages.close();
    await rm(dataDir, { recursive: true, force: true });
  };
  return { app, pageUrl, accountKey, post, close };
}

/** The machine facts every bench result carries: cores, platform, Node, and the load average at its start and end. */
export function machineFacts(loadAtStart: number[]): Record<string, unknown> {
  return {
    cpus: cpus().length,
    platform: process.platform,
    node: process.version,
    load_average_at_start: loadAtStart,
    load_average_at_end: loadavg().map((l) => Math.round(l * 100) / 100),
    note: "a 2-core machine shared with other engineers' tests while measured",
  };
}
