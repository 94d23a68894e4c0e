import { describe, expect, it } from 'vitest';
import { makePortal, snap, useConsoleWorld } from './harness.ts';

describe('run form: which engine runs the job is shown and choosable (console item 3)', () => {
  const world = useConsoleWorld({ modelServer: true });

  it('without a model key the form shows built-in autofill as the default and runs with it', async () => {
    const endpoint = world.unique('plain');
    await makePortal(world, endpoint, 'script:visit');
    const page = await world.openConsole({ hash: `#/portals/${endpoint}` });
    const engine = page.getByLabel('Runs with');
    await expect.poll(() => engine.inputValue(), { timeout: 15_000 }).toBe('builtin:autofill');
    expect(await engine.locator('option').allTextContents()).toEqual([
      'Built-in autofill (no model, no credits) — default',
    ]);
    await page
      .getByTestId('orchestrator-note')
      .getByText(/^No model key is saved, so jobs run with the built-in autofill engine/)
      .waitFor();
    await page.getByRole('button', { name: 'Run a job' }).click();
    await page.getByText('Completed', { exact: true }).first().waitFor({ timeout: 20_000 });
    const jobId = page.url().split('/').at(-1) ?? '';
    const job = await world.api.call('getJobStatus', {
      params: { org_id: 'default', endpoint_name: endpoint },
      query: { job_id: jobId },
    });
    expect(job.orchestrator_model).toBe('builtin:autofill');
  });

  it('says when a saved provider key makes a model the default, and autofill can still be chosen', async () => {
    const endpoint = world.unique('keyed');
    await makePortal(world, endpoint, 'script:visit');
    await world.api.call('updateProvider', { params: { provider: 'anthropic' }, body: { api_key: 'sk-ant-run-form' } });
    try {
      const page = await world.openConsole({ hash: `#/portals/${endpoint}` });
      const engine = page.getByLabel('Runs with');
      await expect.poll(() => engine.inputValue(), { timeout: 15_000 }).toBe('anthropic:claude-sonnet-4-6');
      const note = page.getByTestId('orchestrator-note');
      await note
        .getByText(
          'Because an Anthropic key is saved in Settings, jobs default to anthropic:claude-sonnet-4-6, which calls the model and uses credits. Choose Built-in autofill to fill the form without a model.',
        )
        .waitFor();
      expect(await engine.evaluate((select: HTMLSelectElement) => select.getAttribute('aria-describedby'))).toBe(
        'run-orchestrator-note',
      );
      expect(await engine.locator('option').allTextContents()).toEqual([
        'Built-in autofill (no model, no credits)',
        'anthropic:claude-sonnet-4-6 (Anthropic key; uses credits) — default',
        'anthropic:claude-haiku-4-5 (Anthropic key; uses credits)',
      ]);
      await snap(page, 'run-form-keyed-default');
      // The person picks autofill: the job runs with exactly that, not with the model default.
      await engine.selectOption('builtin:autofill');
      await page.getByRole('button', { name: 'Run a job' }).click();
      await page.getByText('Completed', { exact: true }).first().waitFor({ timeout: 20_000 });
      const jobId = page.url().split('/').at(-1) ?? '';
      const job = await world.api.call('getJobStatus', {
        params: { org_id: 'default', endpoint_name: endpoint },
        query: { job_id: jobId },
      });
      expect(job.orchestrator_model).toBe('builtin:autofill');
      expect(world.model.requests).toEqual([]);
    } finally {
      await world.api.call('deleteProviderKey', { params: { provider: 'anthropic' } });
    }
  });
});
