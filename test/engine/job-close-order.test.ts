import { isoNow } from '../../src-main/base/clock.ts';
import { newId } from '../../src-main/base/ids.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '../../src-main/agent/agentTypes.ts';
import type { AgentRegistry } from '../../src-main/engine/jobs/jobScheduler.ts';
import { openStore } from '../../src-main/store/store.ts';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { startService, waitForJob, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';

function addProfile(dataDir: string): string {
  const store = openStore(`${dataDir}/portico.db`);
  const id = newId();
  store.profiles.insert({
    id,
    org_id: 'default',
    name: 'p',
    provider_profile_id: `local:${id}`,
    created_at: isoNow(),
    updated_at: isoNow(),
  });
  store.close();
  return id;
}

describe("the job's browser closes before its final status, unless it keeps nothing", () => {
  let svc: TestService;
  let pages: PageServer;
  /** The job's status as its browser context began to close, by job id. */
  const statusAtClose = new Map<string, string>();

  /** Opens the page (downloads its file when form_data says so), takes a step, and notes the status its context closes at. */
  const agent: Agent = {
    async run(ctx) {
      await ctx.page.goto(ctx.startUrl);
      if (ctx.formData.download) {
        const download = ctx.page.waitForEvent('download');
        await ctx.page.click('#dl');
        await (await download).path();
      }
      await ctx.recordStep('opened the page');
      const context = ctx.page.context();
      const close = context.close.bind(context);
      const jobId = String(ctx.job?.id);
      context.close = async (...args: Parameters<typeof close>) => {
        const status = await svc.call('getJobStatus', {
          params: { org_id: 'default', endpoint_name: 'order' },
          query: { job_id: jobId },
        });
        statusAtClose.set(jobId, String(status.status));
        return close(...args);
      };
      return { result: {} };
    },
  };
  const registry: AgentRegistry = { get: (model) => (model === 'builtin:autofill' ? agent : undefined) };

  beforeAll(async () => {
    pages = await startPageServer({
      '/form': '<!doctype html><title>Order</title><a id="dl" href="/file.txt" download>get</a>',
      '/file.txt': () => ({
        type: 'text/plain',
        body: 'downloaded content',
        headers: { 'content-disposition': 'attachment; filename="report.txt"' },
      }),
    });
    svc = await startService(undefined, { agents: registry });
    await svc.request('createPortal', {
      params: { org_id: 'default' },
      body: { endpoint_name: 'order', start_url: `${pages.url}/form`, task: 'order' },
    });
  });
  afterAll(async () => {
    await svc.dispose();
    await pages.close();
  });

  const run = async (body: Record<string, unknown>) => {
    const res = await svc.send('startJob', { params: { org_id: 'default', endpoint_name: 'order' }, body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const jobId = String((res.body as { job_id: string }).job_id);
    const done = await waitForJob(svc, 'order', jobId, ['completed', 'failed']);
    expect(done, JSON.stringify(done.error)).toMatchObject({ status: 'completed', has_screenshots: true });
    const closedAt = await until(() => statusAtClose.get(jobId), `the close of job ${jobId}'s browser`);
    return { done, closedAt };
  };

  it('a throwaway browser with nothing to keep closes after the status (its step screenshot already stored)', async () => {
    expect((await run({ form_data: {} })).closedAt).toBe('completed');
  });

  it('a job that downloaded a file closes first: has_downloads is set with the final status', async () => {
    const { done, closedAt } = await run({ form_data: { download: true } });
    expect(closedAt).toBe('running');
    expect(done.downloads_link).not.toBeNull();
  });

  it('a job on a profile closes first (the profile is saved), and on a throwaway copy of one too', async () => {
    const profileId = addProfile(svc.dataDir);
    expect((await run({ form_data: {}, profile_id: profileId })).closedAt).toBe('running');
    expect((await run({ form_data: {}, profile_id: profileId, save_profile: false })).closedAt).toBe('running');
  });
});
