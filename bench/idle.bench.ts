// Idle weight (issue 25): `node src-main/serve.ts` as a user runs it (session pool of 1; the jobs' shared browser opens at the first job)
// with settings.json's browsers_idle_minutes set short (BENCH_IDLE_MINUTES, default 0.5 = 30 s: long enough for the pool to refill between warm sessions on a loaded machine) so the idle
// period passes during the bench. Measured: the service's RSS and the whole process tree's PSS (the service
// and every process under it — Chromium and its helpers — from /proc/<pid>/smaps_rollup) while warm and
// after the idle close; the session lifecycle (create → connectOverCDP → goto → terminate) p50 with the
// pool warm, and cold (the first session after an idle close). Target: tree PSS after the idle period
// ≤ 200 MB; warm lifecycle ≤ 260 ms p50. BENCH_RUNS (default 5; `--quick` 3). Results: bench/results/idle.json
// with the load average.
// The comparator, interleaved with the warm sessions in the same run: a plain Chromium already running (the
// session browser's flags, `--remote-debugging-port=0`), the same client connecting, going to the page and
// disconnecting. Each phase also gets the CPU it took (/proc schedstat, every thread): the service process,
// the session's browser, the pool's refill launch, the client; and one untimed lifecycle on each side goes
// through a counting relay, for the CDP messages of each phase. BENCH_WARM_ONLY=1: no idle and cold part.
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { machineFacts, median } from './lib.ts';
import { SERVICE_NODE_FLAGS } from '../scripts/serviceFlags.mjs';
import { readConfig } from '../src-main/base/config.ts';
import {
  chromiumArgs,
  findChromium,
  needsNoSandbox,
  systemChromiumHost,
} from '../src-main/browser/chromiumDiscovery.ts';
import { acceptWebSocket, connectWebSocket } from '../src-main/browser/webSocketPeer.ts';

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

/** CPU (ms) every thread of `pid` has run (/proc/<pid>/task/<tid>/schedstat, ns); 0 when it is gone. */
function cpuMs(pid: number): number {
  let ns = 0;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0] ?? 0);
      } catch {
        // thread gone
      }
    }
  } catch {
    // process gone
  }
  return ns / 1e6;
}

/** A process's group (a session browser is spawned detached: its group is its pid, helpers included). */
function pgrp(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
  } catch {
    return -1;
  }
}

