// Many jobs at once (issue 25): N builtin autofill jobs of a 6-field form started together (N = 8 and 16,
// BENCH_SIZES), against N hand-written Playwright scripts doing the same form in contexts of one shared
// browser (the executable Portico's headless jobs run: its headless shell of the same build when installed),
// same run. Reported: jobs (scripts) per minute over the batch, failures with their errors (target
// 0), and the load average. BENCH_ROUNDS batches per size (default 2; `--quick` 1). Results:
// bench/results/concurrency.json. On a shared 2-core machine the absolute figures follow the load; compare
// the ratio taken in the same run, and the CPU each side used per job (this process — the service, or the
// scripts' Playwright client — and the browser processes under it), which the load hardly changes.
// A job is waited for on its log stream (`event: end`), as a client that wants the result at once does,
// not by polling its status: polling 16 jobs every 100 ms in this process was about a quarter of its CPU.
// BENCH_CPU_PROFILE_DIR=<dir>: a V8 CPU profile of this process for each Portico batch (the batch alone), to read
// with bench/cpuProfileOwners.mjs; its samples are wall-clock, so under load they pile up where the process waits.
import { readdirSync, readFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { readConfig } from '../src-main/base/config.ts';
import { chromiumArgs, needsNoSandbox } from '../src-main/browser/chromiumDiscovery.ts';
import { page, startFormServer } from '../test/helpers/formServer.ts';
import { jobBrowserExecutable, machineFacts, median, startBenchApp } from './lib.ts';

const QUICK = process.argv.includes('--quick');
const SIZES = (process.env.BENCH_SIZES ?? '8,16').split(',').map(Number);
/** Which sides run (`portico,scripts`; one alone to compare two builds of Portico by their CPU per job). */
const SIDES = (process.env.BENCH_SIDES ?? 'portico,scripts').split(',');
const ROUNDS = QUICK ? 1 : Number(process.env.BENCH_ROUNDS ?? 2);
/** A folder to write a CPU profile of this process for each Portico batch into (the batch alone: no start, no warm-up). */
const PROFILE_DIR = process.env.BENCH_CPU_PROFILE_DIR;
const round = (value: number, digits = 1): number => Math.round(value * 10 ** digits) / 10 ** digits;
const load = (): number[] => loadavg().map((l) => round(l, 2));

/** CPU time (user + system) of this process, in ms. */
const selfCpuMs = (): number => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
};

/** What kind of process a Chromium command line is: `browser`, `renderer`, `gpu-process`, `zygote`, `utility:<sub-type>`… */
function processKind(pid: number): string {
  let args: string[];
  try {
    // A Chromium child rewrites its command line as one space-separated string.
    args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split(/[\0 ]/);
  } catch {
    return 'gone';
  }
  const type = args.find((a) => a.startsWith('--type='))?.slice('--type='.length);
  if (type === undefined) return /chrom/.test(args[0] ?? '') ? 'browser' : 'other';
  if (type !== 'utility') return type;
  const sub = args.find((a) => a.startsWith('--utility-sub-type='))?.slice('--utility-sub-type='.length) ?? '?';
  return `utility:${sub.split('.').at(-1) ?? sub}`;
}

/**
 * CPU time (user + system, ms) of every process under this one (the browsers and their helpers, and the ones
 * they have reaped), from /proc, by kind of process: a process's own CPU counts for its kind, the CPU of the
 * children it reaped (a closed context's renderer, reaped by the zygote) for `<its kind>+reaped`.
 */
function childrenCpuMs(): Map<string, number> {
  const stats = new Map<number, { parent: number; own: number; reaped: number }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ticks = (i: number): number => Number(fields[i]);
      stats.set(Number(name), { parent: ticks(1), own: ticks(11) + ticks(12), reaped: ticks(13) + ticks(14) });
    } catch {
      // exited while listing
    }
  }
  const under = (pid: number): boolean => {
    for (let p = stats.get(pid)?.parent, depth = 0; p !== undefined && depth < 64; depth += 1) {
      if (p === process.pid) return true;
      p = stats.get(p)?.parent;
    }
    return false;
  };
  const byKind = new Map<string, number>();
  const add = (kind: string, ticks: number): void => {
    if (ticks > 0) byKind.set(kind, (byKind.get(kind) ?? 0) + ticks * 10); // USER_HZ 100
  };
  for (const [pid, stat] of stats)
    if (under(pid)) {
      const kind = processKind(pid);
      add(kind, stat.own);
      add(`${kind}+reaped`, stat.reaped);
    }
  return byKind;
}

const totalMs = (byKind: Map<string, number>): number => [...byKind.values()].reduce((a, b) => a + b, 0);

