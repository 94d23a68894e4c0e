import { describe, expect, it } from 'vitest';
import { seriousAxeViolations, snap, useConsoleWorld } from './harness.ts';

/** A newcomer's console: the empty Jobs page runs the sample (served by Portico itself) to completion; Portals marks samples. */
describe('console: the samples', () => {
  const world = useConsoleWorld({ realAgents: true, samples: true });

  it('the empty Jobs page runs the sample, opens its job and sees it complete with the reference the form gave', async () => {
    const page = await world.openConsole({ hash: '#/jobs' });
    await page.getByText('No jobs yet', { exact: true }).waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);
    await snap(page, 'jobs-empty-samples');
    await page.getByRole('button', { name: 'Run the sample', exact: true }).click();
    await expect.poll(() => new URL(page.url()).hash, { timeout: 10_000 }).toMatch(/^#\/jobs\/parking-permit\//);
    await page.getByText('Completed', { exact: true }).first().waitFor({ timeout: 90_000 });
    await page
      .getByLabel('Result JSON')
      .getByText(/PP-[A-Z0-9]{6}/)
      .waitFor();
    // The other side of the submission: what the sample site itself recorded for that reference.
    const received = page.getByRole('region', { name: 'What the sample form received' });
    await received.getByText('AB12 CDE', { exact: true }).waitFor();
    expect(await received.getByText('2027-01-04', { exact: true }).count()).toBe(1);
    await snap(page, 'sample-completed');
    const jobId = new URL(page.url()).hash.split('/').at(-1) ?? '';
    const status = (await (
      await world.svc.request('getJobStatus', {
        params: { org_id: 'default', endpoint_name: 'parking-permit' },
        query: { job_id: jobId },
      })
    ).json()) as { status: string; result: { reference: string } };
    expect(status.status).toBe('completed');
    expect(
      (
        await world.svc.request('getSampleSubmission', {
          params: { org_id: 'default', reference: status.result.reference },
        })
      ).status,
    ).toBe(200);
  }, 150_000);

  it('Portals marks the samples; a deleted sample is gone until "Add the sample portals" brings it back', async () => {
    const page = await world.openConsole({ hash: '#/portals' });
    const card = page.locator('.card-wrap', { hasText: 'library-card' });
    await card.getByText('Sample', { exact: true }).waitFor();
    await card.getByRole('button', { name: 'Delete sample library-card' }).click();
    await card.getByRole('button', { name: /^Delete library-card/ }).click();
    await expect.poll(() => page.locator('.card-wrap', { hasText: 'library-card' }).count()).toBe(0);
    expect(
      (await world.svc.request('getPortal', { params: { org_id: 'default', endpoint_name: 'library-card' } })).status,
    ).toBe(404);
    await page.getByRole('button', { name: 'Add the sample portals' }).click();
    await page.locator('.card-wrap', { hasText: 'library-card' }).getByText('Sample', { exact: true }).waitFor();
    expect(
      (await world.svc.request('getPortal', { params: { org_id: 'default', endpoint_name: 'library-card' } })).status,
    ).toBe(200);
  });
});