/** CPU (ms) so far of each process group under `root` (`root` itself as 'service'); exited processes are not counted. */
function cpuByGroup(root: number): Map<number | 'service', number> {
  const out = new Map<number | 'service', number>();
  for (const p of tree(root)) {
    const key = p === root ? 'service' : pgrp(p);
    out.set(key, (out.get(key) ?? 0) + cpuMs(p));
  }
  return out;
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

/** The comparator: a plain Chromium already running, with the session browser's own flags, on a TCP DevTools port. */
async function plainChromium(): Promise<{ pid: number; endpoint: string; stop(): Promise<void> }> {
  const config = readConfig(process.env);
  const host = systemChromiumHost();
  const profile = await mkdtemp(join(tmpdir(), 'portico-bench-plain-'));
  const spawned = spawn(
    findChromium(host, { envPath: config.chromiumPath }),
    [
      ...chromiumArgs({ noSandbox: needsNoSandbox(host.platform, config.chromiumNoSandbox, process.getuid?.()) }),
      '--headless',
      '--remote-debugging-port=0',
      `--user-data-dir=${profile}`,
      '--window-size=1280,887',
      '--screen-info={1280x800}',
      '--disable-infobars',
      '--no-default-browser-check',
      '--disable-features=Translate,MediaRouter',
      '--password-store=basic',
      '--use-mock-keychain',
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], detached: true },
  );
  let text = '';
  spawned.stderr?.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  await until(() => /DevTools listening on (ws:\S+)/.test(text), 'the plain Chromium');
  const endpoint = /DevTools listening on (ws:\S+)/.exec(text)?.[1] ?? '';
  return {
    pid: spawned.pid as number,
    endpoint,
    stop: async () => {
      const exited = new Promise((resolve) => spawned.once('exit', resolve));
      process.kill(-(spawned.pid as number), 'SIGKILL');
      await exited;
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * A relay between the client and a CDP URL that counts the messages each way (by phase, and the client's
 * commands by method): run on one untimed lifecycle per side, as it adds a hop.
 */
interface Relay {
  url: string;
  counts: Record<string, { sent: number; received: number }>;
  methods: Record<string, number>;
  phase: { name: string };
  close(): void;
}
/** The last relay countingRelay opened (the lifecycle that used it has its counts). */
let lastRelay: Relay | undefined;

async function countingRelay(target: string): Promise<Relay> {
  const counts: Record<string, { sent: number; received: number }> = {};
  const methods: Record<string, number> = {};
  const phase = { name: 'connect' };
  const bump = (way: 'sent' | 'received'): void => {
    counts[phase.name] ??= { sent: 0, received: 0 };
    (counts[phase.name] as { sent: number; received: number })[way] += 1;
  };
  const relay = createServer((_req, res) => res.writeHead(404).end());
  relay.on('upgrade', (request, socket, head) => {
    const client = acceptWebSocket(request, socket, head);
    if (!client) return;
    const early: string[] = [];
    let upstream: Awaited<ReturnType<typeof connectWebSocket>> | undefined;
    client.onMessage = (text) => {
      bump('sent');
      const method = /"method":"([^"]+)"/.exec(text)?.[1] ?? '?';
      methods[method] = (methods[method] ?? 0) + 1;
      if (upstream) upstream.send(text);
      else early.push(text);
    };
    client.onClose = () => upstream?.close();
    void connectWebSocket(target, { timeoutMs: 10_000 }).then((opened) => {
      upstream = opened;
      opened.onMessage = (text) => {
        bump('received');
        client.send(text);
      };
      opened.onClose = () => client.close();
      for (const text of early.splice(0)) opened.send(text);
    });
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const path = new URL(target).pathname;
  lastRelay = {
    url: `ws://127.0.0.1:${(relay.address() as AddressInfo).port}${path}`,
    counts,
    methods,
    phase,
    close: () => relay.close(),
  };
  return lastRelay;
}

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
  type Phase = 'create' | 'connect' | 'goto' | 'disconnect' | 'terminate';
  const newPhases = (): Record<Phase, number[]> => ({
    create: [],
    connect: [],
    goto: [],
    disconnect: [],
    terminate: [],
  });
  /** Each phase's time of the lifecycles timed so far, by phase (ms). */
  const phases = newPhases();
  /** The comparator's (a plain Chromium already running: connect, goto, disconnect). */
  const plainPhases = newPhases();
  /** CPU (ms) each part used in each phase: Portico's side and the comparator's. */
  const cpu: Record<string, Record<Phase, number[]>> = {
    service: newPhases(),
    session_browser: newPhases(),
    refill_launch: newPhases(),
    client: newPhases(),
    plain_browser: newPhases(),
    plain_client: newPhases(),
  };
  const clientCpu = (): number => {
    const used = process.cpuUsage();
    return (used.user + used.system) / 1000;
  };
  /** Times phases (and, with `cpuParts`, the CPU of each part in each) of one lifecycle. */
  const phaser = (into: Record<Phase, number[]> | undefined, cpuParts?: () => Record<string, number>) => {
    let cpuBefore = cpuParts?.();
    let last = performance.now();
    return (name: Phase, relay?: { phase: { name: string } }, next?: Phase): void => {
      into?.[name].push(round(performance.now() - last));
      if (cpuParts && into) {
        const now = cpuParts();
        for (const [part, used] of Object.entries(now)) cpu[part]?.[name].push(round(used - (cpuBefore?.[part] ?? 0)));
        cpuBefore = now;
      }
      if (relay && next) relay.phase.name = next;
      last = performance.now();
    };
  };
  /** What the client does on either side (Portico's session, the plain Chromium): connect, its page, goto, disconnect. */
  const asClient = async (url: string, phase: ReturnType<typeof phaser>, counted: Relay | undefined): Promise<void> => {
    const browser = await chromium.connectOverCDP(url);
    const context = browser.contexts()[0];
    const page = context?.pages()[0] ?? (await context?.newPage());
    phase('connect', counted, 'goto');
    await page?.goto(pageUrl);
    phase('goto', counted, 'disconnect');
    await browser.close();
  };
  /** One session's life as a client lives it; milliseconds (`into`: where its phases go; `relay`: counts its messages). */
  const lifecycle = async (into?: typeof phases, relay?: (url: string) => Promise<Relay>): Promise<number> => {
    const t0 = performance.now();
    // The pooled browser this session takes; any other browser group that runs during it is the refill.
    const pooled = browsers(pid);
    const parts = (): Record<string, number> => {
      const split = { service: 0, session_browser: 0, refill_launch: 0, client: clientCpu() };
      for (const [group, used] of cpuByGroup(pid)) {
        if (group === 'service') split.service += used;
        else if (pooled.includes(group)) split.session_browser += used;
        else split.refill_launch += used;
      }
      return split;
    };
    const phase = phaser(into, into && parts);
    const session = await post('/public/sessions', {});
    const counted = relay && (await relay(String(session.cdp_url)));
    phase('create', counted, 'connect');
    await asClient(counted?.url ?? String(session.cdp_url), phase, counted);
    phase('disconnect', counted, 'terminate');
    await post(`/public/sessions/${String(session.session_id)}/terminate`, {});
    phase('terminate');
    counted?.close();
    return performance.now() - t0;
  };
  /** The comparator's life: the same client on a plain Chromium already running. */
  const plainLifecycle = async (
    plain: { pid: number; endpoint: string },
    into?: typeof phases,
    relay?: (url: string) => Promise<Relay>,
  ): Promise<number> => {
    const t0 = performance.now();
    const parts = (): Record<string, number> => ({
      plain_browser: tree(plain.pid).reduce((sum, p) => sum + cpuMs(p), 0),
      plain_client: clientCpu(),
    });
    const counted = relay && (await relay(plain.endpoint));
    const phase = phaser(into, into && parts);
    await asClient(counted?.url ?? plain.endpoint, phase, counted);
    phase('disconnect');
    counted?.close();
    return performance.now() - t0;
  };

  // The pool logs each warm browser once a session can take it (src-main/browser/sessionBrowsers.ts): a warm
  // session is timed only after that line, never while its browser is still launching (a browser PROCESS being
  // up is not enough: it is there from the launch's first moment, and the ended session's is still exiting).
  const warmReady = (): number => err.match(/"msg":"warm session browser ready"/g)?.length ?? 0;
  const idleCloses = (): number => err.match(/"msg":"warm browsers closed/g)?.length ?? 0;
  // Warm: the pooled session browser is ready (the jobs' shared browser opens at the first job, not at start).
  await until(() => warmReady() >= 1, 'the warm session browser (its "warm session browser ready" log line)');
  // Weighed once the tree has stopped growing (helpers, the spare context's renderer): same count 2 s apart.
  for (let last = -1, now = tree(pid).length, i = 0; now !== last && i < 5; last = now, now = tree(pid).length, i += 1)
    await sleep(2_000);
  const warmWeight = weigh(pid);
  const warm: number[] = [];
  const plainTimes: number[] = [];
  await lifecycle(); // untimed warm-up
  // One untimed lifecycle each through the counting relay: the CDP messages of each phase.
  await until(() => warmReady() >= 2, 'the pool refilled (warm browser 2 ready)');
  const porticoRelay = await lifecycle(undefined, countingRelay).then(() => lastRelay);
  let plain = await plainChromium();
  await sleep(1_000);
  await plainLifecycle(plain); // the comparator's untimed warm-up
  await plainLifecycle(plain, undefined, countingRelay);
  const plainRelay = lastRelay;
  await plain.stop();
  let ready = 3;
  for (let i = 0; i < RUNS; i += 1) {
    // The comparator's browser is started first (untimed), so it and the pool's refill have both settled
    // when either side is timed; the pool refills between sessions (a new browser per session), well inside
    // the idle period: each session so far took a warm browser, and its replacement is ready.
    plain = await plainChromium();
    await until(() => warmReady() >= ready, `the pool refilled (warm browser ${ready} ready)`);
    await sleep(1_000);
    plainTimes.push(await plainLifecycle(plain, plainPhases));
    await plain.stop();
    warm.push(await lifecycle(phases));
    ready += 1;
  }
  const p50s = (byPhase: Record<Phase, number[]>) =>
    Object.fromEntries(
      Object.entries(byPhase)
        .filter(([, times]) => times.length > 0)
        .map(([name, times]) => [name, round(median(times))]),
    );
  const cpuP50 = Object.fromEntries(Object.entries(cpu).map(([part, byPhase]) => [part, p50s(byPhase)]));
  process.stderr.write(
    `warm lifecycle ${warm.map((v) => round(v)).join(', ')} ms (load ${load()[0]}); phases ${JSON.stringify(phases)}\n` +
      `plain Chromium already running ${plainTimes.map((v) => round(v)).join(', ')} ms; phases ${JSON.stringify(plainPhases)}\n` +
      `cpu ms p50 by part and phase ${JSON.stringify(cpuP50)}\n` +
      `CDP messages by phase: portico ${JSON.stringify(porticoRelay?.counts)}, plain ${JSON.stringify(plainRelay?.counts)}\n`,
  );

  // Idle: nothing in use for browsers_idle_minutes → no Chromium left. BENCH_WARM_ONLY=1 (comparing builds):
  // the warm part alone, printed, not written.
  if (process.env.BENCH_WARM_ONLY !== '1') {
    const idleFrom = performance.now();
    // The idle close is its log line, then no browser left: a moment with none (the ended session's browser
    // gone, the pool's refill not spawned yet: it starts once a session got going or ended) is not one.
    await until(() => idleCloses() >= 1 && browsers(pid).length === 0, 'the idle close');
    const closedAfterMs = performance.now() - idleFrom;
    await sleep(2_000);
    const idleWeight = weigh(pid);
    process.stderr.write(
      `idle: ${JSON.stringify(idleWeight)} (closed ${round(closedAfterMs / 1000)} s after the last session)\n`,
    );

    // Cold: the first session after each idle close launches its own browser.
    const cold: number[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      await until(() => idleCloses() >= i + 1 && browsers(pid).length === 0, `idle close ${i + 1}`);
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
        warm_phases_p50: p50s(phases),
        warm_phases_note:
          'create: POST /public/sessions; connect: connectOverCDP and its page; goto; disconnect: the client closing its connection; terminate: POST …/terminate (the browser has exited and its folder is removed when it answers)',
        comparator_p50: round(median(plainTimes)),
        comparator: plainTimes.map((v) => round(v)),
        comparator_phases_p50: p50s(plainPhases),
        comparator_note:
          'a plain Chromium already running (the session browser flags, a TCP DevTools port), started before the timed run and settled; the same client connects, goes to the page, disconnects; interleaved with the warm sessions',
        cpu_ms_p50: cpuP50,
        cpu_note:
          'CPU per phase (/proc schedstat of every thread): service = the service process (its proxy, its own Playwright, the API); session_browser = the taken browser’s processes; refill_launch = other browser processes under the service (the pool’s refill); client = the bench’s Playwright; plain_* = the comparator’s. Processes that exited during a phase are not counted',
        cdp_messages: { portico: porticoRelay?.counts, plain: plainRelay?.counts },
        cdp_client_commands: { portico: porticoRelay?.methods, plain: plainRelay?.methods },
        cold: cold.map((v) => round(v)),
        cold_note: 'the first session after an idle close: its own Chromium launched, the pool refilled behind it',
      },
      machine: machineFacts(loadAtStart),
    };
    writeFileSync(join(benchDir, 'results', 'idle.json'), `${JSON.stringify(results, null, 2)}\n`);
    process.stderr.write(
      `${JSON.stringify({ tree_pss_idle_mib: idleWeight.tree_pss_mib, tree_pss_warm_mib: warmWeight.tree_pss_mib, warm_p50: results.session_lifecycle_ms.warm_p50, cold_p50: results.session_lifecycle_ms.cold_p50 })}\n`,
    );
  }
} finally {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child?.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  pages.close();
  await rm(dataDir, { recursive: true, force: true });
}
