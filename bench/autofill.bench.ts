/**
 * Builtin autofill job vs a hand-written Playwright script, same multi-step form, same run.
 * Targets (issue 3): median job time within 1.5x of the script; job start → first browser action
 * under 300 ms with a warm browser. Writes bench/results/autofill.json.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { govukWizard } from '../test/fixtures/forms/dynamicPages.ts';
import { startFormServer } from '../test/helpers/formServer.ts';
import { median, startBenchApp, timeScript } from './lib.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 9);
const GAP_MS = 250;
const formData = { full_name: 'Ada Lovelace', contact: 'Email', email: 'ada@example.com', date_of_birth: '1990-12-10' };

async function main(): Promise<void> {
  const wizard = govukWizard();
  const firstGetAt: number[] = [];
  const nameHandler = wizard.handlers['/wizard/name'];
  if (!nameHandler) throw new Error('fixture changed: no /wizard/name');
  wizard.handlers['/wizard/name'] = (req, res, post, server) => {
    if (req.method === 'GET') firstGetAt.push(Date.now());
    nameHandler(req, res, post, server);
  };
  const site = await startFormServer(wizard.handlers);
  const dataDir = await mkdtemp(join(tmpdir(), 'portico-bench-'));
  const { app, api } = await startBenchApp(dataDir);
  const results: Record<string, unknown> = {};
  try {
    await api('/portals/default', {
      endpoint_name: 'fishing',
      start_url: site.url('/wizard/name'),
      task: 'Apply for a fishing licence',
      form_schema: {
        type: 'object',
        properties: {
          full_name: { type: 'string' },
          contact: { type: 'string' },
          email: { type: 'string' },
          date_of_birth: { type: 'string', format: 'date' },
        },
      },
    });
    const runJob = async (): Promise<{ totalMs: number; firstActionMs: number; status: string }> => {
      const before = firstGetAt.length;
      const startedAt = Date.now();
      const { job_id: jobId } = (await api('/jobs/default/fishing/start', { form_data: formData })) as {
        job_id: string;
      };
      for (;;) {
        const status = await api(`/task/default/fishing/status?job_id=${jobId}`);
        if (['completed', 'failed', 'cancelled'].includes(String(status.status))) {
          const done = Date.parse(String(status.completed_at));
          return {
            totalMs: done - startedAt,
            firstActionMs: (firstGetAt[before] ?? Number.NaN) - startedAt,
            status: `${String(status.status)}${status.error ? `: ${String(status.error)}` : ''}`,
          };
        }
        await new Promise((r) => setTimeout(r, 5));
      }
    };
    const warm = await runJob();
    if (!warm.status.startsWith('completed')) throw new Error(`warm-up job did not complete: ${warm.status}`);
    const jobs: { totalMs: number; firstActionMs: number }[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      // Jobs arrive a moment apart, as from a script or a person, not within the same millisecond.
      await new Promise((r) => setTimeout(r, GAP_MS));
      const run = await runJob();
      if (!run.status.startsWith('completed')) throw new Error(`job ${i} did not complete: ${run.status}`);
      jobs.push(run);
    }

    const scripts = await timeScript(RUNS, async (page) => {
      await page.goto(site.url('/wizard/name'));
      await page.fill('#full-name', formData.full_name);
      await Promise.all([page.waitForURL('**/wizard/contact'), page.click('button[type=submit]')]);
      await page.check('#contact');
      await page.fill('#contact-email', formData.email);
      await Promise.all([page.waitForURL('**/wizard/dob'), page.click('button[type=submit]')]);
      await page.fill('#dob-day', '10');
      await page.fill('#dob-month', '12');
      await page.fill('#dob-year', '1990');
      await Promise.all([page.waitForURL('**/wizard/check'), page.click('button[type=submit]')]);
      await Promise.all([page.waitForURL('**/wizard/confirmation'), page.click('button[type=submit]')]);
      await page.textContent('.govuk-panel__body');
    });

    const jobMedian = median(jobs.map((j) => j.totalMs));
    const scriptMedian = median(scripts);
    const firstAction = median(jobs.map((j) => j.firstActionMs));
    Object.assign(results, {
      benchmark: 'builtin autofill vs hand-written Playwright script (GOV.UK-style 4-page wizard)',
      date: new Date().toISOString(),
      runs: RUNS,
      gap_between_jobs_ms: GAP_MS,
      job_ms: jobs.map((j) => j.totalMs),
      script_ms: scripts,
      job_median_ms: jobMedian,
      script_median_ms: scriptMedian,
      ratio: Number((jobMedian / scriptMedian).toFixed(2)),
      ratio_target: 1.5,
      first_action_ms: jobs.map((j) => j.firstActionMs),
      first_action_median_ms: firstAction,
      first_action_target_ms: 300,
      meets_targets: jobMedian / scriptMedian <= 1.5 && firstAction < 300,
    });
  } finally {
    await app.close();
    await site.close();
    await rm(dataDir, { recursive: true, force: true });
  }
  const out = fileURLToPath(new URL('./results/autofill.json', import.meta.url));
  await mkdir(join(out, '..'), { recursive: true });
  await writeFile(out, `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(
    `${JSON.stringify({ job_median_ms: results.job_median_ms, script_median_ms: results.script_median_ms, ratio: results.ratio, first_action_median_ms: results.first_action_median_ms, meets_targets: results.meets_targets })}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
