// API throughput (issue 25): Portico's `GET /portals/{org}` (20 portals, some with skills) and
// `GET /task/…/status` of a finished job with 30 events, against a bare Fastify 5 route returning the
// same JSON, driven by the same client (autocannon, 10 connections, keep-alive) in the same run, the
// two servers alternating, each in its own process. Results: bench/results/api.json with the load
// average at every measurement. The target: Portico ≥ 0.5× bare Fastify's requests per second, p99 ≤ 2×.
//
// BENCH_RUNS (default 3) alternations of BENCH_SECONDS (default 5) each; `--quick` is 1 × 2 s.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import yazl from 'yazl';
import { newId } from '../src-main/base/ids.ts';
import { openStore } from '../src-main/store/store.ts';
import { machineFacts, median } from './lib.ts';

const benchDir = dirname(fileURLToPath(import.meta.url));
const QUICK = process.argv.includes('--quick');
const RUNS = QUICK ? 1 : Number(process.env.BENCH_RUNS ?? 3);
const SECONDS = QUICK ? 2 : Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const WARMUP_SECONDS = QUICK ? 1 : Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const round = (value: number, digits = 2): number => Math.round(value * 10 ** digits) / 10 ** digits;
const load = (): number[] => loadavg().map((l) => round(l));

interface Server {
  url: string;
  key?: string;
  child: ChildProcess;
}

/** Starts `node bench/apiServers.ts <args>` and waits for its one JSON line. */
function startServer(args: string[]): Promise<Server> {
  return new Promise((resolve, reject) => {
    // BENCH_PORTICO_NODE_ARGS / BENCH_BARE_NODE_ARGS: extra Node flags for either server (e.g. --cpu-prof to see where its time goes).
    const nodeArgs = (
      (args[0] === 'portico' ? process.env.BENCH_PORTICO_NODE_ARGS : process.env.BENCH_BARE_NODE_ARGS) ?? ''
    )
      .split(' ')
      .filter(Boolean);
    const child = spawn(process.execPath, [...nodeArgs, join(benchDir, 'apiServers.ts'), ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) resolve({ ...(JSON.parse(line) as { url: string; key?: string }), child });
    });
    child.on('exit', (code) => reject(new Error(`bench server ${args[0]} exited (${code}) before listening`)));
  });
}

async function stop(server: Server): Promise<void> {
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  await exited;
}

function skillZip(name: string): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  zip.addBuffer(
    Buffer.from(
      `---\nname: ${name}\ndescription: How to handle ${name} widgets on government forms\n---\n# ${name}\n\nSteps.\n`,
    ),
    'SKILL.md',
  );
  zip.end();
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    zip.outputStream
      .on('data', (c: Buffer) => chunks.push(c))
      .on('end', () => resolve(Buffer.concat(chunks)))
      .on('error', reject);
  });
}

/** A realistic portal: an 8-field form schema, an output schema, humanized URLs; every other one with two skills. */
function portalBody(i: number, skillIds: string[]): Record<string, unknown> {
  return {
    endpoint_name: `permit-${String(i).padStart(2, '0')}`,
    start_url: `https://permits.example.gov/apply/${i}`,
    task: `Fill in the permit application number ${i} with the applicant's details and submit it; report the confirmation number.`,
    form_schema: {
      type: 'object',
      required: ['first_name', 'last_name', 'email'],
      properties: {
        first_name: { type: 'string', title: 'First name', maxLength: 100 },
        last_name: { type: 'string', title: 'Last name', maxLength: 100 },
        email: { type: 'string', format: 'email', title: 'Email address' },
        phone: { type: 'string', title: 'Phone number', pattern: '^[0-9 +()-]{7,20}$' },
        date_of_birth: { type: 'string', format: 'date', title: 'Date of birth' },
        permit_type: {
          type: 'string',
          enum: ['residential', 'commercial', 'event', 'temporary'],
          title: 'Permit type',
        },
        guests: { type: 'integer', minimum: 0, maximum: 500, title: 'Expected guests' },
        notes: { type: 'string', title: 'Anything else we should know?' },
      },
    },
    output_schema: {
      type: 'object',
      properties: { confirmation_number: { type: 'string' }, submitted_at: { type: 'string' } },
    },
    humanized_urls: ['https://permits.example.gov/*'],
    ...(i % 2 === 0 && { skill_ids: skillIds }),
  };
}

