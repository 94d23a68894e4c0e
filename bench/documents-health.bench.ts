// /health while a document bundle is read (issue 21, item 7): a bundle of 20 JSON files of 50 MB each (the
// limits) is uploaded, and while it is read a separate process asks /health every 10 ms. Target: p99 under
// 100 ms. The JSON holds 25 KB string values, so the read completes (the JSON reader's 10,000-value limit
// refuses a 50 MB file of small values early) and what is stored per file is ~150 MB of JSON.
// `--quick`: 4 files of 20 MB, nothing written to bench/results.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApp } from '../src-main/app.ts';
import { readConfig } from '../src-main/base/config.ts';
import { DOCUMENT_MAX_FILE_BYTES, DOCUMENT_MAX_FILES } from '../src-main/contract/document.ts';
import { BENCH_LIMITS } from './lib.ts';

const quick = process.argv.includes('--quick');
const FILES = quick ? 4 : DOCUMENT_MAX_FILES;
const FILE_BYTES = quick ? 20 * 1024 * 1024 : DOCUMENT_MAX_FILE_BYTES - 64 * 1024;

function bigJson(bytes: number): Buffer {
  const value = 'abcdefghij'.repeat(2_500);
  const parts: string[] = [];
  for (let i = 0; i < Math.floor(bytes / (value.length + 12)); i += 1) parts.push(`"k${i}":"${value}"`);
  return Buffer.from(`{${parts.join(',')}}`);
}

// The sampler runs in its own process, so its timing is not held by the service's thread it measures.
const SAMPLER = `
const url = process.argv[1];
let phase = 'idle';
let stop = false;
process.stdin.on('data', (chunk) => { for (const word of String(chunk).split('\\n').filter(Boolean)) { if (word === 'stop') stop = true; else phase = word; } });
(async () => {
  while (!stop) {
    const started = performance.now();
    let ok = false;
    try { const res = await fetch(url); await res.arrayBuffer(); ok = res.status === 200; } catch {}
    process.stdout.write(JSON.stringify([phase, performance.now() - started, ok]) + '\\n');
    await new Promise((r) => setTimeout(r, 10));
  }
  process.exit(0);
})();
`;

const round = (v: number): number => Math.round(v * 10) / 10;
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'portico-bench-health-'));
  const notices: string[] = [];
  const app = await startApp({
    dataDir,
    port: 0,
    rendererDir: join(dataDir, 'no-console'),
    notice: (l) => notices.push(l),
    warmBrowser: false,
    sessionPoolSize: 0,
    samples: false,
    limits: BENCH_LIMITS,
    config: readConfig(process.env),
  });
  const key = /Organization API key[^:]*:\s+(\S+)/.exec(notices.join('\n'))?.[1] ?? '';
  const get = async (path: string): Promise<unknown> =>
    (await fetch(`${app.url}${path}`, { headers: { 'x-api-key': key } })).json();
  try {
    let data: Buffer | undefined = bigJson(FILE_BYTES);
    let form: FormData | undefined = new FormData();
    for (let i = 0; i < FILES; i += 1)
      form.append('files', new Blob([new Uint8Array(data)], { type: 'application/json' }), `doc-${i}.json`);
    const sampler = spawn(process.execPath, ['-e', SAMPLER, `${app.url}/health`], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    sampler.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    const exited = new Promise<string>((resolve) =>
      sampler.once('close', (code, signal) => resolve(`${code ?? signal}`)),
    );
    // A baseline: /health on this machine, at this load, with nothing else going on.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    sampler.stdin.write('upload\n');
    const t0 = performance.now();
    const uploaded = await fetch(`${app.url}/documents/default`, {
      method: 'POST',
      headers: { 'x-api-key': key },
      body: form,
    });
    const { document_bundle_id: id } = (await uploaded.json()) as { document_bundle_id: string };
    const uploadMs = performance.now() - t0;
    data = undefined;
    form = undefined;
    sampler.stdin.write('read\n');
    // The service thread's own CPU between 5 ms ticks: the longest it worked in one piece, whatever the machine's load.
    const cpu = (): number => {
      const usage = process.threadCpuUsage();
      return (usage.user + usage.system) / 1000;
    };
    let lastCpu = cpu();
    let longestCpuStall = 0;
    const ticker = setInterval(() => {
      const now = cpu();
      longestCpuStall = Math.max(longestCpuStall, now - lastCpu);
      lastCpu = now;
    }, 5);
    let bundle: { status: string; documents: { error: string | null }[] };
    for (;;) {
      bundle = (await get(`/documents/default/${id}`)) as typeof bundle;
      if (bundle.status !== 'processing') break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const readMs = performance.now() - t0 - uploadMs;
    clearInterval(ticker);
    sampler.stdin.write('stop\n');
    const exit = await exited;
    if (exit !== '0') throw new Error(`the /health sampler ended with ${exit}`);
    const samples = out
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as [string, number, boolean]);
    const latencies = samples.map(([name, ms]) => [name, ms] as [string, number]);
    const failures = samples.filter(([, , ok]) => !ok).length;
    const phase = (name: string): number[] => latencies.filter(([p]) => p === name).map(([, ms]) => ms);
    const stats = (values: number[]) => ({
      samples: values.length,
      p50_ms: round(percentile(values, 50)),
      p99_ms: round(percentile(values, 99)),
      max_ms: round(Math.max(...values)),
    });
    if (bundle.status !== 'completed') throw new Error(`the bundle did not complete: ${JSON.stringify(bundle)}`);
    const p99 = percentile(phase('read'), 99);
    const result = {
      bench: 'documents-health',
      date: new Date().toISOString(),
      target:
        '/health p99 under 100 ms while a 20-file, 50 MB-each bundle is read (issue 21); the upload (same process sends it) and an idle baseline at the same load reported apart',
      bundle: {
        files: FILES,
        mb_each: round(FILE_BYTES / (1024 * 1024)),
        upload_ms: Math.round(uploadMs),
        read_ms: Math.round(readMs),
      },
      health_while_read: stats(phase('read')),
      service_thread_longest_cpu_ms_while_read: round(longestCpuStall),
      health_while_uploading: stats(phase('upload')),
      health_idle_baseline: stats(phase('idle')),
      failures,
      met: p99 < 100 && failures === 0,
      quick,
      machine: {
        cpus: cpus().length,
        platform: process.platform,
        node: process.version,
        loadavg: loadavg().map(round),
      },
    };
    if (!quick)
      await writeFile(
        join(import.meta.dirname, 'results', 'documents-health.json'),
        `${JSON.stringify(result, null, 2)}\n`,
      );
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await app.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
