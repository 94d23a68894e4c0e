import { describe, expect, it } from 'vitest';
import { makePortal, runJob, snap, useConsoleWorld } from './harness.ts';

describe('a stopped service clears what the console claimed was live (console item 11)', () => {
  const world = useConsoleWorld();

  it('a job waiting for an answer: once Portico stops, no "Needs answer", no live view, no question: it shows the failure the stop pushed over the log stream', async () => {
    const endpoint = world.unique('asks');
    await makePortal(world, endpoint, 'script:ask');
    const jobId = await runJob(world, endpoint, { form_data: {}, human_in_the_loop: true }, ['waiting_for_input']);
    const page = await world.openConsole({ hash: `#/jobs/${endpoint}/${jobId}` });
    await page.getByTestId('question-card').waitFor();
    await page.frameLocator('iframe.live').locator('body[data-state="live"]').waitFor({ timeout: 15_000 });
    await page.getByTestId('waiting-badge').waitFor();
    await expect.poll(() => page.title()).toBe('(1) Needs answer — Portico');
    await page.getByText('following').waitFor();

    await world.svc.stop();

    await page.getByRole('alert').getByText('Portico is not reachable.').waitFor({ timeout: 20_000 });
    // The stop fails the waiting job, and the log stream pushes that before it closes: the page says so, not "Needs answer".
    await page.locator('h1').getByText('Failed', { exact: true }).waitFor();
    await page.getByRole('alert').getByText('interrupted by shutdown').waitFor();
    await expect.poll(() => page.title()).toBe('Portico');
    expect(await page.getByTestId('waiting-badge').count()).toBe(0);
    expect(await page.getByTestId('question-card').count()).toBe(0);
    expect(await page.locator('iframe.live').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Cancel job' }).count()).toBe(0);
    await page.getByRole('log').getByText('job failed: interrupted by shutdown').waitFor();
    expect(await page.getByText('Needs answer', { exact: true }).count()).toBe(0);
    await snap(page, 'service-stopped-job');
  });
});
