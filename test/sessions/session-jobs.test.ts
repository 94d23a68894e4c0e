import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.ts';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { scriptedRegistry } from '../helpers/scriptedAgents.ts';
import { jsonOf, startService, waitForJob, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';

describe('a job run inside a live session (browser_session_id): a script logs in by hand over CDP, then hands over', () => {
  let svc: TestService;
  let pages: PageServer;

  const createSession = async (key = svc.accountKey): Promise<{ session_id: string; cdp_url: string }> => {
    const made = await svc.send('createSession', { body: {} }, { key });
    expect(made.status).toBe(200);
    return made.body as { session_id: string; cdp_url: string };
  };
  const start = (endpoint: string, json: Record<string, unknown>) =>
    svc.request('startJob', { params: { org_id: 'default', endpoint_name: endpoint }, body: json });

  beforeAll(async () => {
    pages = await startPageServer({ '/app': '<!doctype html><title>App</title><p>signed-in area</p>' });
    svc = await startService(undefined, { agents: scriptedRegistry });
    for (const [endpoint_name, task] of [
      ['stored', 'script:storage'],
      ['hangs', 'script:hang'],
    ]) {
      expect(
        (
          await svc.request('createPortal', {
            params: { org_id: 'default' },
            body: { endpoint_name, start_url: `${pages.url}/app`, task },
          })
        ).status,
      ).toBe(200);
    }
  });
  afterAll(async () => {
    await svc?.dispose();
    await pages?.close();
  });

  it("the job drives the session's page, with what the script did by hand, and the session stays alive afterwards", async () => {
    const session = await createSession();
    const client: Browser = await chromium.connectOverCDP(session.cdp_url);
    const page = client.contexts()[0]!.pages()[0]!;
    await page.goto(`${pages.url}/app`);
    await page.evaluate(() => {
      document.cookie = 'login=alice; path=/';
      localStorage.setItem('remember', 'by-hand');
    });

    const started = await jsonOf(await start('stored', { form_data: {}, browser_session_id: session.session_id }));
    expect(started.status).toBe(200);
    const done = await waitForJob(svc, 'stored', String((started.body as { job_id: string }).job_id), [
      'completed',
      'failed',
    ]);
    expect(done).toMatchObject({ status: 'completed', result: { cookie: 'login=alice', remember: 'by-hand' } });

    // Without the session, a job gets a fresh browser that knows nothing of it.
    const fresh = await jsonOf(await start('stored', { form_data: {} }));
    const freshDone = await waitForJob(svc, 'stored', String((fresh.body as { job_id: string }).job_id), [
      'completed',
      'failed',
    ]);
    expect(freshDone).toMatchObject({ status: 'completed', result: { cookie: '', remember: null } });

    expect(
      (await svc.send('getSession', { params: { session_id: session.session_id } }, { key: svc.accountKey })).body,
    ).toMatchObject({ status: 'active' });
    expect(client.isConnected()).toBe(true);
    expect(page.url()).toBe(`${pages.url}/app`);
    await client.close();
    await svc.request('terminateSession', { params: { session_id: session.session_id } }, { key: svc.accountKey });
  });

  it('a single action on a session a job is driving is 409 and touches nothing; once the job has ended it runs', async () => {
    const session = await createSession();
    const started = await jsonOf(await start('hangs', { form_data: {}, browser_session_id: session.session_id }));
    const jobId = String((started.body as { job_id: string }).job_id);
    await waitForJob(svc, 'hangs', jobId, ['running']);
    const events = async () =>
      (
        (
          await svc.send('getJobStatus', {
            params: { org_id: 'default', endpoint_name: 'hangs' },
            query: { job_id: jobId },
          })
        ).body as { events?: { type: string }[] }
      ).events ?? [];
    await until(async () => (await events()).some((event) => event.type === 'step'), 'the job to open its page');

    const act = () =>
      svc.request(
        'runSingleAction',
        { body: { session_id: session.session_id, action: `go to ${pages.url}/app`, set_cache: false } },
        { key: svc.accountKey },
      );
    expect(await jsonOf(await act())).toEqual({
      status: 409,
      body: { detail: 'This session is running a job; try the action again when the job has ended' },
    });

    expect(
      (
        await svc.request('cancelJob', {
          params: { org_id: 'default', endpoint_name: 'hangs' },
          query: { job_id: jobId },
        })
      ).status,
    ).toBe(200);
    await waitForJob(svc, 'hangs', jobId, ['cancelled']);
    const after = await jsonOf(await act());
    expect(after).toMatchObject({ status: 200, body: { success: true } });
    await svc.request('terminateSession', { params: { session_id: session.session_id } }, { key: svc.accountKey });
  });

  it('a session ending under a running job fails the job and says so', async () => {
    const session = await createSession();
    const started = await jsonOf(await start('hangs', { form_data: {}, browser_session_id: session.session_id }));
    const jobId = String((started.body as { job_id: string }).job_id);
    await waitForJob(svc, 'hangs', jobId, ['running']);
    // Let the job reach its page before the session goes.
    const events = async () =>
      (
        (
          await svc.send('getJobStatus', {
            params: { org_id: 'default', endpoint_name: 'hangs' },
            query: { job_id: jobId },
          })
        ).body as { events?: { type: string }[] }
      ).events ?? [];
    await until(async () => (await events()).some((event) => event.type === 'step'), 'the job to open its page');
    await svc.request('terminateSession', { params: { session_id: session.session_id } }, { key: svc.accountKey });
    const failed = await waitForJob(svc, 'hangs', jobId, ['failed', 'completed', 'cancelled']);
    expect(failed.status).toBe('failed');
    expect(String(failed.error)).toContain('session ended');
  });

  it("an unknown, ended or other org's session is 404 Session not found; profile_id or proxy with it is 422; nothing is queued", async () => {
    const before = ((await svc.send('listJobs', { params: { org_id: 'default' } })).body as { total: number }).total;
    expect(
      await jsonOf(
        await start('stored', { form_data: {}, browser_session_id: '00000000-0000-4000-8000-000000000000' }),
      ),
    ).toEqual({ status: 404, body: { detail: 'Session not found' } });
    const ended = await createSession();
    await svc.request('terminateSession', { params: { session_id: ended.session_id } }, { key: svc.accountKey });
    expect(await jsonOf(await start('stored', { form_data: {}, browser_session_id: ended.session_id }))).toEqual({
      status: 404,
      body: { detail: 'Session not found' },
    });

    expect((await cli(svc.dataDir, ['org', 'create', 'rival'])).code).toBe(0);
    const rivalKey = String(
      (await cli(svc.dataDir, ['user', 'create', 'spy', '--workspace', 'rivals', '--org', 'rival'])).json.api_key,
    );
    const theirs = await createSession(rivalKey);
    expect(await jsonOf(await start('stored', { form_data: {}, browser_session_id: theirs.session_id }))).toEqual({
      status: 404,
      body: { detail: 'Session not found' },
    });

    const mine = await createSession();
    const withProfile = await jsonOf(
      await start('stored', {
        form_data: {},
        browser_session_id: mine.session_id,
        profile_id: '00000000-0000-4000-8000-000000000000',
      }),
    );
    expect(withProfile.status).toBe(422);
    expect(String((withProfile.body as { detail: string }).detail)).toContain('browser_session_id');
    expect((await jsonOf(await start('stored', { form_data: {}, browser_session_id: 'not-a-uuid' }))).status).toBe(422);
    expect(((await svc.send('listJobs', { params: { org_id: 'default' } })).body as { total: number }).total).toBe(
      before,
    );
    for (const [id, key] of [
      [theirs.session_id, rivalKey],
      [mine.session_id, svc.accountKey],
    ] as const) {
      await svc.request('terminateSession', { params: { session_id: id } }, { key });
    }
  });
});
