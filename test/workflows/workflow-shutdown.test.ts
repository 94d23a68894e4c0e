import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { scriptedRegistry } from '../helpers/scriptedAgents.ts';
import { jsonOf, startService, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';

describe('a workflow execution across a service stop (real service, real session browser)', () => {
  let svc: TestService;
  let pages: PageServer;

  beforeAll(async () => {
    pages = await startPageServer({ '/app': '<!doctype html><title>App</title><p>waiting</p>' });
    svc = await startService(undefined, { agents: scriptedRegistry, sessionPoolSize: 0 });
    expect((await svc.api('/portals/default', { method: 'POST', json: { endpoint_name: 'hangs', start_url: `${pages.url}/app`, task: 'script:hang' } })).status).toBe(200);
  });
  afterAll(async () => {
    await svc?.dispose();
    await pages?.close();
  });

  it('one execution per session at a time (409); a stop fails the running one with its reason, and after the restart nothing reads running', async () => {
    // Keys are printed at the first start only: kept for after the restart.
    const key = svc.accountKey;
    const api = async (path: string, json?: unknown) => jsonOf(await svc.api(path, { key, ...(json !== undefined && { method: 'POST', json }) }));
    const session = (await api('/public/sessions', {})).body as { session_id: string };
    const workflow = (await api('/public/workflows', { name: 'Waits', steps: [{ portal: 'hangs', form_data: {} }, { action: 'press Enter' }] })).body as { id: string };
    const started = await api(`/public/workflows/${workflow.id}/run`, { session_id: session.session_id });
    expect(started).toMatchObject({ status: 200, body: { status: 'running' } });
    const executionId = String((started.body as { id: string }).id);
    const detail = async () => (await api(`/public/workflows/${workflow.id}/executions/${executionId}`)).body as { status: string; error: string | null; steps: { job_id: string | null; success: boolean | null }[] };
    await until(async () => (await detail()).steps[0]?.job_id, 'the portal step to start its job');
    expect(await api(`/public/workflows/${workflow.id}/run`, { session_id: session.session_id }))
      .toEqual({ status: 409, body: { detail: 'This session is running another workflow execution' } });

    await svc.stop();
    svc = await startService(svc.dataDir, { agents: scriptedRegistry, sessionPoolSize: 0 });
    const after = await detail();
    expect(after.status).toBe('failed');
    expect(after.error).toMatch(/^Step 0 \(run portal hangs\) failed: ./);
    expect(after.steps.map((s) => s.success)).toEqual([false, null]);
    expect(await api(`/public/workflows/${workflow.id}/executions/${executionId}/resume`, {}))
      .toEqual({ status: 409, body: { detail: 'The session of this execution has ended (terminated or expired); start a new run instead' } });
  });
});