/** `after − before` per kind, per job. */
function perJobByKind(before: Map<string, number>, after: Map<string, number>, jobs: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [kind, ms] of after) {
    const used = ms - (before.get(kind) ?? 0);
    if (used !== 0) out[kind] = round(used / jobs);
  }
  return out;
}

const formData = {
  full_name: 'Ada Lovelace',
  email: 'ada@example.org',
  phone: '+44 20 7946 0000',
  city: 'London',
  country: 'United Kingdom',
  message: 'Please send the licence by post.',
};

const FORM = page(
  `<h1>Apply</h1><form method="post" action="/submit/apply">
  <label for="fn">Full name</label><input id="fn" name="fn" required>
  <label for="em">Email address</label><input id="em" name="em" type="email" required>
  <label for="ph">Phone</label><input id="ph" name="ph" type="tel">
  <label for="ci">City</label><input id="ci" name="ci">
  <label for="co">Country</label><select id="co" name="co"><option value="">Choose</option>
    <option>France</option><option>Germany</option><option>United Kingdom</option></select>
  <label for="me">Message</label><textarea id="me" name="me"></textarea>
  <button type="submit">Send application</button></form>`,
  'Apply',
);

interface Batch {
  size: number;
  ms: number;
  per_minute: number;
  /** CPU this process used during the batch (the service, or the scripts' Playwright client), per job. */
  node_cpu_ms_per_job: number;
  /** CPU the browser processes under this one used during the batch, per job. */
  browser_cpu_ms_per_job: number;
  /** That CPU by kind of Chromium process (`zygote+reaped`: renderers that exited with their context). */
  browser_cpu_ms_per_job_by_process: Record<string, number>;
  failures: string[];
}

