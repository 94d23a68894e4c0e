// Start-up (issue 25): `node src-main/serve.ts` from spawn to its `listening on` line, warm (dependencies
// installed, the data folder made by an untimed first start), and the service process's RSS once idle;
// against a bare Fastify 5 server (bench/apiServers.ts bare) started the same way, in the same run.
// Targets: start ≤ 500 ms, idle RSS ≤ 120 MB. BENCH_RUNS (default 5) alternations; BENCH_IDLE_MS (3000)
// before RSS is read; BENCH_BASELINE=<another checkout> (e.g. a worktree of main) starts that checkout's
// scripts/serve.mjs too, in the same alternation, so a change is compared at the same load. Results:
// bench/results/startup.json with the load average.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVICE_NODE_FLAGS } from '../scripts/serviceFlags.mjs';
import { machineFacts, median } from './lib.ts';

const benchDir = dirname(fileURLToPath(import.meta.url));
const root = join(benchDir, '..');
const RUNS = process.argv.includes('--quick') ? 2 : Number(process.env.BENCH_RUNS ?? 5);
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 3000);
const round = (value: number, digits = 1): number => Math.round(value * 10 ** digits) / 10 ** digits;
const load = (): number[] => loadavg().map((l) => round(l, 2));
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function rssMiB(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return round(Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? Number.NaN) / 1024);
}

/** CPU time (user + system, all threads) the process has used so far, in ms. */
function cpuMs(pid: number | undefined): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}
const CLOCK_TICKS = 100;

interface Started {
  child: ChildProcess;
  ms: number;
  /** CPU time used up to the ready line: what the start costs whatever the machine's load. */
  cpuMs: number;
  /** RSS at the ready line, before anything warmed after it (Portico's browser) is loaded. */
  rssAtReady: number;
}

/** Spawns `args` and resolves when stdout prints a line matching `ready`, with the time it took. */
function start(args: string[], ready: RegExp, env: NodeJS.ProcessEnv = process.env): Promise<Started> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'ignore'], env, cwd: root });
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (ready.test(out))
        resolve({ child, ms: performance.now() - t0, cpuMs: cpuMs(child.pid), rssAtReady: rssMiB(child.pid) });
    });
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code}) before it was ready: ${out}`)));
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

const dataDir = await mkdtemp(join(tmpdir(), 'portico-bench-startup-'));
const bodies = join(dataDir, 'hello.json');
writeFileSync(bodies, JSON.stringify({ '/hello': { hello: 'world' } }));
// One port for every start, as a user's 8787 (a new port each time would re-point the sample portals at every start).
const port = await new Promise<number>((resolve) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const { port: free } = probe.address() as AddressInfo;
    probe.close(() => resolve(free));
  });
});
// The browser is warmed after `listening` (its Chromium is its own process, Playwright's client is in the service):
// RSS is read at `listening` (the service alone) and again after BENCH_IDLE_MS (with Playwright loaded by that warm-up).
// With the Node flags `npm run serve` gives it (scripts/serviceFlags.mjs).
const serveArgsOf = (checkout: string, data: string): string[] => [
  ...SERVICE_NODE_FLAGS,
  join(checkout, 'scripts/serve.mjs'),
  '--port',
  String(port),
  '--data-dir',
  data,
];
const serveArgs = serveArgsOf(root, dataDir);
const baselineDir = process.env.BENCH_BASELINE;
const baselineArgs = baselineDir ? serveArgsOf(baselineDir, join(dataDir, 'baseline')) : undefined;
const loadAtStart = load();
try {
  // First start: migrations, keys, samples (untimed).
  await stop((await start(serveArgs, /listening on/)).child);
  if (baselineArgs) await stop((await start(baselineArgs, /listening on/)).child);
  type Sample = { ms: number; cpu_ms: number; rss_at_listening: number; rss: number };
  const portico: Sample[] = [];
  const bare: Sample[] = [];
  const baseline: Sample[] = [];
  const sample = (started: Started): Sample => ({
    ms: round(started.ms),
    cpu_ms: round(started.cpuMs),
    rss_at_listening: started.rssAtReady,
    rss: rssMiB(started.child.pid),
  });
  for (let run = 0; run < RUNS; run += 1) {
    const p = await start(serveArgs, /listening on/);
    await sleep(IDLE_MS);
    portico.push(sample(p));
    await stop(p.child);
    const b = await start([join(benchDir, 'apiServers.ts'), 'bare', bodies], /"url"/);
    await sleep(IDLE_MS);
    bare.push(sample(b));
    await stop(b.child);
    if (baselineArgs) {
      const before = await start(baselineArgs, /listening on/);
      await sleep(IDLE_MS);
      baseline.push(sample(before));
      await stop(before.child);
    }
    process.stderr.write(
      `run ${run + 1}/${RUNS}: portico ${JSON.stringify(portico.at(-1))}, bare ${JSON.stringify(bare.at(-1))}${baselineArgs ? `, baseline ${JSON.stringify(baseline.at(-1))}` : ''} (load ${load()[0]})\n`,
    );
  }
  const summary = (samples: Sample[]) => ({
    start_to_listening_ms_median: median(samples.map((r) => r.ms)),
    cpu_ms_to_listening_median: median(samples.map((r) => r.cpu_ms)),
    rss_at_listening_mib_median: median(samples.map((r) => r.rss_at_listening)),
    rss_idle_mib_median: median(samples.map((r) => r.rss)),
    samples,
  });
  const results = {
    bench: 'startup',
    date: new Date().toISOString(),
    target: 'spawn → listening ≤ 500 ms warm; service RSS idle ≤ 120 MB',
    runs: RUNS,
    idle_ms_before_rss: IDLE_MS,
    portico: summary(portico),
    bare_fastify: summary(bare),
    ...(baselineDir && { baseline: { checkout: baselineDir, ...summary(baseline) } }),
    machine: machineFacts(loadAtStart),
  };
  writeFileSync(join(benchDir, 'results', 'startup.json'), `${JSON.stringify(results, null, 2)}\n`);
  process.stderr.write(
    `${JSON.stringify({ portico: results.portico, bare: results.bare_fastify, baseline: results.baseline }, (key, value) => (key === 'samples' ? undefined : value))}\n`,
  );
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
