/**
 * Browser hosts (issue 22): 16 builtin:autofill jobs of a six-field form, all started at once, on the local
 * Chromium only (local_max_browsers 2) and then on local + two browser hosts in network namespaces (a
 * Playwright server and a Chromium debugging host, max_browsers 2 each). Jobs per minute and p50 job time.
 * Needs root (ip netns). Writes bench/results/grid.json, with the load average around each run.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FormPost, startFormServer } from '../test/helpers/formServer.ts';
import { netnsAvailable, startBrowserHosts } from '../test/helpers/netns.ts';
import { REGISTRATION_SUBMIT, registrationData, registrationPortal } from '../test/helpers/registrationForm.ts';
import { median, startBenchApp } from './lib.ts';

const JOBS = Number(process.env.BENCH_GRID_JOBS ?? 16);
const PER_HOST = 2;

interface HostSetting {
  name: string;
  kind: 'playwright' | 'cdp';
  url: string;
  max_browsers: number;
}

interface JobTiming {
  /** Start request → completed. */
  total_ms: number;
  /** started_at → completed_at: the job's own run, queueing excluded. */
  run_ms: number;
}

interface RunResult {
  setup: string;
  browsers: number;
  jobs: number;
  wall_ms: number;
  jobs_per_minute: number;
  p50_job_ms: number;
  p50_run_ms: number;
  /** Where the jobs ran, by the address the form's submissions came from (a host's 10.200.N.2, else local). */
  jobs_by_place: Record<string, number>;
  load_before: number[];
  load_after: number[];
  /** Share of the machine's CPU time that was busy during the timed jobs (every process, other users' included). */
  cpu_busy_percent: number;
}

/** Busy and total CPU time of the machine so far (all cores), from /proc/stat via os.cpus(). */
function cpuTimes(): { busy: number; total: number } {
  let busy = 0;
  let total = 0;
  for (const cpu of cpus()) {
    const { user, nice, sys, idle, irq } = cpu.times;
    busy += user + nice + sys + irq;
    total += user + nice + sys + idle + irq;
  }
  return { busy, total };
}

const round1 = (n: number): number => Math.round(n * 10) / 10;

