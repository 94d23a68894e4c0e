import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { makePortal, runJob, useConsoleWorld } from './harness.ts';

/** Counts the job page's status polls (`GET /task/…/status?job_id=`) from now on. */
function countStatusPolls(page: Page): { readonly count: number } {
  const counter = { count: 0 };
  page.on('request', (request) => {
    if (/\/task\/[^/]+\/[^/]+\/status\?/.test(request.url())) counter.count += 1;
  });
  return counter;
}

describe('job updates: a light Jobs list, status pushed over the log stream, polling only when the stream is down (issue 10 item 6)', () => {
  const world = useConsoleWorld();

  async function waitingJob(): Promise<{ endpoint: string; jobId: string; answer: () => Promise<void> }> {
    const endpoint = world.unique('pushed');
    await makePortal(world, endpoint, 'script:ask');
    const jobId = await runJob(world, endpoint, { form_data: {}, human_in_the_loop: true }, ['waiting_for_input']);
    const params = { org_id: 'default', endpoint_name: endpoint };
    const answer = async () => {
      const status = await world.api.call('getJobStatus', { params, query: { job_id: jobId } });
      const question = status.events.find((e) => e.type === 'question');
      if (question?.type !== 'question') throw new Error('no question');
      await world.api.call('answerJob', {
        params,
        query: { job_id: jobId },
        body: { question_id: question.data.question_id, answer: 'green' },
      });
    };
    return { endpoint, jobId, answer };
  }

  it('the Jobs page reads the summary list: no result and no events per row', async () => {
    const { jobId, answer } = await waitingJob();
    await answer();
    const page = await world.openConsole();
    // The Jobs page's own list (the pending-questions badge polls the same route with status=waiting_for_input).
    const listed = page.waitForResponse(
      (r) => r.url().includes('/jobs/default/summary') && !r.url().includes('status=waiting_for_input'),
    );
    await page.evaluate(() => {
      window.location.hash = '#/jobs';
    });
    const body = (await (await listed).json()) as { jobs: Record<string, unknown>[]; total: number };
    const row = body.jobs.find((j) => j.job_id === jobId);
    expect(row).toMatchObject({ job_id: jobId, log_url: expect.stringContaining(jobId) });
    expect(row).not.toHaveProperty('events');
    expect(row).not.toHaveProperty('result');
    await page.locator('a.row-link').first().waitFor();
    // The full list still carries both, and bad filters are refused with a detail.
    const full = await world.api.call('listJobs', { params: { org_id: 'default' }, query: { limit: 1 } });
    expect(full.jobs[0]).toHaveProperty('events');
    const bad = await world.svc.request('listJobSummaries', {
      params: { org_id: 'default' },
      query: { status: 'nope', limit: '0' },
    });
    expect(bad.status).toBeGreaterThanOrEqual(400);
    expect(bad.status).toBeLessThan(500);
    expect(await bad.json()).toHaveProperty('detail');
  });

  it('while the stream is connected the job page does not poll: the answer and the end arrive pushed', async () => {
    const { endpoint, jobId, answer } = await waitingJob();
    const page = await world.openConsole({ hash: `#/jobs/${endpoint}/${jobId}` });
    await page.locator('[data-updates="pushed"]').waitFor({ timeout: 15_000 });
    await page.getByTestId('question-card').waitFor();
    const polls = countStatusPolls(page);
    await answer();
    await page.getByLabel('Result JSON').getByText('green').waitFor({ timeout: 20_000 });
    await page.locator('h1').getByText('Completed').waitFor();
    await page.getByText('complete', { exact: true }).waitFor();
    expect(polls.count).toBe(0);
    // A bad flag on the stream is refused, not ignored.
    const bad = await world.svc.request('streamJobLogs', {
      params: { org_id: 'default', endpoint_name: endpoint },
      query: { job_id: jobId, status: 'maybe' },
    });
    expect(bad.status).toBeGreaterThanOrEqual(400);
    expect(bad.status).toBeLessThan(500);
  }, 60_000);

  it('when the stream drops the page falls back to polling and still follows the job to its end', async () => {
    const { endpoint, jobId, answer } = await waitingJob();
    const page = await world.openConsole();
    // The stream answers with the status once, then is cut (no `end`), every time it is opened.
    const stale = await world.api.call('getJobStatus', {
      params: { org_id: 'default', endpoint_name: endpoint },
      query: { job_id: jobId },
    });
    await page.route(/\/logs\?job_id=/, (route) =>
      route.fulfill({
        status: 200,
        contentType: 'text/event-stream',
        body: `event: status\ndata: ${JSON.stringify(stale)}\n\n`,
      }),
    );
    const polls = countStatusPolls(page);
    await page.evaluate((hash) => {
      window.location.hash = hash;
    }, `#/jobs/${endpoint}/${jobId}`);
    await page.getByTestId('question-card').waitFor();
    await page.locator('[data-updates="polled"]').waitFor();
    await page.getByText('interrupted', { exact: true }).waitFor();
    // With no stream and no answer to the polls either, the page claims nothing about the running job.
    await page.route(/\/status\?job_id=/, (route) => route.abort('connectionrefused'));
    await page.locator('h1').getByText('Unknown — Portico is not reachable').waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('question-card').count()).toBe(0);
    await page.unroute(/\/status\?job_id=/);
    await answer();
    await page.locator('h1').getByText('Completed').waitFor({ timeout: 20_000 });
    await page.getByLabel('Result JSON').getByText('green').waitFor();
    expect(polls.count).toBeGreaterThan(1);
  }, 60_000);
});
