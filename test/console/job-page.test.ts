import { describe, expect, it } from 'vitest';
import { makePortal, runJob, snap, useConsoleWorld } from './harness.ts';

describe('job page: input, questions and answers, captions, run again, failure screenshot (console item 9)', () => {
  const world = useConsoleWorld();

  it('shows the input data, the question with its answer, and a caption on every step', async () => {
    const endpoint = world.unique('asks');
    await makePortal(world, endpoint, 'script:ask', {
      form_schema: { type: 'object', properties: { full_name: { type: 'string' } } },
    });
    const jobId = await runJob(world, endpoint, { form_data: { full_name: 'Ada Lovelace' }, human_in_the_loop: true }, [
      'waiting_for_input',
    ]);
    const page = await world.openConsole({ hash: `#/jobs/${endpoint}/${jobId}` });
    const history = page.getByRole('list', { name: 'Questions and answers' });
    await history.getByText('Which colour?').waitFor();
    await history.getByText('Waiting for your answer').waitFor();
    await page.getByTestId('question-card').getByRole('button', { name: 'green' }).click();
    await page.getByLabel('Result JSON').getByText('green').waitFor({ timeout: 20_000 });
    await history.getByText('Answered: green').waitFor();
    expect(JSON.parse((await page.getByLabel('Input data').textContent()) ?? '')).toEqual({
      full_name: 'Ada Lovelace',
    });
    await page.getByText('asks you when data is missing').waitFor();
    await page.getByRole('button', { name: /^Step 1 screenshot\W+typed green$/ }).click();
    await page.locator('.shot-large figcaption').getByText('Step 1 (1 of 1) — typed green').waitFor();
    await snap(page, 'job-page-history');
  });

  it('shows the receipt of what the form sent: where, each field (secrets masked), the status, what was checked and what was not', async () => {
    const endpoint = world.unique('receipt');
    await makePortal(world, endpoint, 'script:submission');
    const jobId = await runJob(world, endpoint, { form_data: { full_name: 'Ada Lovelace' } }, ['completed']);
    const page = await world.openConsole({ hash: `#/jobs/${endpoint}/${jobId}` });
    const receipt = page.getByRole('region', { name: 'Submission receipt' });
    await receipt.getByText('HTTP 201').waitFor();
    expect(await receipt.getByTestId('receipt-url').textContent()).toMatch(/\/apply\?session=\[redacted\]$/);
    const rows = await receipt.getByRole('table', { name: 'Fields sent' }).locator('tbody tr').allInnerTexts();
    expect(rows.map((r) => r.replace(/\s+/g, ' ').trim())).toEqual([
      'fn Ada Lovelace',
      'pw [secret]',
      'topics news, events',
    ]);
    expect(await receipt.getByTestId('receipt-verified').textContent()).toBe('full_name, password');
    expect(await receipt.getByTestId('receipt-unverified').textContent()).toBe('topics');
    await receipt.getByText('a'.repeat(64)).waitFor();
  });

  it('"Run again" starts the same portal with the same input data and options', async () => {
    const endpoint = world.unique('again');
    await makePortal(world, endpoint, 'script:visit', {
      form_schema: { type: 'object', properties: { full_name: { type: 'string' } } },
    });
    const first = await runJob(
      world,
      endpoint,
      { form_data: { full_name: 'Grace Hopper' }, human_in_the_loop: false },
      ['completed'],
    );
    const page = await world.openConsole({ hash: `#/jobs/${endpoint}/${first}` });
    await page.getByRole('button', { name: 'Run again' }).click();
    await expect.poll(() => page.url()).not.toContain(first);
    const second = page.url().split('/').at(-1) ?? '';
    await page.getByText('Completed', { exact: true }).first().waitFor({ timeout: 20_000 });
    expect(JSON.parse((await page.getByLabel('Input data').textContent()) ?? '')).toEqual({
      full_name: 'Grace Hopper',
    });
    const job = await world.api.call('getJobStatus', {
      params: { org_id: 'default', endpoint_name: endpoint },
      query: { job_id: second },
    });
    const queued = job.events.find((e) => e.type === 'queued');
    expect(queued?.type === 'queued' && queued.data).toMatchObject({
      form_data: { full_name: 'Grace Hopper' },
      human_in_the_loop: false,
    });
    expect(job.result).toMatchObject({ echo: { full_name: 'Grace Hopper' } });
  });

  it('"Run again" asks for the secret values the job page never shows, then runs with them', async () => {
    const endpoint = world.unique('secret');
    await makePortal(world, endpoint, 'script:visit', {
      form_schema: {
        type: 'object',
        properties: { email: { type: 'string' }, password: { type: 'string', format: 'password' } },
      },
    });
    const first = await runJob(
      world,
      endpoint,
      { form_data: { email: 'ada@example.org', password: 'hunter2-secret' } },
      ['completed'],
    );
    const page = await world.openConsole({ hash: `#/jobs/${endpoint}/${first}` });
    expect(JSON.parse((await page.getByLabel('Input data').textContent()) ?? '')).toEqual({ email: 'ada@example.org' });
    await page.getByRole('button', { name: 'Run again' }).click();
    const ask = page.getByRole('form', { name: 'Values to type again' });
    await ask.getByLabel('password').fill('hunter3-secret');
    await ask.getByRole('button', { name: 'Run with these' }).click();
    await expect.poll(() => page.url()).not.toContain(first);
    const second = page.url().split('/').at(-1) ?? '';
    await page.getByText('Completed', { exact: true }).first().waitFor({ timeout: 20_000 });
    const job = await world.api.call('getJobStatus', {
      params: { org_id: 'default', endpoint_name: endpoint },
      query: { job_id: second },
    });
    expect(job.result).toMatchObject({ echo: { email: 'ada@example.org', password: 'hunter3-secret' } });
  });

  it("labels a failed job's last screenshot as the failure screenshot", async () => {
    const endpoint = world.unique('fails');
    await makePortal(world, endpoint, 'script:fail');
    const jobId = await runJob(world, endpoint, { form_data: {} }, ['failed']);
    const page = await world.openConsole({ hash: `#/jobs/${endpoint}/${jobId}` });
    await page.getByRole('alert').getByText("No control on the page matches form_data key 'passport_number'").waitFor();
    const shot = page.getByRole('button', { name: /^Failure screenshot\W+the page when the job failed$/ });
    await shot.click();
    await page
      .locator('.shot-large figcaption')
      .getByText(/^Failure screenshot/)
      .waitFor();
    expect(await page.getByTestId('screenshot-large').getAttribute('alt')).toBe('Failure screenshot, full size');
    await page.getByText('The job asked nothing.').waitFor();
    await snap(page, 'job-page-failed');
  });
});
