import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.ts';
import { jsonOf, startService, type TestService } from '../helpers/service.ts';

interface SessionBody {
  session_id: string;
  status: string;
  cdp_url: string | null;
}

describe("the console token on /public acts for exactly the operator's default workspace (user local in workspace default)", () => {
  let svc: TestService;
  let otherKey: string;
  const asConsole = (init: { method?: string; json?: unknown; token?: string } = {}) => ({
    key: null,
    headers: { 'x-console-token': init.token ?? svc.consoleToken },
    ...(init.method && { method: init.method }),
    ...(init.json !== undefined && { json: init.json }),
  });

  beforeAll(async () => {
    svc = await startService(undefined, { sessionPoolSize: 0 });
    otherKey = String((await cli(svc.dataDir, ['user', 'create', 'eve', '--workspace', 'elsewhere'])).json.api_key);
  });
  afterAll(async () => {
    await svc?.dispose();
  });

  it("sees and ends the default workspace's sessions, never another workspace's", async () => {
    const mine = (await svc.send('createSession', { body: { timeout_minutes: 5 } }, { key: svc.accountKey }))
      .body as SessionBody;
    const theirs = (await svc.send('createSession', { body: { timeout_minutes: 5 } }, { key: otherKey }))
      .body as SessionBody;
    expect(mine.status).toBe('active');
    expect(theirs.status).toBe('active');

    const listed = await jsonOf(await svc.api('/public/sessions?status_filter=active', asConsole()));
    expect(listed.status).toBe(200);
    const ids = (listed.body as { sessions: SessionBody[] }).sessions.map((s) => s.session_id);
    expect(ids).toContain(mine.session_id);
    expect(ids).not.toContain(theirs.session_id);

    // Another workspace's session is not found for the console, and stays active.
    expect(
      await jsonOf(await svc.api(`/public/sessions/${theirs.session_id}/terminate`, asConsole({ method: 'POST' }))),
    ).toMatchObject({ status: 404 });
    expect(
      (
        (await svc.send('getSession', { params: { session_id: theirs.session_id } }, { key: otherKey }))
          .body as SessionBody
      ).status,
    ).toBe('active');

    // A session the console makes belongs to the default workspace: its account key sees it.
    const made = await jsonOf(
      await svc.api('/public/sessions', asConsole({ method: 'POST', json: { timeout_minutes: 5 } })),
    );
    expect(made.status).toBe(200);
    const madeId = (made.body as SessionBody).session_id;
    expect((await svc.send('getSession', { params: { session_id: madeId } }, { key: svc.accountKey })).status).toBe(
      200,
    );
    expect((await svc.send('getSession', { params: { session_id: madeId } }, { key: otherKey })).status).toBe(404);

    const ended = await jsonOf(
      await svc.api(`/public/sessions/${mine.session_id}/terminate`, asConsole({ method: 'POST' })),
    );
    expect(ended).toMatchObject({ status: 200, body: { status: 'terminated', cdp_url: null } });
    for (const id of [madeId, theirs.session_id]) {
      await svc.send(
        'terminateSession',
        { params: { session_id: id } },
        { key: id === madeId ? svc.accountKey : otherKey },
      );
    }
  });

  it('a wrong console token is 401; an org key (without the console token) is still 403 on /public', async () => {
    expect(await jsonOf(await svc.api('/public/sessions', asConsole({ token: 'ct_wrong' })))).toEqual({
      status: 401,
      body: { detail: 'Invalid console token' },
    });
    expect(await jsonOf(await svc.api('/public/single-actions/cache', asConsole({ token: '' })))).toEqual({
      status: 401,
      body: { detail: 'Invalid console token' },
    });
    expect(await svc.send('listSessions', {}, { key: svc.orgKey })).toEqual({
      status: 403,
      body: { detail: 'This endpoint requires an account API key' },
    });
    expect(await svc.send('listActionCache', {}, { key: svc.orgKey })).toEqual({
      status: 403,
      body: { detail: 'This endpoint requires an account API key' },
    });
    expect(await jsonOf(await svc.api('/public/single-actions/cache', asConsole()))).toEqual({
      status: 200,
      body: { entries: [], total: 0 },
    });
  });

  it('when user local leaves workspace default the console is refused on /public (403, saying why) until it is back', async () => {
    expect((await cli(svc.dataDir, ['workspace', 'remove-member', 'default', 'local'])).json).toEqual({ ok: true });
    expect(await jsonOf(await svc.api('/public/sessions', asConsole()))).toEqual({
      status: 403,
      body: {
        detail:
          "The console acts on /public routes as user 'local' of workspace 'default', and that user is not a member of it; use an account key",
      },
    });
    // Org routes are unaffected.
    expect((await svc.api('/portals/default', asConsole())).status).toBe(200);
    expect((await cli(svc.dataDir, ['workspace', 'add-member', 'default', 'local'])).json).toEqual({ ok: true });
    expect((await svc.api('/public/sessions', asConsole())).status).toBe(200);
  });
});