async function main(): Promise<void> {
  const site = await startFormServer({
    '/apply': (_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(FORM),
  });
  const dataDir = await mkdtemp(join(tmpdir(), 'portico-bench-concurrency-'));
  // The scripts run the browser Portico's headless jobs run (its headless shell of the same build when one is
  // installed, as Playwright's own `headless: true` does; docs/decisions.md, "Headless jobs in Chromium's
  // headless shell"): the comparison is of the work each side makes a browser do, not of two browsers.
  const scriptBrowser = jobBrowserExecutable();
  const maxSize = Math.max(...SIZES);
  const { app, api, key } = await startBenchApp(dataDir, { jobConcurrency: maxSize });
  const loadAtStart = load();
  const portico: Batch[] = [];
  const scripts: Batch[] = [];
  try {
    await api('/portals/default', {
      endpoint_name: 'apply',
      start_url: site.url('/apply'),
      task: 'Fill in and send the application',
      form_schema: {
        type: 'object',
        properties: {
          full_name: { type: 'string', title: 'Full name' },
          email: { type: 'string', title: 'Email address' },
          phone: { type: 'string', title: 'Phone' },
          city: { type: 'string', title: 'City' },
          country: { type: 'string', title: 'Country' },
          message: { type: 'string', title: 'Message' },
        },
      },
    });
    const runJob = async (): Promise<string | null> => {
      const started = (await api('/jobs/default/apply/start', { form_data: formData })) as { job_id?: string };
      if (!started.job_id) return `not started: ${JSON.stringify(started)}`;
      // The log stream ends with `event: end` once the job has a final status.
      const stream = await fetch(`${app.url}/task/default/apply/logs?job_id=${started.job_id}`, {
        headers: { 'x-api-key': key },
      });
      await stream.text();
      const status = await api(`/task/default/apply/status?job_id=${started.job_id}`);
      return status.status === 'completed' ? null : `${String(status.status)}: ${String(status.error)}`;
    };
    const config = readConfig(process.env);
    const browser = await chromium.launch({
      executablePath: scriptBrowser,
      args: chromiumArgs({ noSandbox: needsNoSandbox(process.platform, config.chromiumNoSandbox, process.getuid?.()) }),
    });
    const runScript = async (): Promise<string | null> => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      try {
        const p = await context.newPage();
        await p.goto(site.url('/apply'));
        await p.fill('#fn', formData.full_name);
        await p.fill('#em', formData.email);
        await p.fill('#ph', formData.phone);
        await p.fill('#ci', formData.city);
        await p.selectOption('#co', { label: formData.country });
        await p.fill('#me', formData.message);
        await Promise.all([p.waitForURL('**/submit/apply'), p.click('button[type=submit]')]);
        await p.textContent('body');
        return null;
      } catch (error) {
        return error instanceof Error ? (error.message.split('\n')[0] ?? error.message) : String(error);
      } finally {
        await context.close();
      }
    };
    const batch = async (size: number, one: () => Promise<string | null>): Promise<Batch> => {
      const profiler = PROFILE_DIR && one === runJob ? new Session() : undefined;
      if (profiler) {
        profiler.connect();
        await profiler.post('Profiler.enable');
        await profiler.post('Profiler.start');
      }
      // Reading /proc is this process's own work: done outside the span its CPU is counted over.
      const browsers0 = childrenCpuMs();
      const node0 = selfCpuMs();
      const t0 = performance.now();
      const outcomes = await Promise.all(Array.from({ length: size }, () => one()));
      const ms = performance.now() - t0;
      const node1 = selfCpuMs();
      const browsers1 = childrenCpuMs();
      if (profiler && PROFILE_DIR) {
        const { profile } = await profiler.post('Profiler.stop');
        await writeFile(join(PROFILE_DIR, `portico-${size}-${Date.now()}.cpuprofile`), JSON.stringify(profile));
        profiler.disconnect();
      }
      return {
        size,
        ms: round(ms),
        per_minute: round((size * 60_000) / ms),
        node_cpu_ms_per_job: round((node1 - node0) / size),
        browser_cpu_ms_per_job: round((totalMs(browsers1) - totalMs(browsers0)) / size),
        browser_cpu_ms_per_job_by_process: perJobByKind(browsers0, browsers1, size),
        failures: outcomes.filter((o): o is string => o !== null),
      };
    };
    try {
      // Warm-up (untimed): one of each, so neither side pays a first launch inside a batch.
      const warmJob = await runJob();
      if (warmJob) throw new Error(`warm-up job failed: ${warmJob}`);
      await runScript();
      for (const size of SIZES)
        for (let r = 0; r < ROUNDS; r += 1) {
          if (SIDES.includes('portico')) portico.push(await batch(size, runJob));
          if (SIDES.includes('scripts')) scripts.push(await batch(size, runScript));
          const [mine, theirs] = [portico.at(-1), scripts.at(-1)];
          const cpuOf = (b: Batch | undefined): string =>
            b
              ? `${b.node_cpu_ms_per_job} + ${b.browser_cpu_ms_per_job} ms ${JSON.stringify(b.browser_cpu_ms_per_job_by_process)}`
              : '';
          process.stderr.write(
            `${size} at once (load ${load()[0]}): portico ${mine?.per_minute}/min (${mine?.failures.length} failed; CPU per job ${cpuOf(mine)}), scripts ${theirs?.per_minute}/min (${theirs?.failures.length} failed; CPU per job ${cpuOf(theirs)})\n`,
          );
        }
    } finally {
      await browser.close();
    }
  } finally {
    await app.close();
    await site.close();
    await rm(dataDir, { recursive: true, force: true });
  }
  const summary = SIZES.map((size) => {
    const mine = portico.filter((b) => b.size === size);
    const theirs = scripts.filter((b) => b.size === size);
    const perMinute = (batches: Batch[]): number =>
      round((batches.reduce((n, b) => n + b.size, 0) * 60_000) / batches.reduce((ms, b) => ms + b.ms, 0));
    const cpu = (batches: Batch[], of: 'node_cpu_ms_per_job' | 'browser_cpu_ms_per_job'): number =>
      round(median(batches.map((b) => b[of])));
    return {
      size,
      portico_jobs_per_minute: perMinute(mine),
      scripts_per_minute: perMinute(theirs),
      ratio: round(perMinute(mine) / perMinute(theirs), 2),
      cpu_ms_per_job: {
        portico: { service: cpu(mine, 'node_cpu_ms_per_job'), browser: cpu(mine, 'browser_cpu_ms_per_job') },
        scripts: { client: cpu(theirs, 'node_cpu_ms_per_job'), browser: cpu(theirs, 'browser_cpu_ms_per_job') },
      },
      portico_failures: mine.reduce((n, b) => n + b.failures.length, 0),
      script_failures: theirs.reduce((n, b) => n + b.failures.length, 0),
    };
  });
  const results = {
    bench: 'concurrency',
    date: new Date().toISOString(),
    target: '16 jobs at once ≥ 1.0× the jobs per minute of 16 Playwright scripts sharing one browser; 0 failures',
    form: '6 fields on one page (5 text-like, 1 select), submitted; the job completes only with the submission seen',
    rounds: ROUNDS,
    job_concurrency: maxSize,
    browser: {
      scripts: scriptBrowser,
      note: "Portico's headless jobs run the same executable (PORTICO_HEADLESS_SHELL)",
    },
    summary,
    batches: { portico, scripts },
    machine: machineFacts(loadAtStart),
  };
  // Both sides measured: the results; one side alone (a comparison of builds) is only printed.
  if (SIDES.includes('portico') && SIDES.includes('scripts')) {
    const out = fileURLToPath(new URL('./results/concurrency.json', import.meta.url));
    await writeFile(out, `${JSON.stringify(results, null, 2)}\n`);
  }
  process.stdout.write(`${JSON.stringify(summary)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
