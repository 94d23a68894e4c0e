import { describe, expect, it } from 'vitest';
import { makePortal, runJob, snap, useConsoleWorld } from './harness.ts';

describe('questions a job asks, answered from the console', () => {
  const world = useConsoleWorld();

  it("answers a job's question from the console while its browser is live", async () => {
    const endpoint = world.unique('ask');
    await makePortal(world, endpoint, 'script:ask');
    const jobId = await runJob(world, endpoint, { form_data: {}, human_in_the_loop: true }, ['waiting_for_input']);
    const page = await world.openConsole();
    await page.getByRole('table').getByText('Needs answer').first().waitFor();
    await page.getByRole('table').getByRole('link', { name: endpoint }).click();
    await page.getByRole('heading', { name: 'Which colour?' }).waitFor();
    await page.frameLocator('iframe.live').locator('body[data-state="live"]').waitFor({ timeout: 10_000 });
    await snap(page, 'job-question');
    await page.getByRole('button', { name: 'green' }).click();
    await page.getByLabel('Result JSON').getByText('green').waitFor({ timeout: 15_000 });
    const job = await world.api.call('getJobStatus', {
      params: { org_id: 'default', endpoint_name: endpoint },
      query: { job_id: jobId },
    });
    expect(job.result).toEqual({ colour: 'green' });
  });

  it('a pending question shows on every page: nav badge, tab title, a notice whose link opens the focused question card', async () => {
    const endpoint = world.unique('asker');
    await makePortal(world, endpoint, 'script:ask');
    const page = await world.openConsole({ hash: '#/profiles' });
    await page.getByRole('heading', { name: 'Browser profiles' }).waitFor();
    await runJob(world, endpoint, { form_data: {}, human_in_the_loop: true }, ['waiting_for_input']);
    await page.getByTestId('waiting-badge').getByText('1', { exact: true }).waitFor();
    await expect.poll(() => page.title()).toBe('(1) Needs answer — Portico');
    const jobsLink = page.getByRole('link', { name: 'Jobs', exact: true });
    expect(
      await jobsLink.evaluate((a) => document.getElementById(a.getAttribute('aria-describedby') ?? '')?.textContent),
    ).toBe('1 job needs an answer');
    const notice = page.getByRole('status').filter({ hasText: 'A job is waiting for your answer.' });
    await snap(page, 'question-notice');
    await notice.getByRole('link', { name: `Answer ${endpoint}` }).click();
    const card = page.getByTestId('question-card');
    await card.getByRole('heading', { name: 'Which colour?' }).waitFor();
    await expect.poll(() => card.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await card.getByRole('alert').textContent()).toBe('The job is waiting for you: Which colour?');
    expect(await notice.count()).toBe(0);
    await card.getByRole('button', { name: 'red' }).click();
    await page.getByLabel('Result JSON').getByText('red').waitFor({ timeout: 15_000 });
    await expect.poll(() => page.title(), { timeout: 10_000 }).toBe('Portico');
    expect(await page.getByTestId('waiting-badge').count()).toBe(0);
  });
});
