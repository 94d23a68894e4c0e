/**
 * Under load (issue 14), side by side in one run:
 * - the service's RSS at idle, after 100k and after 1M `GET /portals/{org}`: it must level off
 *   (≤ 1.2× between the last two);
 * - `GET /portals/{org}` throughput and p99 against a bare `node:http` server sending the same bytes,
 *   same client (autocannon), same connections; the ratio is reported;
 * - a webhook's first attempt after its job's end (a real job on a local form, a real local receiver): p50/p99.
 * The service and the bare server each run in their own process (this file, `--serve` / `--bare`), so
 * the client's memory and CPU are not the service's. Writes bench/results/hostile.json.
 * Scale: `--quick` (or BENCH_HOSTILE_SCALE=0.1) runs 10k/100k requests; BENCH_HOSTILE_JOBS jobs (default 30);
 * BENCH_TRACE_GC=1 runs the service with --trace-gc (to tell V8 heap growth from a leak).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { startApp } from '../src-main/app.ts';
import { readConfig } from '../src-main/base/config.ts';
import { memorySecrets } from '../test/helpers/memorySecrets.ts';
import { BENCH_LIMITS, median } from './lib.ts';

const SELF = fileURLToPath(import.meta.url);
const SCALE = process.argv.includes('--quick') ? 0.1 : Number(process.env.BENCH_HOSTILE_SCALE ?? 1);
const FIRST_STAGE = Math.round(100_000 * SCALE);
const SECOND_STAGE = Math.round(1_000_000 * SCALE);
const CHUNKS = 10;
const CONNECTIONS = 10;
const THROUGHPUT_SECONDS = Number(process.env.BENCH_HOSTILE_SECONDS ?? 10);
const JOBS = Number(process.env.BENCH_HOSTILE_JOBS ?? 30);
const PORTALS = 5;
const REJECTED_STARTS = Math.max(600, Math.round(6000 * SCALE));
const DISTINCT_SCHEMAS = Math.max(200, Math.round(2000 * SCALE));

type ChildMessage = { ready: true; url: string; orgKey: string };

// ---- child processes -------------------------------------------------------------------------

/** `--serve <dataDir>`: Portico as `npm run serve` runs it (rate limiter on, never refusing). */
async function serveChild(dataDir: string): Promise<void> {
  const notices: string[] = [];
  const app = await startApp({
    dataDir,
    port: 0,
    rendererDir: join(dataDir, 'no-console'),
    notice: (line) => notices.push(line),
    jobConcurrency: 1,
    limits: BENCH_LIMITS,
    secrets: memorySecrets(),
    config: readConfig(process.env),
    announceConsole: false,
  });
  const orgKey = /Organization API key[^:]*:\s+(\S+)/.exec(notices.join('\n'))?.[1] ?? '';
  process.send?.({ ready: true, url: app.url, orgKey } satisfies ChildMessage);
  // The parent asks where the memory is: V8's heap, or outside it (buffers, native allocations).
  process.on('message', () => {
    const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
    process.send?.({ rss, heapUsed, heapTotal, external, arrayBuffers });
  });
  process.on('disconnect', () => {
    void app.close().finally(() => process.exit(0));
  });
}

/** `--bare <bodyFile>`: the same bytes from a bare node:http server, nothing else. */
function bareChild(bodyFile: string): void {
  const body = readFileSync(bodyFile);
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
    res.end(body);
  });
  server.listen(0, '127.0.0.1', () => {
    process.send?.({
      ready: true,
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      orgKey: '',
    } satisfies ChildMessage);
  });
  process.on('disconnect', () => server.close(() => process.exit(0)));
}

function startChild(args: string[]): Promise<{ child: ChildProcess; url: string; orgKey: string }> {
  return new Promise((resolve, reject) => {
    const child = fork(SELF, args, {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      execArgv: process.env.BENCH_TRACE_GC ? ['--trace-gc'] : [],
    });
    child.once('message', (message: ChildMessage) => resolve({ child, url: message.url, orgKey: message.orgKey }));
    child.once('exit', (code) => reject(new Error(`${args[0]} child exited (${code}) before it was ready`)));
  });
}

const mb = (bytes: number): number => Math.round(bytes / 104857.6) / 10;

/** The service's memory as it reports it (MB): RSS, V8 heap used and total, outside the heap. */
function memoryOf(
  child: ChildProcess,
): Promise<{ rss_mb: number; heap_used_mb: number; heap_total_mb: number; external_mb: number }> {
  return new Promise((resolve) => {
    child.once('message', (m: { rss: number; heapUsed: number; heapTotal: number; external: number }) => {
      resolve({
        rss_mb: mb(m.rss),
        heap_used_mb: mb(m.heapUsed),
        heap_total_mb: mb(m.heapTotal),
        external_mb: mb(m.external),
      });
    });
    child.send({ memory: true });
  });
}

// ---- the run ---------------------------------------------------------------------------------

