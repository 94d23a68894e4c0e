import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.ts';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { scriptedRegistry } from '../helpers/scriptedAgents.ts';
import { jsonOf, startService, waitForJob, type TestService } from '../helpers/service.ts';

const previousHeadless = process.env.PORTICO_HEADLESS;
process.env.PORTICO_HEADLESS = '1';

describe('a portal with browser_session_id runs its jobs inside that live session', () => {
  let svc: TestService;
  let pages: PageServer;
  const opened: { id: string; key: string }[] = [];

  const createSession = async (key = svc.accountKey): Promise<{ session_id: string; cdp_url: string }> => {
    const made = await svc.send('createSession', { body: {} }, { key });
    expect(made.status).toBe(200);
    const session = made.body as { session_id: string; cdp_url: string };
    opened.push({ id: session.session_id, key });
    return session;
  };
  const terminate = (sessionId: string, key = svc.accountKey) =>
    svc.request('terminateSession', { params: { session_id: sessionId } }, { key });
  /** A session whose page a script signed into by hand over CDP (a cookie and localStorage). */
  const signedInSession = async (who: string): Promise<string> => {
    const session = await createSession();
    const client: Browser = await chromium.connectOverCDP(session.cdp_url);
    const page = client.contexts()[0]!.pages()[0]!;
    await page.goto(`${pages.url}/app`);
    await page.evaluate((name) => {
      document.cookie = `login=${name}; path=/`;
      localStorage.setItem('remember', `by-hand-${name}`);
    }, who);
    await client.close();
    return session.session_id;
  };
  const createPortal = (json: Record<string, unknown>) =>
    svc.request('createPortal', {
      params: { org_id: 'default' },
      body: { start_url: `${pages.url}/app`, task: 'script:storage', ...json },
    });
  const patchPortal = (endpoint: string, json: Record<string, unknown>) =>
    svc.request('updatePortal', { params: { org_id: 'default', endpoint_name: endpoint }, body: json });
  const getPortal = async (endpoint: string) =>
    await svc.send('getPortal', { params: { org_id: 'default', endpoint_name: endpoint } });
  const start = (endpoint: string, json: Record<string, unknown>) =>
    svc.request('startJob', { params: { org_id: 'default', endpoint_name: endpoint }, body: json });
  const run = async (endpoint: string, json: Record<string, unknown> = {}) => {
    const started = await jsonOf(await start(endpoint, { form_data: {}, ...json }));
    expect(started.status).toBe(200);
    return waitForJob(svc, endpoint, String((started.body as { job_id: string }).job_id), ['completed', 'failed']);
  };
  const jobTotal = async () =>
    ((await svc.send('listJobs', { params: { org_id: 'default' } })).body as { total: number }).total;

  beforeAll(async () => {
    pages = await startPageServer({ '/app': '<!doctype html><title>App</title><p>signed-in area</p>' });
    svc = await startService(undefined, { agents: scriptedRegistry });
  });
  afterAll(async () => {
    for (const { id, key } of opened)
      await svc?.api(`/public/sessions/${id}/terminate`, { method: 'POST', key }).catch(() => undefined);
    await svc?.dispose();
    await pages?.close();
    if (previousHeadless === undefined) delete process.env.PORTICO_HEADLESS;
    else process.env.PORTICO_HEADLESS = previousHeadless;
  });

  it('a job on the portal sees what a script did by hand in the session; a job naming its own session wins; PATCH null detaches', async () => {
    const alice = await signedInSession('alice');
    const created = await jsonOf(await createPortal({ endpoint_name: 'in-session', browser_session_id: alice }));
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ browser_session_id: alice, profile_id: null });
    expect((await getPortal('in-session')).body).toMatchObject({ browser_session_id: alice });
    expect(
      (
        (await svc.send('listPortals', { params: { org_id: 'default' } })).body as {
          endpoint_name: string;
          browser_session_id: string | null;
        }[]
      ).find((p) => p.endpoint_name === 'in-session')?.browser_session_id,
    ).toBe(alice);

    // No browser_session_id on the job: the portal's session is used.
    expect(await run('in-session')).toMatchObject({
      status: 'completed',
      result: { cookie: 'login=alice', remember: 'by-hand-alice' },
    });
    expect(
      (await svc.send('getSession', { params: { session_id: alice } }, { key: svc.accountKey })).body,
    ).toMatchObject({ status: 'active' });

    // The job's own session wins over the portal's.
    const bob = await signedInSession('bob');
    expect(await run('in-session', { browser_session_id: bob })).toMatchObject({
      status: 'completed',
      result: { cookie: 'login=bob', remember: 'by-hand-bob' },
    });

    // A PATCH of other fields keeps the session; null detaches it and jobs get a fresh browser again.
    expect((await jsonOf(await patchPortal('in-session', { task: 'script:storage' }))).body).toMatchObject({
      browser_session_id: alice,
    });
    const detached = await jsonOf(await patchPortal('in-session', { browser_session_id: null }));
    expect(detached).toMatchObject({ status: 200, body: { browser_session_id: null } });
    expect((await getPortal('in-session')).body).toMatchObject({ browser_session_id: null });
    expect(await run('in-session')).toMatchObject({ status: 'completed', result: { cookie: '', remember: null } });

    // PATCH attaches one to a portal made without.
    expect((await jsonOf(await createPortal({ endpoint_name: 'attach-later' }))).body).toMatchObject({
      browser_session_id: null,
    });
    expect((await jsonOf(await patchPortal('attach-later', { browser_session_id: bob }))).body).toMatchObject({
      browser_session_id: bob,
    });
    expect(await run('attach-later')).toMatchObject({ status: 'completed', result: { cookie: 'login=bob' } });
    await terminate(alice);
    await terminate(bob);
  });

  it('a portal whose session has ended: job start is 404 Session not found and nothing is queued; the portal stays editable', async () => {
    const session = await signedInSession('carol');
    expect((await createPortal({ endpoint_name: 'ended', browser_session_id: session })).status).toBe(200);
    expect((await terminate(session)).status).toBe(200);
    const before = await jobTotal();
    expect(await jsonOf(await start('ended', { form_data: {} }))).toEqual({
      status: 404,
      body: { detail: 'Session not found' },
    });
    expect(await jobTotal()).toBe(before);
    // The stored, ended session does not block other edits; a job naming a live session still runs.
    expect((await jsonOf(await patchPortal('ended', { webhook_url: null }))).status).toBe(200);
    const live = await signedInSession('dave');
    expect(await run('ended', { browser_session_id: live })).toMatchObject({
      status: 'completed',
      result: { cookie: 'login=dave' },
    });
    await terminate(live);
  });

  it("an unknown, ended or other org's session at portal create or PATCH is 404 Session not found and writes nothing", async () => {
    const notFound = { status: 404, body: { detail: 'Session not found' } };
    expect(
      await jsonOf(
        await createPortal({ endpoint_name: 'unknown', browser_session_id: '00000000-0000-4000-8000-000000000000' }),
      ),
    ).toEqual(notFound);
    expect((await getPortal('unknown')).status).toBe(404);

    const ended = await createSession();
    await terminate(ended.session_id);
    expect(
      await jsonOf(await createPortal({ endpoint_name: 'ended-at-create', browser_session_id: ended.session_id })),
    ).toEqual(notFound);
    expect((await getPortal('ended-at-create')).status).toBe(404);

    expect((await cli(svc.dataDir, ['org', 'create', 'rival'])).code).toBe(0);
    const rivalKey = String(
      (await cli(svc.dataDir, ['user', 'create', 'spy', '--workspace', 'rivals', '--org', 'rival'])).json.api_key,
    );
    const theirs = await createSession(rivalKey);
    expect(
      await jsonOf(await createPortal({ endpoint_name: 'theirs', browser_session_id: theirs.session_id })),
    ).toEqual(notFound);
    expect((await getPortal('theirs')).status).toBe(404);

    // PATCH: refused whole, the other fields in the same request are not written either.
    expect((await createPortal({ endpoint_name: 'patched' })).status).toBe(200);
    const before = (await getPortal('patched')).body;
    expect(
      await jsonOf(await patchPortal('patched', { task: 'changed', browser_session_id: theirs.session_id })),
    ).toEqual(notFound);
    expect(
      await jsonOf(await patchPortal('patched', { task: 'changed', browser_session_id: ended.session_id })),
    ).toEqual(notFound);
    expect((await getPortal('patched')).body).toEqual(before);

    // Malformed ids are 422.
    for (const bad of ['not-a-uuid', 42, '../../etc/passwd', 'x'.repeat(10_000)]) {
      const answer = await jsonOf(await createPortal({ endpoint_name: 'malformed', browser_session_id: bad }));
      expect(answer.status).toBe(422);
      expect(String((answer.body as { detail: string }).detail)).toContain('browser_session_id');
    }
    expect((await getPortal('malformed')).status).toBe(404);
    await terminate(theirs.session_id, rivalKey);
  });

  it('profile_id with browser_session_id on a portal is 422 naming the field; with a portal session, profile_id or proxy on the job is 422', async () => {
    const made = await svc.send('openProfileSession', { params: { org_id: 'default' }, body: { name: 'Bank' } });
    expect(made.status).toBe(200);
    const { profile_id: profileId, session_id: loginSession } = made.body as { profile_id: string; session_id: string };
    expect(
      (await svc.request('closeProfileSession', { params: { org_id: 'default', session_id: loginSession } })).status,
    ).toBe(200);
    const session = await createSession();

    const both = await jsonOf(
      await createPortal({ endpoint_name: 'both', profile_id: profileId, browser_session_id: session.session_id }),
    );
    expect(both.status).toBe(422);
    expect(String((both.body as { detail: string }).detail)).toContain('body.browser_session_id');
    expect((await getPortal('both')).status).toBe(404);

    // A PATCH that would leave both set is refused and writes nothing; clearing the profile in the same PATCH is fine.
    expect((await createPortal({ endpoint_name: 'with-profile', profile_id: profileId })).status).toBe(200);
    const refused = await jsonOf(await patchPortal('with-profile', { browser_session_id: session.session_id }));
    expect(refused.status).toBe(422);
    expect(String((refused.body as { detail: string }).detail)).toContain('profile_id');
    expect((await getPortal('with-profile')).body).toMatchObject({ profile_id: profileId, browser_session_id: null });
    expect(
      (await jsonOf(await patchPortal('with-profile', { profile_id: null, browser_session_id: session.session_id })))
        .body,
    ).toMatchObject({ profile_id: null, browser_session_id: session.session_id });
    // ... and setting a profile on a portal in a session is refused the same way.
    expect((await patchPortal('with-profile', { profile_id: profileId })).status).toBe(422);

    const before = await jobTotal();
    for (const extra of [{ profile_id: profileId }, { proxy: { server: 'http://127.0.0.1:9' } }]) {
      const answer = await jsonOf(await start('with-profile', { form_data: {}, ...extra }));
      expect(answer.status).toBe(422);
      expect(String((answer.body as { detail: string }).detail)).toContain('browser_session_id');
    }
    expect(await jobTotal()).toBe(before);
    await terminate(session.session_id);
  });
});
