// Start-up (issue 25): `node src-main/serve.ts` from spawn to its `listening on` line, warm (dependencies
// installed, the data folder made by an untimed first start), and the service process's RSS once idle;
// against a bare Fastify 5 server (bench/apiServers.ts bare) started the same way, in the same run.
// Targets: start ≤ 500 ms, idle RSS ≤ 120 MB. BENCH_RUNS (default 5) alternations; BENCH_IDLE_MS (3000)
// before RSS is read. Results: bench/results/startup.json with the load average.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './lib.ts';

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

interface Started {
  child: ChildProcess;
  ms: number;
}

/** Spawns `args` and resolves when stdout prints a line matching `ready`, with the time it took. */
function start(args: string[], ready: RegExp, env: NodeJS.ProcessEnv = process.env): Promise<Started> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'ignore'], env, cwd: root });
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (ready.test(out)) resolve({ child, ms: performance.now() - t0 });
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
// The browser is warmed after `listening` and is its own process: the service's own start and RSS are measured.
const serveArgs = [join(root, 'src-main/serve.ts'), '--port', String(port), '--data-dir', dataDir];
const loadAtStart = load();
try {
  // First start: migrations, keys, samples (untimed).
  await stop((await start(serveArgs, /listening on/)).child);
  const portico: { ms: number; rss: number }[] = [];
  const bare: { ms: number; rss: number }[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    const p = await start(serveArgs, /listening on/);
    await sleep(IDLE_MS);
    portico.push({ ms: round(p.ms), rss: rssMiB(p.child.pid) });
    await stop(p.child);
    const b = await start([join(benchDir, 'apiServers.ts'), 'bare', bodies], /"url"/);
    await sleep(IDLE_MS);
    bare.push({ ms: round(b.ms), rss: rssMiB(b.child.pid) });
    await stop(b.child);
    process.stderr.write(
      `run ${run + 1}/${RUNS}: portico ${portico.at(-1)?.ms} ms ${portico.at(-1)?.rss} MiB, bare ${bare.at(-1)?.ms} ms ${bare.at(-1)?.rss} MiB (load ${load()[0]})\n`,
    );
  }
  const results = {
    bench: 'startup',
    date: new Date().toISOString(),
    target: 'spawn → listening ≤ 500 ms warm; service RSS idle ≤ 120 MB',
    runs: RUNS,
    idle_ms_before_rss: IDLE_MS,
    portico: {
      start_to_listening_ms_median: median(portico.map((r) => r.ms)),
      rss_idle_mib_median: median(portico.map((r) => r.rss)),
      samples: portico,
    },
    bare_fastify: {
      start_to_listening_ms_median: median(bare.map((r) => r.ms)),
      rss_idle_mib_median: median(bare.map((r) => r.rss)),
      samples: bare,
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
  writeFileSync(join(benchDir, 'results', 'startup.json'), `${JSON.stringify(results, null, 2)}\n`);
  process.stderr.write(
    `${JSON.stringify({ portico: results.portico.start_to_listening_ms_median, portico_rss: results.portico.rss_idle_mib_median, bare: results.bare_fastify.start_to_listening_ms_median, bare_rss: results.bare_fastify.rss_idle_mib_median })}\n`,
  );
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
