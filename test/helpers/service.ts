import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startApp, type AppOptions, type RunningApp } from '../../src-main/app.ts';
import { readConfig, type PorticoConfig } from '../../src-main/base/config.ts';

export interface TestService {
  app: RunningApp;
  url: string;
  dataDir: string;
  /** Key of org `default`. */
  orgKey: string;
  /** Account key of user `local` in workspace `default`. */
  accountKey: string;
  /** The operator console's token (`X-Console-Token`). */
  consoleToken: string;
  /** fetch against the service with the org key unless headers say otherwise. */
  api(path: string, init?: RequestInit & { key?: string | null; json?: unknown }): Promise<Response>;
  /** Stops the service; keeps the data dir for a restart. */
  stop(): Promise<void>;
  /** Stops the service and removes the data dir. */
  dispose(): Promise<void>;
}

/** The request rate and live browsers test services allow unless a test sets its own (`options.limits`). */
export const TEST_LIMITS = Object.freeze({ requestsPerMinute: 1_000_000, browsersPerOrg: 64, browsersTotal: 256 });

export const RENDERER_DIR = fileURLToPath(new URL('../../out/renderer', import.meta.url));

/** The configuration a host would read now: tests set `process.env` before starting a service. */
export function testConfig(): PorticoConfig {
  return readConfig(process.env);
}

export async function makeDataDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'portico-test-'));
}

/** Starts a real service (real HTTP on a free loopback port, real SQLite file) on a fresh or given data dir. */
export async function startService(dataDir?: string, options: Partial<AppOptions> = {}): Promise<TestService> {
  const dir = dataDir ?? (await makeDataDir());
  const notices: string[] = [];
  const app = await startApp({
    dataDir: dir, port: 0, rendererDir: RENDERER_DIR, notice: (line) => notices.push(line), warmBrowser: false, samples: false, ...options, config: options.config ?? testConfig(),
    // A suite sends requests far faster than any script and keeps browsers open across its cases: only
    // the limit tests (test/hostile/caps-*) set low limits.
    limits: { ...TEST_LIMITS, ...options.limits },
  });
  const orgKey = notices.join('\n').match(/Organization API key[^:]*:\s+(\S+)/)?.[1] ?? '';
  const accountKey = notices.join('\n').match(/Account API key[^:]*:\s+(\S+)/)?.[1] ?? '';
  const api: TestService['api'] = (path, init = {}) => {
    const { key, json, ...rest } = init;
    const headers = new Headers(rest.headers);
    const useKey = key === undefined ? orgKey : key;
    if (useKey !== null && !headers.has('x-api-key')) headers.set('x-api-key', useKey);
    if (json !== undefined) headers.set('content-type', 'application/json');
    return fetch(`${app.url}${path}`, { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body });
  };
  return {
    app,
    url: app.url,
    dataDir: dir,
    orgKey,
    accountKey,
    consoleToken: app.consoleToken,
    api,
    stop: () => app.close(),
    dispose: async () => {
      await app.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Reads a JSON response and its status together, for one-line assertions. */
export async function jsonOf(response: Response): Promise<{ status: number; body: unknown }> {
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined };
}

/** Polls a job's status until it is one of `statuses` (or fails the test after `timeoutMs`). */
export async function waitForJob(svc: TestService, endpoint: string, jobId: string, statuses: string[], timeoutMs = 30_000): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  let last: Record<string, unknown> = {};
  while (Date.now() < deadline) {
    last = (await (await svc.api(`/task/default/${endpoint}/status?job_id=${jobId}`)).json()) as Record<string, unknown>;
    if (statuses.includes(String(last.status))) return last;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`job ${jobId} did not reach ${statuses.join('|')} in ${timeoutMs} ms; last: ${JSON.stringify(last)}`);
}
