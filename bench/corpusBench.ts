/**
 * The corpus benchmark both form corpora share: each form through the real job engine (builtin autofill),
 * against its hand-written Playwright script. A form passes when its job completes and the site received
 * exactly the expected submission; a submission that is not the expected one counts as a wrong value.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';

import type { FormServer } from '../test/helpers/formServer.ts';
import { median, startBenchApp, timeScript } from './lib.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const STATUS_POLL_MS = Number(process.env.BENCH_STATUS_POLL_MS ?? 100);
const GAP_MS = 250;
export const RATIO_TARGET = 1.3;

/** One form of a corpus as the benchmark sees it. */
export interface BenchForm {
  name: string;
  /** Design system or component library, for the report. */
  group: string;
  startPath: string;
  formData: Record<string, unknown>;
  formSchema: Record<string, unknown>;
  /** What the site received since `since` (a count of `site.posts`): 'ok', 'wrong' (a submission with other values) or 'missing'. */
  check(site: FormServer, since: number): { verdict: 'ok' | 'wrong' | 'missing'; got: unknown };
  script(page: Page, origin: string): Promise<void>;
}

interface FormResult {
  form: string;
  group: string;
  passed: boolean;
  wrong_values: number;
  problem?: string;
  job_ms: number[];
  script_ms: number[];
  job_median_ms: number;
  script_median_ms: number;
  ratio: number;
}

/** Runs `forms` on `site` and writes bench/results/<resultName>.json; prints the headline. */
export async function runCorpusBench(options: {
  title: string;
  resultName: string;
  site: FormServer;
  forms: BenchForm[];
}): Promise<void> {
  const { site, forms } = options;
  const dataDir = await mkdtemp(join(tmpdir(), 'portico-bench-corpus-'));
  const { app, api } = await startBenchApp(dataDir);
  const results: FormResult[] = [];
  try {
    for (const form of forms) {
      const endpoint = form.name;
      await api('/portals/default', {
        endpoint_name: endpoint,
        start_url: site.url(form.startPath),
        task: `Fill in ${form.name}`,
        form_schema: form.formSchema,
      });
      let wrong = 0;
      const runJob = async (): Promise<{ ms: number; problem?: string }> => {
        const since = site.posts.length;
        const startedAt = Date.now();
        const started = await api(`/jobs/default/${endpoint}/start`, { form_data: form.formData });
        const jobId = started.job_id;
        if (typeof jobId !== 'string') return { ms: 0, problem: `the job did not start: ${JSON.stringify(started)}` };
        for (const deadline = Date.now() + 120_000; ; ) {
          if (Date.now() > deadline) {
            // Cancelled, so that the next form's jobs are not queued behind it (the bench runs one job at a time).
            await api(`/jobs/default/${endpoint}/cancel?job_id=${jobId}`, {}).catch(() => undefined);
            return { ms: Date.now() - startedAt, problem: 'the job did not end within 2 minutes (cancelled)' };
          }
          const status = await api(`/task/default/${endpoint}/status?job_id=${jobId}`);
          if (['completed', 'failed', 'cancelled'].includes(String(status.status))) {
            const ms = Date.parse(String(status.completed_at)) - startedAt;
            const { verdict, got } = form.check(site, since);
            if (verdict === 'wrong') wrong += 1;
            if (status.status !== 'completed')
              return { ms, problem: `${String(status.status)}: ${String(status.error)}` };
            return verdict === 'ok' ? { ms } : { ms, problem: `the site received ${JSON.stringify(got)}` };
          }
          // The job's time is the service's own `completed_at`, so polling more often would not make it more
          // exact — only load the service (in this process) with status reads while the job it times runs.
          await new Promise((r) => setTimeout(r, STATUS_POLL_MS));
        }
      };
      const warm = await runJob();
      const jobs: number[] = [];
      let problem = warm.problem;
      for (let i = 0; i < RUNS && !problem; i += 1) {
        await new Promise((r) => setTimeout(r, GAP_MS));
        const run = await runJob();
        problem = run.problem;
        jobs.push(run.ms);
      }
      let scripts: number[] = [];
      try {
        scripts = await timeScript(RUNS, (page) => form.script(page, site.origin));
      } catch (error) {
        // A baseline that did not run is reported, not a reason to lose the other forms' figures.
        problem ??= `the hand-written script failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;
      }
      const jobMedian = median(jobs);
      const scriptMedian = median(scripts);
      results.push({
        form: form.name,
        group: form.group,
        passed: !problem,
        wrong_values: wrong,
        ...(problem && { problem }),
        job_ms: jobs,
        script_ms: scripts,
        job_median_ms: jobMedian,
        script_median_ms: scriptMedian,
        ratio: Number((jobMedian / scriptMedian).toFixed(2)),
      });
      process.stderr.write(
        `${form.name}: ${problem ? `FAIL ${problem}` : `ok ${jobMedian} ms vs ${scriptMedian} ms`}${wrong ? ` (${wrong} WRONG submission(s))` : ''}\n`,
      );
    }
  } finally {
    await app.close();
    await site.close();
    await rm(dataDir, { recursive: true, force: true });
  }
  const passed = results.filter((r) => r.passed);
  const ratios = passed.map((r) => r.ratio);
  const wrongValues = results.reduce((sum, r) => sum + r.wrong_values, 0);
  const summary = {
    benchmark: options.title,
    date: new Date().toISOString(),
    load_average: (await import('node:os')).loadavg().map((l) => Number(l.toFixed(2))),
    runs_per_form: RUNS,
    forms: results.length,
    passed: passed.length,
    pass_rate: Number((passed.length / Math.max(1, results.length)).toFixed(3)),
    wrong_values: wrongValues,
    median_ratio: Number(median(ratios).toFixed(2)),
    worst_ratio: ratios.length ? Math.max(...ratios) : null,
    ratio_target: RATIO_TARGET,
    job_median_ms: median(passed.map((r) => r.job_median_ms)),
    script_median_ms: median(passed.map((r) => r.script_median_ms)),
    meets_targets: passed.length === results.length && wrongValues === 0 && median(ratios) <= RATIO_TARGET,
    per_form: results,
  };
  const out = join(import.meta.dirname, 'results', `${options.resultName}.json`);
  await mkdir(join(out, '..'), { recursive: true });
  await writeFile(out, `${JSON.stringify(summary, null, 2)}\n`);
  const { per_form: _omitted, ...headline } = summary;
  process.stdout.write(`${JSON.stringify(headline)}\n`);
}

/** Runs a benchmark's main and exits non-zero with the stack on failure. */
export function runMain(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
