/**
 * Builtin autofill on the design-system corpus (GOV.UK Frontend, NHS.UK frontend, USWDS forms in
 * test/fixtures/design-systems) through the real job engine, against a hand-written Playwright script
 * of each form. Reports the pass rate (the job completes and the site receives exactly the expected
 * fields) and the job time over the script time per form; target (issue 9): median ratio ≤ 1.3.
 * Writes bench/results/autofill-design-systems.json.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CORPUS, corpusHandlers, receivedFields } from '../test/fixtures/design-systems/corpus.ts';
import { startFormServer } from '../test/helpers/formServer.ts';
import { median, startBenchApp, timeScript } from './lib.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const GAP_MS = 250;
const RATIO_TARGET = 1.3;

interface FormResult {
  form: string;
  system: string;
  passed: boolean;
  problem?: string;
  job_ms: number[];
  script_ms: number[];
  job_median_ms: number;
  script_median_ms: number;
  ratio: number;
}

async function main(): Promise<void> {
  const only = process.env.BENCH_FORMS?.split(',');
  const forms = CORPUS.filter((f) => !only || only.includes(f.name));
  const site = await startFormServer(corpusHandlers());
  const dataDir = await mkdtemp(join(tmpdir(), 'portico-bench-ds-'));
  const { app, api } = await startBenchApp(dataDir);
  const results: FormResult[] = [];
  try {
    for (const form of forms) {
      const endpoint = form.name;
      await api('/portals/default', { endpoint_name: endpoint, start_url: site.url(form.startPath), task: `Fill in ${form.name}`, form_schema: form.formSchema });
      const runJob = async (): Promise<{ ms: number; problem?: string }> => {
        const since = site.posts.length;
        const startedAt = Date.now();
        const started = await api(`/jobs/default/${endpoint}/start`, { form_data: form.formData });
        const jobId = started.job_id;
        if (typeof jobId !== 'string') return { ms: 0, problem: `the job did not start: ${JSON.stringify(started)}` };
        for (const deadline = Date.now() + 120_000; ;) {
          if (Date.now() > deadline) return { ms: Date.now() - startedAt, problem: 'the job did not end within 2 minutes' };
          const status = await api(`/task/default/${endpoint}/status?job_id=${jobId}`);
          if (['completed', 'failed', 'cancelled'].includes(String(status.status))) {
            const ms = Date.parse(String(status.completed_at)) - startedAt;
            if (status.status !== 'completed') return { ms, problem: `${String(status.status)}: ${String(status.error)}` };
            const post = site.posts.slice(since).filter((p) => p.path === form.submitPath).at(-1);
            const got = post ? receivedFields(post) : undefined;
            return got && sameFields(got, form.expected) ? { ms } : { ms, problem: `the site received ${JSON.stringify(got)}` };
          }
          await new Promise((r) => setTimeout(r, 5));
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
      const scripts = await timeScript(RUNS, (page) => form.script(page, site.origin));
      const jobMedian = median(jobs);
      const scriptMedian = median(scripts);
      results.push({
        form: form.name, system: form.system, passed: !problem, ...(problem && { problem }), job_ms: jobs, script_ms: scripts,
        job_median_ms: jobMedian, script_median_ms: scriptMedian, ratio: Number((jobMedian / scriptMedian).toFixed(2)),
      });
      process.stderr.write(`${form.name}: ${problem ? `FAIL ${problem}` : `ok ${jobMedian} ms vs ${scriptMedian} ms`}\n`);
    }
  } finally {
    await app.close();
    await site.close();
    await rm(dataDir, { recursive: true, force: true });
  }
  const passed = results.filter((r) => r.passed);
  const ratios = passed.map((r) => r.ratio);
  const summary = {
    benchmark: 'builtin autofill on the design-system corpus vs hand-written Playwright scripts of the same forms',
    date: new Date().toISOString(),
    runs_per_form: RUNS,
    forms: results.length,
    passed: passed.length,
    pass_rate: Number((passed.length / Math.max(1, results.length)).toFixed(3)),
    median_ratio: Number(median(ratios).toFixed(2)),
    worst_ratio: Math.max(...ratios),
    ratio_target: RATIO_TARGET,
    job_median_ms: median(passed.map((r) => r.job_median_ms)),
    script_median_ms: median(passed.map((r) => r.script_median_ms)),
    meets_targets: passed.length === results.length && median(ratios) <= RATIO_TARGET,
    per_form: results,
  };
  const out = fileURLToPath(new URL('./results/autofill-design-systems.json', import.meta.url));
  await mkdir(join(out, '..'), { recursive: true });
  await writeFile(out, `${JSON.stringify(summary, null, 2)}\n`);
  const { per_form: _omitted, ...headline } = summary;
  process.stdout.write(`${JSON.stringify(headline)}\n`);
}

/** Field sets equal regardless of key order. */
function sameFields(a: Record<string, string | string[]>, b: Record<string, string | string[]>): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((k) => JSON.stringify(a[k]) === JSON.stringify(b[k]));
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
