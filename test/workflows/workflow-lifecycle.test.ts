import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../helpers/fakeClock.ts';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { scriptedRegistry } from '../helpers/scriptedAgents.ts';
import { jsonOf, startService, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';

describe('workflow executions over time: step timing, one run per session, a service stop (real service, real session browser)', () => {
  let svc: TestService;
  let pages: PageServer;
  const clock = new FakeClock();

  beforeAll(async () => {
    pages = await startPageServer({ '/app': '<!doctype html><title>App</title><p>waiting</p>' });
    svc = await startService(undefined, { agents: scriptedRegistry, sessionPoolSize: 0, clock: clock });
    expect(
      (
        await svc.request('createPortal', {
          params: { org_id: 'default' },
          body: { endpoint_name: 'hangs', start_url: `${pages.url}/app`, task: 'script:hang' },
        })
      ).status,
    ).toBe(200);
  });
  afterAll(async () => {
    await svc?.dispose();
    await pages?.close();
  });

  it('steps are timed on the service clock: a portal step lasts as long as its job', async () => {
    const key = svc.accountKey;
    const api = async (path: string, json?: unknown) =>
      jsonOf(await svc.api(path, { key, ...(json !== undefined && { method: 'POST', json }) }));
    const workflow = (
      await api('/public/workflows', {
        name: 'Timed',
        steps: [{ action: `go to ${pages.url}/app` }, { portal: 'hangs', form_data: {} }],
      })
    ).body as { id: string };
    const t0 = clock.now().toISOString();
    const executionId = String(((await api(`/public/workflows/${workflow.id}/run`, {})).body as { id: string }).id);
    type Detail = {
      status: string;
      error: string | null;
      steps: {
        job_id: string | null;
        started_at: string | null;
        completed_at: string | null;
        success: boolean | null;
      }[];
    };
    const detail = async () => (await api(`/public/workflows/${workflow.id}/executions/${executionId}`)).body as Detail;
    const jobId = await until(async () => (await detail()).steps[1]?.job_id, 'the portal step to start its job');
    clock.advance(7_000);
    expect(
      (
        await svc.request('cancelJob', {
          params: { org_id: 'default', endpoint_name: 'hangs' },
          query: { job_id: jobId },
        })
      ).status,
    ).toBe(200);
    const done = await until(async () => {
      const d = await detail();
      return d.status !== 'running' ? d : undefined;
    }, 'the execution to end');
    expect(done.status).toBe('failed');
    expect(done.steps.map((s) => [s.started_at, s.completed_at, s.success])).toEqual([
      [t0, t0, true],
      [t0, new Date(Date.parse(t0) + 7_000).toISOString(), false],
    ]);
    expect(done.error).toContain('Step 1 (run portal hangs) failed');
  });

  it('one execution per session at a time (409); a stop fails the running one with its reason, and after the restart nothing reads running', async () => {
    // Keys are printed at the first start only: kept for after the restart.
    const key = svc.accountKey;
    const api = async (path: string, json?: unknown) =>
      jsonOf(await svc.api(path, { key, ...(json !== undefined && { method: 'POST', json }) }));
    const session = (await api('/public/sessions', {})).body as { session_id: string };
    const workflow = (
      await api('/public/workflows', {
        name: 'Waits',
        steps: [{ portal: 'hangs', form_data: {} }, { action: 'press Enter' }],
      })
    ).body as { id: string };
    const started = await api(`/public/workflows/${workflow.id}/run`, { session_id: session.session_id });
    expect(started).toMatchObject({ status: 200, body: { status: 'running' } });
    const executionId = String((started.body as { id: string }).id);
    const detail = async () =>
      (await api(`/public/workflows/${workflow.id}/executions/${executionId}`)).body as {
        status: string;
        error: string | null;
        steps: { job_id: string | null; success: boolean | null }[];
      };
    await until(async () => (await detail()).steps[0]?.job_id, 'the portal step to start its job');
    expect(await api(`/public/workflows/${workflow.id}/run`, { session_id: session.session_id })).toEqual({
      status: 409,
      body: { detail: 'This session is running another workflow execution' },
    });

    await svc.stop();
    svc = await startService(svc.dataDir, { agents: scriptedRegistry, sessionPoolSize: 0 });
    const after = await detail();
    expect(after.status).toBe('failed');
    expect(after.error).toMatch(/^Step 0 \(run portal hangs\) failed: ./);
    expect(after.steps.map((s) => s.success)).toEqual([false, null]);
    expect(await api(`/public/workflows/${workflow.id}/executions/${executionId}/resume`, {})).toEqual({
      status: 409,
      body: { detail: 'The session of this execution has ended (terminated or expired); start a new run instead' },
    });
  });
});