async function seed(dataDir: string, portico: Server): Promise<{ portalsPath: string; statusPath: string }> {
  const headers = { 'x-api-key': String(portico.key) };
  const skillIds: string[] = [];
  for (const name of ['date-pickers', 'address-lookup']) {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(await skillZip(name))], { type: 'application/zip' }), `${name}.zip`);
    const res = await fetch(`${portico.url}/skills/default?folder=widgets`, { method: 'POST', headers, body: form });
    if (!res.ok) throw new Error(`skill upload: ${res.status} ${await res.text()}`);
    skillIds.push(String(((await res.json()) as { id: string }).id));
  }
  for (let i = 0; i < 20; i += 1) {
    const res = await fetch(`${portico.url}/portals/default`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(portalBody(i, skillIds)),
    });
    if (!res.ok) throw new Error(`portal create: ${res.status} ${await res.text()}`);
  }
  // A finished job with 30 events, written as a run writes them (the store's own checks on every event).
  const store = openStore(join(dataDir, 'portico.db'));
  try {
    const portal = store.portals.get('default', 'permit-00');
    if (!portal) throw new Error('seeded portal missing');
    const jobId = newId();
    store.jobs.insert({
      id: jobId,
      org_id: 'default',
      endpoint_name: 'permit-00',
      portal_id: portal.id,
      portal: {
        start_url: portal.start_url,
        task: portal.task,
        form_schema: portal.form_schema,
        output_schema: portal.output_schema,
        humanized_urls: portal.humanized_urls,
        webhook_url: null,
        skill_ids: portal.skill_ids,
      },
      options: {
        form_data: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' },
        document_bundle_id: null,
        max_turns: 30,
        timeout_minutes: 10,
        save_profile: false,
        human_in_the_loop: false,
        proxy: null,
      },
      orchestrator_model: 'builtin:autofill',
      vision_model: 'builtin:autofill',
      profile_id: null,
      view_token: newId(),
    });
    store.jobs.appendEvent(jobId, 'queued', {
      form_data: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' },
      hidden_keys: [],
      max_turns: 30,
      timeout_minutes: 10,
      human_in_the_loop: false,
    });
    store.jobs.appendEvent(jobId, 'agent_mode', {
      mode: 'autofill',
      detail: 'builtin:autofill: rules first, no model',
    });
    for (let step = 1; step <= 28; step += 1) {
      store.jobs.appendEvent(jobId, 'step', {
        step,
        description: `Filled field ${step} of the permit application ('First name' ← first_name) and checked it reads back as typed`,
      });
    }
    store.jobs.move(jobId, ['queued'], 'running', { started_at: new Date().toISOString() });
    store.jobs.move(jobId, ['running'], 'completed', {
      completed_at: new Date().toISOString(),
      steps: 28,
      result: { confirmation_number: 'PRM-2026-004211', submitted_at: '2026-11-27T09:00:00Z' },
    });
    return { portalsPath: '/portals/default', statusPath: `/task/default/permit-00/status?job_id=${jobId}` };
  } finally {
    store.close();
  }
}

