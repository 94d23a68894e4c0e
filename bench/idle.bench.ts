// Idle weight (issue 25): `node src-main/serve.ts` as a user runs it (session pool of 1; the jobs' shared browser opens at the first job)
// with settings.json's browsers_idle_minutes set short (BENCH_IDLE_MINUTES, default 0.5 = 30 s: long enough for the pool to refill between warm sessions on a loaded machine) so the idle
// period passes during the bench. Measured: the service's RSS and the whole process tree's PSS (the service
// and every process under it — Chromium and its helpers — from /proc/<pid>/smaps_rollup) while warm and
// after the idle close; the session lifecycle (create → connectOverCDP → goto → terminate) p50 with the
// pool warm, and cold (the first session after an idle close). Target: tree PSS after the idle period
// ≤ 200 MB; warm lifecycle ≤ 260 ms p50. BENCH_RUNS (default 5; `--quick` 3). Results: bench/results/idle.json
// with the load average.
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { median } from './lib.ts';
import { SERVICE_NODE_FLAGS } from '../scripts/serviceFlags.mjs';

const benchDir = dirname(fileURLToPath(import.meta.url));
const root = join(benchDir, '..');
const RUNS = process.argv.includes('--quick') ? 3 : Number(process.env.BENCH_RUNS ?? 5);
const IDLE_MINUTES = Number(process.env.BENCH_IDLE_MINUTES ?? 0.5);
const round = (value: number, digits = 1): number => Math.round(value * 10 ** digits) / 10 ** digits;
const load = (): number[] => loadavg().map((l) => round(l, 2));
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Every process under `pid` (children by /proc/<n>/stat's ppid), `pid` included. */
function tree(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z') continue;
      parents.set(Number(name), Number(fields[1]));
    } catch {
      // exited while listing
    }
  }
  const found = [pid];
  for (let i = 0; i < found.length; i += 1)
    for (const [child, parent] of parents) if (parent === found[i]) found.push(child);
  return found.filter((p) => parents.has(p));
}