async function fire(
  url: string,
  headers: Record<string, string>,
  load: { amount: number } | { duration: number },
): Promise<autocannon.Result> {
  const result = await autocannon({ url, headers, connections: CONNECTIONS, ...load });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/** `2026-11-21T06:10:00.123456Z` → epoch ms with the microseconds kept. */
function preciseMs(timestamp: string): number {
  const micros = /\.(\d{1,6})Z$/.exec(timestamp)?.[1] ?? '0';
  return Date.parse(timestamp.replace(/\.\d+Z$/, 'Z')) + Number(micros.padEnd(6, '0')) / 1000;
}

interface Receiver {
  server: Server;
  url: string;
  /** First attempts: arrival time (ms, with fractions) and the body. */
  firstAttempts: Map<string, { at: number; body: Record<string, unknown> }>;
}

/** A local site: the form a job fills, and the webhook receiver. */
async function startReceiver(): Promise<Receiver> {
  const firstAttempts = new Map<string, { at: number; body: Record<string, unknown> }>();
  const form =
    '<!doctype html><title>Contact</title><form method="post" action="/done"><label for="n">Full name</label><input id="n" name="full_name"><button type="submit">Send</button></form>';
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.timeOrigin + performance.now();
      if (req.url === '/hook') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
        const id = String(req.headers['x-webhook-id']);
        if (req.headers['x-webhook-attempt'] === '1' && !firstAttempts.has(id)) firstAttempts.set(id, { at, body });
        res.writeHead(204).end();
      } else if (req.url === '/done') {
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end('<!doctype html><title>Sent</title><h1>Thank you, your message was sent</h1>');
      } else {
        res.writeHead(200, { 'content-type': 'text/html' }).end(form);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, firstAttempts };
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'portico-bench-hostile-'));
  const service = await startChild(['--serve', dataDir]);
  const receiver = await startReceiver();
  const results: Record<string, unknown> = {
    benchmark:
      'hostile load: service RSS under GET /portals, throughput vs bare node:http, webhook first attempt after job end',
    date: new Date().toISOString(),
    machine: {
      cpus: cpus().length,
      loadavg_at_start: loadavg().map((l) => Math.round(l * 100) / 100),
      node: process.version,
    },
    scale: SCALE,
  };
  let bare: Awaited<ReturnType<typeof startChild>> | undefined;
  try {
    const headers = { 'x-api-key': service.orgKey };
    const call = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
      const res = await fetch(`${service.url}${path}`, {
        method,
        headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
      return text ? (JSON.parse(text) as Record<string, unknown>) : {};
    };
    for (let i = 0; i < PORTALS; i += 1) {
      await call('POST', '/portals/default', {
        endpoint_name: `contact-${i}`,
        start_url: `${receiver.url}/form`,
        task: 'Send the contact form',
        webhook_url: `${receiver.url}/hook`,
        form_schema: {
          type: 'object',
          properties: { full_name: { type: 'string', pattern: '^[A-Za-z ]{1,80}$' } },
          required: ['full_name'],
        },
      });
    }
    const listUrl = `${service.url}/portals/default`;

    // ---- RSS: idle, after FIRST_STAGE and after SECOND_STAGE requests (sampled every tenth) ----
    await sleep(2000);
    const rss: ({ requests: number } & Awaited<ReturnType<typeof memoryOf>>)[] = [
      { requests: 0, ...(await memoryOf(service.child)) },
    ];
    let sent = 0;
    for (const target of [FIRST_STAGE, SECOND_STAGE]) {
      const chunk = Math.ceil((target - sent) / CHUNKS);
      while (sent < target) {
        const amount = Math.min(chunk, target - sent);
        await fire(listUrl, headers, { amount });
        sent += amount;
        rss.push({ requests: sent, ...(await memoryOf(service.child)) });
        const last = rss.at(-1);
        process.stderr.write(
          `  ${sent} GET /portals/default: RSS ${last?.rss_mb} MB, heap ${last?.heap_used_mb}/${last?.heap_total_mb} MB, external ${last?.external_mb} MB\n`,
        );
      }
    }
    const at = (n: number): number => rss.find((s) => s.requests === n)?.rss_mb ?? Number.NaN;
    results.rss = {
      idle_mb: rss[0]?.rss_mb,
      [`after_${FIRST_STAGE}_mb`]: at(FIRST_STAGE),
      [`after_${SECOND_STAGE}_mb`]: at(SECOND_STAGE),
      growth_last_two: Math.round((at(SECOND_STAGE) / at(FIRST_STAGE)) * 1000) / 1000,
      target: '≤ 1.2× between the last two',
      samples: rss,
    };

    // ---- throughput and p99: the service vs a bare node:http server with the same bytes ----
    const bytes = Buffer.from(await (await fetch(listUrl, { headers })).arrayBuffer());
    const bodyFile = join(dataDir, 'portals-body.json');
    await writeFile(bodyFile, bytes);
    bare = await startChild(['--bare', bodyFile]);
    const portico = await fire(listUrl, headers, { duration: THROUGHPUT_SECONDS });
    const node = await fire(`${bare.url}/portals/default`, headers, { duration: THROUGHPUT_SECONDS });
    results.throughput = {
      body_bytes: bytes.length,
      connections: CONNECTIONS,
      seconds: THROUGHPUT_SECONDS,
      portico: { req_per_s: portico.requests.average, p50_ms: portico.latency.p50, p99_ms: portico.latency.p99 },
      bare_node_http: { req_per_s: node.requests.average, p50_ms: node.latency.p50, p99_ms: node.latency.p99 },
      throughput_ratio_portico_over_bare: Math.round((portico.requests.average / node.requests.average) * 1000) / 1000,
      p99_ratio_portico_over_bare: Math.round((portico.latency.p99 / Math.max(node.latency.p99, 1)) * 100) / 100,
    };

    // ---- webhook first attempt after the job's end ----
    await call('POST', '/webhooks/default/key');
    const latencies: number[] = [];
    for (let i = 0; i < JOBS + 1; i += 1) {
      const { job_id: jobId } = (await call('POST', '/jobs/default/contact-0/start', {
        form_data: { full_name: 'Ada Lovelace' },
      })) as { job_id: string };
      let delivery: { at: number; body: Record<string, unknown> } | undefined;
      for (let waited = 0; !delivery && waited < 120_000; waited += 5) {
        delivery = [...receiver.firstAttempts.values()].find((d) => d.body.job_id === jobId);
        if (!delivery) await sleep(5);
      }
      if (!delivery) throw new Error(`job ${jobId}: no webhook within 120 s`);
      if (delivery.body.status !== 'completed')
        throw new Error(`job ${jobId} ended ${String(delivery.body.status)}: ${String(delivery.body.error)}`);
      // The first job warms the browser and the dispatcher; it is not counted.
      if (i > 0) latencies.push(delivery.at - preciseMs(String(delivery.body.completed_at)));
    }
    results.webhook_first_attempt = {
      jobs: latencies.length,
      from: "the job's completed_at to the receiver reading the first attempt",
      p50_ms: Math.round(median(latencies) * 100) / 100,
      p99_ms: Math.round(percentile(latencies, 99) * 100) / 100,
      max_ms: Math.round(Math.max(...latencies) * 100) / 100,
    };
    results.rss_after_jobs_mb = (await memoryOf(service.child)).rss_mb;

    // ---- schema compiles: rejected job starts with a 40-field schema, then portals with distinct schemas ----
    const fortyFields = (tag: string): Record<string, unknown> => ({
      type: 'object',
      required: ['field_0'],
      properties: Object.fromEntries(
        Array.from({ length: 40 }, (_, i) => [
          `field_${i}`,
          { type: 'string', maxLength: 100, pattern: `^${tag}_[a-z]*$` },
        ]),
      ),
    });
    await call('POST', '/portals/default', {
      endpoint_name: 'forty',
      start_url: `${receiver.url}/form`,
      task: 'Fill the form',
      form_schema: fortyFields('forty'),
    });
    const beforeRejected = await memoryOf(service.child);
    const rejected = await autocannon({
      url: `${service.url}/jobs/default/forty/start`,
      method: 'POST',
      connections: CONNECTIONS,
      amount: REJECTED_STARTS,
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ form_data: { field_0: 'not valid' } }),
    });
    if (rejected['4xx'] !== REJECTED_STARTS)
      throw new Error(`rejected job starts: ${rejected['4xx']} of ${REJECTED_STARTS} were 4xx`);
    const afterRejected = await memoryOf(service.child);
    const distinct: { portals: number; rss_mb: number; heap_used_mb: number }[] = [];
    for (let i = 0; i < DISTINCT_SCHEMAS; i += 1) {
      await call('POST', '/portals/default', {
        endpoint_name: `distinct-${i}`,
        start_url: `${receiver.url}/form`,
        task: 'Fill the form',
        form_schema: fortyFields(`d${i}`),
      });
      if ((i + 1) % Math.ceil(DISTINCT_SCHEMAS / 4) === 0 || i + 1 === DISTINCT_SCHEMAS)
        distinct.push({ portals: i + 1, ...(await memoryOf(service.child)) });
    }
    results.schema_compiles = {
      schema: '40 string fields, each with a pattern',
      rejected_job_starts: REJECTED_STARTS,
      rss_before_rejected_mb: beforeRejected.rss_mb,
      rss_after_rejected_mb: afterRejected.rss_mb,
      distinct_schema_portals: distinct,
      was: '289 → 1,205 MB after 6,000 rejected job starts (issue 14)',
    };
  } finally {
    bare?.child.disconnect();
    service.child.disconnect();
    await new Promise<void>((resolve) => receiver.server.close(() => resolve()));
    await Promise.race([new Promise((resolve) => service.child.once('exit', resolve)), sleep(15_000)]);
    await rm(dataDir, { recursive: true, force: true });
  }
  results.loadavg_at_end = loadavg().map((l) => Math.round(l * 100) / 100);
  const out = join(import.meta.dirname, 'results');
  await mkdir(out, { recursive: true });
  await writeFile(join(out, 'hostile.json'), `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
}

if (process.argv[2] === '--serve') {
  await serveChild(process.argv[3] ?? '');
} else if (process.argv[2] === '--bare') {
  bareChild(process.argv[3] ?? '');
} else {
  await main();
}