/** CPU seconds (user + system) from a /proc stat file (Linux); NaN elsewhere. */
function statCpu(file: string, systemOnly = false): number {
  try {
    const fields = readFileSync(file, 'utf8')
      .replace(/^.*\) /, '')
      .split(' ');
    // utime, stime in clock ticks (USER_HZ 100)
    return ((systemOnly ? 0 : Number(fields[11])) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/** CPU seconds a process has used: all its threads, and its main (JavaScript) thread alone. */
function cpuSeconds(pid: number | undefined): { all: number; main: number; system: number } {
  return {
    all: statCpu(`/proc/${pid}/stat`),
    main: statCpu(`/proc/${pid}/task/${pid}/stat`),
    system: statCpu(`/proc/${pid}/stat`, true),
  };
}

interface Measured {
  requests_per_s: number;
  /** The server's CPU time per answered request: what decides throughput when CPU is the limit, and far less
   * sensitive than req/s to other work on a shared machine. */
  cpu_us_per_request: number;
  /** The same for the JavaScript thread alone (the rest is V8's GC and compiler threads, and libuv's). */
  main_thread_cpu_us_per_request: number;
  /** Of all threads' CPU, the part spent in the kernel (sockets). */
  system_cpu_us_per_request: number;
  latency_p50_ms: number;
  latency_p99_ms: number;
  non_2xx: number;
  errors: number;
  load_average: number[];
}

async function hammer(server: Server, path: string, headers: Record<string, string>): Promise<Measured> {
  const cpuBefore = cpuSeconds(server.child.pid);
  const result = await autocannon({
    url: `${server.url}${path}`,
    connections: CONNECTIONS,
    duration: SECONDS,
    headers,
  });
  const cpuAfter = cpuSeconds(server.child.pid);
  const requests = Math.max(1, result.requests.total);
  return {
    requests_per_s: round(result.requests.average, 0),
    cpu_us_per_request: round(((cpuAfter.all - cpuBefore.all) * 1e6) / requests, 0),
    main_thread_cpu_us_per_request: round(((cpuAfter.main - cpuBefore.main) * 1e6) / requests, 0),
    system_cpu_us_per_request: round(((cpuAfter.system - cpuBefore.system) * 1e6) / requests, 0),
    latency_p50_ms: round(result.latency.p50),
    latency_p99_ms: round(result.latency.p99),
    non_2xx: result.non2xx,
    errors: result.errors,
    load_average: load(),
  };
}

const dataDir = await mkdtemp(join(tmpdir(), 'portico-bench-api-'));
const bodiesFile = join(dataDir, 'bare-bodies.json');
const loadAtStart = load();
let portico: Server | undefined;
let bare: Server | undefined;
try {
  portico = await startServer(['portico', dataDir]);
  const { portalsPath, statusPath } = await seed(dataDir, portico);
  const headers = { 'x-api-key': String(portico.key) };
  // The bare server answers the exact bodies Portico answers (fetched once), at the same paths.
  const bodies: Record<string, unknown> = {};
  const sizes: Record<string, number> = {};
  // The first response of each route in this process: it compiles the route's serializer.
  const firstResponse: Record<string, { wall_ms: number; cpu_ms: number }> = {};
  for (const [name, path] of [
    ['portals', portalsPath],
    ['status', statusPath],
  ] as const) {
    const cpuBefore = cpuSeconds(portico.child.pid).all;
    const started = performance.now();
    const res = await fetch(`${portico.url}${path}`, { headers });
    const text = await res.text();
    const first = {
      wall_ms: round(performance.now() - started, 1),
      cpu_ms: round((cpuSeconds(portico.child.pid).all - cpuBefore) * 1000, 0),
    };
    firstResponse[name] = first;
    process.stderr.write(`first ${name} response: ${first.wall_ms} ms, ${first.cpu_ms} ms CPU (load ${load()[0]})\n`);
    if (!res.ok) throw new Error(`${path}: ${res.status} ${text}`);
    bodies[path.split('?')[0] ?? path] = JSON.parse(text);
    sizes[name] = Buffer.byteLength(text);
  }
  writeFileSync(bodiesFile, JSON.stringify(bodies));
  if (process.env.BENCH_KEEP_BODIES) writeFileSync(process.env.BENCH_KEEP_BODIES, JSON.stringify(bodies));
  bare = await startServer(['bare', bodiesFile]);
  for (const path of [portalsPath, statusPath]) {
    const mine = await (await fetch(`${portico.url}${path}`, { headers })).json();
    const theirs = await (await fetch(`${bare.url}${path}`)).json();
    if (JSON.stringify(mine) !== JSON.stringify(theirs))
      throw new Error(`${path}: the bare server does not answer the same JSON`);
  }

  // BENCH_ROUTES=portals (or status) measures one of the two.
  const only = process.env.BENCH_ROUTES?.split(',');
  const routes = Object.fromEntries(
    Object.entries({ portals: portalsPath, status: statusPath }).filter(([name]) => !only || only.includes(name)),
  ) as { portals: string; status: string };
  const samples: Record<string, { portico: Measured[]; bare: Measured[] }> = Object.fromEntries(
    Object.keys(routes).map((name) => [name, { portico: [], bare: [] }]),
  );
  // One warm-up of each (JIT, SQLite page cache), untimed: BENCH_WARMUP_SECONDS (3; 1 left Portico's first
  // measured run 20-50% above its second, still compiling).
  for (const path of Object.values(routes)) {
    await autocannon({ url: `${portico.url}${path}`, connections: CONNECTIONS, duration: WARMUP_SECONDS, headers });
    await autocannon({ url: `${bare.url}${path}`, connections: CONNECTIONS, duration: WARMUP_SECONDS });
  }
  for (let run = 0; run < RUNS; run += 1) {
    for (const [name, path] of Object.entries(routes)) {
      const entry = samples[name];
      if (!entry) continue;
      entry.portico.push(await hammer(portico, path, headers));
      entry.bare.push(await hammer(bare, path, {}));
      const [p, b] = [entry.portico.at(-1), entry.bare.at(-1)];
      process.stderr.write(
        `run ${run + 1}/${RUNS} ${name}: portico ${p?.requests_per_s} req/s ${p?.cpu_us_per_request} µs CPU/req (${p?.main_thread_cpu_us_per_request} main, ${p?.system_cpu_us_per_request} sys), bare ${b?.requests_per_s} req/s ${b?.cpu_us_per_request} µs CPU/req (${b?.main_thread_cpu_us_per_request} main, ${b?.system_cpu_us_per_request} sys) (load ${load()[0]})\n`,
      );
    }
  }
  const summary = (list: Measured[]) => ({
    requests_per_s_median: median(list.map((m) => m.requests_per_s)),
    latency_p50_ms_median: median(list.map((m) => m.latency_p50_ms)),
    latency_p99_ms_median: median(list.map((m) => m.latency_p99_ms)),
    cpu_us_per_request_median: median(list.map((m) => m.cpu_us_per_request)),
  });
  const results = {
    bench: 'api',
    date: new Date().toISOString(),
    target: 'Portico ≥ 0.5× the requests/s of a bare Fastify 5 route returning the same JSON; p99 ≤ 2× bare',
    client: `autocannon, ${CONNECTIONS} connections, keep-alive, ${SECONDS} s per measurement, ${RUNS} alternations`,
    body_bytes: sizes,
    // Each route's first response after the start (compiles its serializer); CPU from /proc, 10 ms ticks.
    first_response: firstResponse,
    routes: Object.fromEntries(
      Object.entries(samples).map(([name, entry]) => {
        const p = summary(entry.portico);
        const b = summary(entry.bare);
        return [
          name,
          {
            path: String(routes[name as keyof typeof routes]).replace(/job_id=.*/, 'job_id=…'),
            portico: p,
            bare_fastify: b,
            ratio_requests_per_s: round(p.requests_per_s_median / b.requests_per_s_median),
            ratio_p99: round(p.latency_p99_ms_median / b.latency_p99_ms_median),
            // Bare CPU per request over Portico's: the throughput ratio a CPU-bound server would reach.
            ratio_cpu_per_request: round(b.cpu_us_per_request_median / p.cpu_us_per_request_median),
            runs: entry,
          },
        ];
      }),
    ),
    machine: machineFacts(loadAtStart),
  };
  writeFileSync(join(benchDir, 'results', 'api.json'), `${JSON.stringify(results, null, 2)}\n`);
  process.stderr.write(
    `${JSON.stringify(Object.fromEntries(Object.entries(results.routes).map(([n, r]) => [n, { portico: r.portico.requests_per_s_median, bare: r.bare_fastify.requests_per_s_median, ratio: r.ratio_requests_per_s, cpu_ratio: r.ratio_cpu_per_request, p99: [r.portico.latency_p99_ms_median, r.bare_fastify.latency_p99_ms_median] }])))}\n`,
  );
} finally {
  if (bare) await stop(bare);
  if (portico) await stop(portico);
  if (process.env.BENCH_KEEP_DATA) process.stderr.write(`kept ${dataDir}\n`);
  else await rm(dataDir, { recursive: true, force: true });
}