function kib(pid: number, file: string, field: string): number {
  try {
    const text = readFileSync(`/proc/${pid}/${file}`, 'utf8');
    return Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** Chromium main processes (not helpers, not the distribution's wrapper script) under the service. */
function browsers(pid: number): number[] {
  return tree(pid).filter((p) => {
    try {
      const line = readFileSync(`/proc/${p}/cmdline`, 'utf8').replaceAll('\0', ' ');
      return /chrom/.test(line) && !/(^| )--type=/.test(line) && !/^\S*\/(ba|da)?sh /.test(line);
    } catch {
      return false;
    }
  });
}

interface Weight {
  service_rss_mib: number;
  service_pss_mib: number;
  tree_pss_mib: number;
  processes: number;
  browsers: number;
}

function weigh(pid: number): Weight {
  const all = tree(pid);
  return {
    service_rss_mib: round(kib(pid, 'status', 'VmRSS') / 1024),
    service_pss_mib: round(kib(pid, 'smaps_rollup', 'Pss') / 1024),
    tree_pss_mib: round(all.reduce((sum, p) => sum + kib(p, 'smaps_rollup', 'Pss'), 0) / 1024),
    processes: all.length,
    browsers: browsers(pid).length,
  };
}

async function until(probe: () => boolean, what: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

const pages = createServer((_req, res) =>
  res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Bench</title><p>hello</p>'),
);
await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
const pageUrl = `http://127.0.0.1:${(pages.address() as AddressInfo).port}/`;

const dataDir = await mkdtemp(join(tmpdir(), 'portico-bench-idle-'));
writeFileSync(join(dataDir, 'settings.json'), JSON.stringify({ browsers_idle_minutes: IDLE_MINUTES }));
const loadAtStart = load();
let child: ChildProcess | undefined;
try {
  let out = '';
  let err = '';
  // With the Node flags `npm run serve` gives it (scripts/serviceFlags.mjs).
  const args = [...SERVICE_NODE_FLAGS, join(root, 'src-main/serve.ts'), '--port', '0', '--data-dir', dataDir];
  child = spawn(process.execPath, args, {
    cwd: root,
    // Info lines on stderr: the pool's `warm session browser ready` is what a warm session waits for.
    env: { ...process.env, PORTICO_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  await until(() => /listening on (\S+)/.test(out), 'listening');
  const url = /listening on (\S+)/.exec(out)?.[1] ?? '';
  await until(() => /Account API key[^:]*:\s+\S+/.test(err), 'the first-start keys');
  const accountKey = /Account API key[^:]*:\s+(\S+)/.exec(err)?.[1] ?? '';
  const pid = child.pid as number;
  const post = async (path: string, body: unknown): Promise<Record<string, unknown>> => {
    const res = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'x-api-key': accountKey, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Record<string, unknown>;
  };
  /** Each phase's time of the lifecycles timed so far, by phase (ms). */
  const phases: Record<'create' | 'connect' | 'goto' | 'disconnect' | 'terminate', number[]> = {
    create: [],
    connect: [],
    goto: [],
    disconnect: [],
    terminate: [],
  };
  /** One session's life as a client lives it; milliseconds (`into`: where its phases go). */
  const lifecycle = async (into?: typeof phases): Promise<number> => {
    const t0 = performance.now();
    let last = t0;
    const phase = (name: keyof typeof phases): void => {
      const now = performance.now();
      into?.[name].push(round(now - last));
      last = now;
    };
    const session = await post('/public/sessions', {});
    phase('create');
    const browser = await chromium.connectOverCDP(String(session.cdp_url));
    const context = browser.contexts()[0];
    const page = context?.pages()[0] ?? (await context?.newPage());
    phase('connect');
    await page?.goto(pageUrl);
    phase('goto');
    await browser.close();
    phase('disconnect');
    await post(`/public/sessions/${String(session.session_id)}/terminate`, {});
    phase('terminate');
    return performance.now() - t0;
  };

  // The pool logs each warm browser once a session can take it (src-main/browser/sessionBrowsers.ts): a warm
  // session is timed only after that line, never while its browser is still launching (a browser PROCESS being
  // up is not enough: it is there from the launch's first moment, and the ended session's is still exiting).
  const warmReady = (): number => err.match(/"msg":"warm session browser ready"/g)?.length ?? 0;
  // Warm: the pooled session browser is ready (the jobs' shared browser opens at the first job, not at start).
  await until(() => warmReady() >= 1, 'the warm session browser (its "warm session browser ready" log line)');
  // Weighed once the tree has stopped growing (helpers, the spare context's renderer): same count 2 s apart.
  for (let last = -1, now = tree(pid).length, i = 0; now !== last && i < 5; last = now, now = tree(pid).length, i += 1)
    await sleep(2_000);
  const warmWeight = weigh(pid);
  const warm: number[] = [];
  await lifecycle(); // untimed warm-up
  for (let i = 0; i < RUNS; i += 1) {
    // The pool refills between sessions (a new browser per session), well inside the idle period: each
    // session so far took a warm browser, and its replacement is ready.
    await until(() => warmReady() >= i + 2, `the pool refilled (warm browser ${i + 2} ready)`);
    warm.push(await lifecycle(phases));
  }
  process.stderr.write(
    `warm lifecycle ${warm.map((v) => round(v)).join(', ')} ms (load ${load()[0]}); phases ${JSON.stringify(phases)}\n`,
  );

  // Idle: nothing in use for browsers_idle_minutes → no Chromium left.
  const idleFrom = performance.now();
  await until(() => browsers(pid).length === 0, 'the idle close');
  const closedAfterMs = performance.now() - idleFrom;
  await sleep(2_000);
  const idleWeight = weigh(pid);
  process.stderr.write(
    `idle: ${JSON.stringify(idleWeight)} (closed ${round(closedAfterMs / 1000)} s after the last session)\n`,
  );

  // Cold: the first session after each idle close launches its own browser.
  const cold: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    await until(() => browsers(pid).length === 0, 'the idle close');
    cold.push(await lifecycle());
  }
  process.stderr.write(`cold lifecycle ${cold.map((v) => round(v)).join(', ')} ms (load ${load()[0]})\n`);

  const results = {
    bench: 'idle',
    date: new Date().toISOString(),
    target:
      'whole-tree PSS after the idle period ≤ 200 MB; session lifecycle (create → connect → goto → terminate) warm ≤ 260 ms p50',
    runs: RUNS,
    browsers_idle_minutes: IDLE_MINUTES,
    warm: { ...warmWeight, note: "one pooled session browser up (the jobs' shared browser opens at the first job)" },
    after_idle: { ...idleWeight, closed_after_s: round(closedAfterMs / 1000) },
    session_lifecycle_ms: {
      warm_p50: round(median(warm)),
      cold_p50: round(median(cold)),
      warm: warm.map((v) => round(v)),
      warm_phases_p50: Object.fromEntries(Object.entries(phases).map(([name, times]) => [name, round(median(times))])),
      warm_phases_note:
        'create: POST /public/sessions; connect: connectOverCDP and its page; goto; disconnect: the client closing its connection; terminate: POST …/terminate (the browser has exited and its folder is removed when it answers)',
      cold: cold.map((v) => round(v)),
      cold_note: 'the first session after an idle close: its own Chromium launched, the pool refilled behind it',
    },
    machine: {
      cpus: cpus().length,
      platform: process.platform,
      node: process.version,
      load_average_at_start: loadAtStart,
      load_average_at_end: load(),
      note: "a 2-core machine shared with other engineers' tests while measured",
    },
  };
  writeFileSync(join(benchDir, 'results', 'idle.json'), `${JSON.stringify(results, null, 2)}\n`);
  process.stderr.write(
    `${JSON.stringify({ tree_pss_idle_mib: idleWeight.tree_pss_mib, tree_pss_warm_mib: warmWeight.tree_pss_mib, warm_p50: results.session_lifecycle_ms.warm_p50, cold_p50: results.session_lifecycle_ms.cold_p50 })}\n`,
  );
} finally {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child?.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  pages.close();
  await rm(dataDir, { recursive: true, force: true });
}