async function run(
  setup: string,
  origin: string,
  hosts: HostSetting[],
  submissions: () => FormPost[],
  placeOf: (address: string | undefined) => string,
): Promise<RunResult> {
  const dataDir = await mkdtemp(join(tmpdir(), 'portico-bench-grid-'));
  await writeFile(
    join(dataDir, 'settings.json'),
    JSON.stringify({ local_max_browsers: PER_HOST, ...(hosts.length > 0 ? { browser_hosts: hosts } : {}) }),
  );
  const browsers = PER_HOST * (1 + hosts.length);
  // As many job slots as browsers: the hosts' room, not the scheduler, is what differs between the setups.
  const { app, api } = await startBenchApp(dataDir, { jobConcurrency: browsers, warmBrowser: false });
  try {
    await api('/portals/default', registrationPortal('registration', origin));
    const awaitJob = async (jobId: string): Promise<Record<string, unknown>> => {
      for (;;) {
        const status = await api(`/task/default/registration/status?job_id=${jobId}`);
        if (['completed', 'failed', 'cancelled'].includes(String(status.status))) return status;
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    // One untimed job first: the replay cache and the local Chromium start are the same for both setups then.
    const warm = await awaitJob(
      String((await api('/jobs/default/registration/start', { form_data: registrationData(0) })).job_id),
    );
    if (warm.status !== 'completed')
      throw new Error(`${setup}: the warm-up job ${String(warm.status)}: ${String(warm.error)}`);

    const before = submissions().length;
    const loadBefore = loadavg().map(round1);
    const cpuBefore = cpuTimes();
    const t0 = Date.now();
    const started = await Promise.all(
      Array.from({ length: JOBS }, async (_, i) => {
        const at = Date.now();
        const { job_id: jobId } = (await api('/jobs/default/registration/start', {
          form_data: registrationData(i + 1),
        })) as { job_id: string };
        return { at, jobId };
      }),
    );
    const done = await Promise.all(started.map(async ({ at, jobId }) => ({ at, status: await awaitJob(jobId) })));
    const wall = Date.now() - t0;
    const cpuAfter = cpuTimes();
    const failed = done.filter((d) => d.status.status !== 'completed');
    if (failed.length > 0)
      throw new Error(
        `${setup}: ${failed.length} of ${JOBS} jobs did not complete, e.g. ${String(failed[0]?.status.error)}`,
      );
    const received = submissions().slice(before);
    if (received.length !== JOBS)
      throw new Error(`${setup}: the form received ${received.length} submissions for ${JOBS} jobs`);
    const byPlace: Record<string, number> = {};
    for (const post of received) byPlace[placeOf(post.from)] = (byPlace[placeOf(post.from)] ?? 0) + 1;
    const timings: JobTiming[] = done.map(({ at, status }) => {
      const completed = Date.parse(String(status.completed_at));
      return { total_ms: completed - at, run_ms: completed - Date.parse(String(status.started_at)) };
    });
    return {
      setup,
      browsers,
      jobs: JOBS,
      wall_ms: wall,
      jobs_per_minute: round1((JOBS * 60_000) / wall),
      p50_job_ms: median(timings.map((t) => t.total_ms)),
      p50_run_ms: median(timings.map((t) => t.run_ms)),
      jobs_by_place: byPlace,
      load_before: loadBefore,
      load_after: loadavg().map(round1),
      cpu_busy_percent: Math.round((100 * (cpuAfter.busy - cpuBefore.busy)) / (cpuAfter.total - cpuBefore.total)),
    };
  } finally {
    await app.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  if (!netnsAvailable()) throw new Error('bench grid needs network namespaces (run as root with iproute2)');
  process.env.PORTICO_HEADLESS = '1';
  const { hosts, close } = await startBrowserHosts([{ engine: 'playwright' }, { engine: 'cdp' }]);
  // One form server every browser reaches: bound to all addresses, named by the first host's gateway.
  const forms = await startFormServer({}, { host: '0.0.0.0', urlHost: hosts[0]!.gateway });
  const submissions = () => forms.postsTo(REGISTRATION_SUBMIT);
  const names = new Map([
    [hosts[0]!.address, 'pw-host'],
    [hosts[1]!.address, 'cdp-host'],
  ]);
  const placeOf = (address: string | undefined) => names.get(address ?? '') ?? 'local';
  try {
    const local = await run('local only', forms.origin, [], submissions, placeOf);
    process.stderr.write(`${JSON.stringify(local)}\n`);
    const settings: HostSetting[] = [
      { name: 'pw-host', kind: 'playwright', url: hosts[0]!.url, max_browsers: PER_HOST },
      { name: 'cdp-host', kind: 'cdp', url: hosts[1]!.url, max_browsers: PER_HOST },
    ];
    const grid = await run('local + 2 hosts', forms.origin, settings, submissions, placeOf);
    process.stderr.write(`${JSON.stringify(grid)}\n`);
    if (!grid.jobs_by_place['pw-host'] || !grid.jobs_by_place['cdp-host'])
      throw new Error(
        `the hosts did not both take jobs (${JSON.stringify(grid.jobs_by_place)}): is browser_hosts in force?`,
      );
    const result = {
      bench: 'grid',
      date: new Date().toISOString(),
      form: 'six fields (test/fixtures/forms/registration.html), builtin:autofill, all jobs started at once',
      cpus: cpus().length,
      expected: "~3x the jobs per minute with three times the browsers (the hosts share this machine's CPUs)",
      speedup_jobs_per_minute: round1(grid.jobs_per_minute / local.jobs_per_minute),
      runs: [local, grid],
    };
    const out = fileURLToPath(new URL('./results/grid.json', import.meta.url));
    await mkdir(join(out, '..'), { recursive: true });
    await writeFile(out, `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(
      `${JSON.stringify({ local_jobs_per_minute: local.jobs_per_minute, grid_jobs_per_minute: grid.jobs_per_minute, speedup: result.speedup_jobs_per_minute, local_p50_ms: local.p50_job_ms, grid_p50_ms: grid.p50_job_ms })}\n`,
    );
  } finally {
    await forms.close();
    close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
