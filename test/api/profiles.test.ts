import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { Profile, ProfileSession } from '../../src-main/contract/profile.ts';
import { cli } from '../helpers/cli.ts';
import {
  html,
  startPageServer,
  startRecordingProxy,
  type LocalServer,
  type RecordingProxy,
} from '../helpers/browserFixtures.ts';
import { jsonOf, startService, type TestService } from '../helpers/service.ts';
import { FakeClock } from '../helpers/fakeClock.ts';
import { until } from '../helpers/wait.ts';

const previousEnv = { headless: process.env.PORTICO_HEADLESS, proxy: process.env.PORTICO_DEFAULT_PROXY };
process.env.PORTICO_HEADLESS = '1';
delete process.env.PORTICO_DEFAULT_PROXY;

const PROFILE_FIELDS = ['created_at', 'id', 'name', 'org_id', 'provider_profile_id', 'updated_at'];
// The service's one clock: the idle expiry of login sessions moves only when the test moves it.
const clock = new FakeClock();

/** Chromium processes running on a folder under `dataDir`: what a leaked browser looks like from outside. */
function browsersOn(dataDir: string): string[] {
  const out = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' });
  return out.split('\n').filter((line) => line.includes(`--user-data-dir=${dataDir}`));
}

interface Created {
  profile_id: string;
  name: string;
  live_url: string;
  session_id: string;
}

describe('profiles (§4.3) and their login sessions', () => {
  let svc: TestService;
  let pages: LocalServer;
  let otherOrgKey: string;
  const cookiesSeen: string[] = [];

  const create = (json: Record<string, unknown>, key?: string) =>
    svc.api('/profiles/default', { method: 'POST', json, ...(key ? { key } : {}) });
  const closeSession = (sessionId: string) =>
    svc.send('closeProfileSession', { params: { org_id: 'default', session_id: sessionId } });
  const listProfiles = async () =>
    (await svc.send('listProfiles', { params: { org_id: 'default' } })).body as Profile[];
  const listSessions = async () =>
    (await svc.send('listProfileSessions', { params: { org_id: 'default' } })).body as ProfileSession[];
  const input = (liveUrl: string, json: unknown) =>
    fetch(`${liveUrl}/input`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(json),
    });

  beforeAll(async () => {
    pages = await startPageServer({
      // The "login": a click sets a cookie and localStorage, the way a site remembers a signed-in user.
      '/login': (req: IncomingMessage, res) => {
        cookiesSeen.push(req.headers.cookie ?? '');
        html(`<style>body{margin:0}</style><button id="go" style="position:absolute;left:0;top:0;width:300px;height:300px">Sign in</button>
          <script>document.getElementById('go').onclick = () => { document.cookie = 'sid=ana-42; Max-Age=86400; Path=/'; localStorage.setItem('who', 'ana'); };</script>`)(
          req,
          res,
        );
      },
    });
    svc = await startService(undefined, { clock });
    otherOrgKey = String((await cli(svc.dataDir, ['org', 'create', 'other'])).json.api_key);
  });

  afterAll(async () => {
    await svc?.dispose();
    await pages?.close();
    for (const [name, value] of [
      ['PORTICO_HEADLESS', previousEnv.headless],
      ['PORTICO_DEFAULT_PROXY', previousEnv.proxy],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  let profileId: string;
  let first: Created;

  it('create opens a login session and answers {profile_id, name, live_url, session_id}', async () => {
    const { status, body } = await jsonOf(
      await create({ name: 'Bank', start_url: pages.url('/login'), timeout_minutes: 100 }),
    );
    expect(status).toBe(200);
    first = body as Created;
    expect(Object.keys(first).sort()).toEqual(['live_url', 'name', 'profile_id', 'session_id']);
    expect(first.name).toBe('Bank');
    expect(first.live_url).toMatch(new RegExp(`^${svc.url}/live/[\\w-]{20,}$`));
    profileId = first.profile_id;
    expect(await listSessions()).toEqual([
      { session_id: first.session_id, profile_id: profileId, live_url: first.live_url, expires_at: expect.any(String) },
    ]);
  });

  it('list shows the profile with exactly the fields of §2.3', async () => {
    const list = await listProfiles();
    expect(list).toHaveLength(1);
    expect(Object.keys(list[0]!).sort()).toEqual(PROFILE_FIELDS);
    expect(list[0]).toMatchObject({
      id: profileId,
      org_id: 'default',
      name: 'Bank',
      provider_profile_id: `local:${profileId}`,
    });
    expect(new Date(list[0]!.created_at).toISOString()).toBe(list[0]!.created_at);
  });

  it('a second session on a profile that is open is 409, and so is deleting it', async () => {
    expect(await jsonOf(await create({ profile_id: profileId }))).toEqual({
      status: 409,
      body: { detail: `Profile '${profileId}' is in use` },
    });
    expect(await svc.send('deleteProfile', { params: { org_id: 'default', profile_id: profileId } })).toEqual({
      status: 409,
      body: { detail: `Profile '${profileId}' is in use` },
    });
  });

  it('closing the session saves the login; a new session on the same profile is still signed in', async () => {
    await input(first.live_url, { kind: 'mouse', type: 'click', x: 150, y: 150 });
    const before = (await listProfiles())[0]!;
    const closed = await closeSession(first.session_id);
    expect(closed).toEqual({
      status: 200,
      body: { success: true, message: expect.any(String), profile_id: profileId, session_id: first.session_id },
    });
    expect(await listSessions()).toEqual([]);
    expect(browsersOn(svc.dataDir)).toEqual([]);
    expect((await listProfiles())[0]!.updated_at > before.updated_at).toBe(true);
    expect(await closeSession(first.session_id)).toEqual({ status: 404, body: { detail: 'Session not found' } });

    cookiesSeen.length = 0;
    const again = await jsonOf(await create({ profile_id: profileId, start_url: pages.url('/login') }));
    expect(again.status).toBe(200);
    const second = again.body as Created;
    expect(second).toMatchObject({ profile_id: profileId, name: 'Bank' });
    expect(second.session_id).not.toBe(first.session_id);
    expect(second.live_url).not.toBe(first.live_url);
    expect(cookiesSeen).toEqual(['sid=ana-42']);
    expect((await closeSession(second.session_id)).status).toBe(200);
  });

  it('delete is 204 once no session is open, and removes the saved state', async () => {
    const folder = join(svc.dataDir, 'profiles', profileId);
    expect(existsSync(folder)).toBe(true);
    const res = await svc.send('deleteProfile', { params: { org_id: 'default', profile_id: profileId } });
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expect(existsSync(folder)).toBe(false);
    expect(await listProfiles()).toEqual([]);
    expect(await svc.send('deleteProfile', { params: { org_id: 'default', profile_id: profileId } })).toEqual({
      status: 404,
      body: { detail: 'Profile not found' },
    });
  });

  // The exact idle expiry is tested in test/engine/profile-sessions.test.ts; here the running service proves
  // the wiring: live-view input reaches the session, and the service's clock ends it.
  it("live-view input moves a session's expiry on; idle for timeout_minutes it closes itself and saves", async () => {
    const { body } = await jsonOf(await create({ timeout_minutes: 3 }));
    const session = body as Created;
    expect(session.name).toMatch(/^Profile \d{4}-\d\d-\d\d \d\d:\d\d$/);
    const createdAt = (await listProfiles()).find((p) => p.id === session.profile_id)!.updated_at;
    const expiry = async () =>
      Date.parse((await listSessions()).find((s) => s.session_id === session.session_id)?.expires_at ?? '');
    const opened = await expiry();
    clock.advance(60_000);
    expect((await input(session.live_url, { kind: 'mouse', type: 'mouseMoved', x: 10, y: 10 })).status).toBe(200);
    expect(await expiry()).toBe(opened + 60_000);
    clock.advance(3 * 60_000 - 1);
    expect((await listSessions()).map((s) => s.session_id)).toContain(session.session_id);
    clock.advance(1);
    await until(
      async () => (await listSessions()).length === 0 && browsersOn(svc.dataDir).length === 0,
      'the idle session to close',
      30_000,
    );
    expect((await fetch(session.live_url)).status).toBe(404);
    expect((await listProfiles()).find((p) => p.id === session.profile_id)!.updated_at > createdAt).toBe(true);
  });

  it("an unknown profile_id or session is 404; another org's profile and key are 403/404", async () => {
    expect(await jsonOf(await create({ profile_id: '6f1c7c1e-0000-4000-8000-000000000000' }))).toEqual({
      status: 404,
      body: { detail: 'Profile not found' },
    });
    expect(await closeSession('nope')).toEqual({ status: 404, body: { detail: 'Session not found' } });
    expect((await svc.send('listProfiles', { params: { org_id: 'default' } }, { key: otherOrgKey })).status).toBe(403);
    expect((await create({}, otherOrgKey)).status).toBe(403);
    expect((await svc.send('listProfiles', { params: { org_id: 'default' } }, { key: null })).status).toBe(401);
    const mine = (await listProfiles())[0]!;
    const theirs = await svc.send(
      'openProfileSession',
      { params: { org_id: 'other' }, body: { profile_id: mine.id } },
      { key: otherOrgKey },
    );
    expect(theirs).toEqual({ status: 404, body: { detail: 'Profile not found' } });
    expect(
      (await svc.send('deleteProfile', { params: { org_id: 'other', profile_id: mine.id } }, { key: otherOrgKey }))
        .status,
    ).toBe(404);
  });

  it('bad bodies are 422 naming the field; use_proxy without a configured proxy is 422', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ timeout_minutes: 0 }, /^body\.timeout_minutes: /],
      [{ timeout_minutes: 1.5 }, /^body\.timeout_minutes: /],
      [{ use_proxy: 'yes' }, /^body\.use_proxy: must be of type boolean$/],
      [{ name: '' }, /^body\.name: /],
      [{ start_url: 'ftp://files.test/' }, /^body\.start_url: must be an absolute http\(s\) URL$/],
      [{ surprise: 1 }, /^body: unknown field 'surprise'$/],
      [{ use_proxy: true }, /^body\.use_proxy: no default proxy is configured/],
    ];
    const before = (await listProfiles()).length;
    for (const [json, detail] of cases) {
      const { status, body } = await jsonOf(await create(json));
      expect(status, JSON.stringify(json)).toBe(422);
      expect((body as { detail: string }).detail).toMatch(detail);
    }
    expect(await listProfiles()).toHaveLength(before);
  });

  it('shutdown closes open sessions and saves them; no browser outlives the service', async () => {
    const { body } = await jsonOf(await create({ name: 'Left open', start_url: pages.url('/login') }));
    const session = body as Created;
    await input(session.live_url, { kind: 'mouse', type: 'click', x: 150, y: 150 });
    expect(browsersOn(svc.dataDir)).not.toEqual([]);
    await svc.stop();
    expect(browsersOn(svc.dataDir)).toEqual([]);
    const { orgKey } = svc;
    svc = await startService(svc.dataDir, { clock });
    cookiesSeen.length = 0;
    const reopened = await jsonOf(
      await create({ profile_id: session.profile_id, start_url: pages.url('/login') }, orgKey),
    );
    expect(reopened.status).toBe(200);
    expect(cookiesSeen).toEqual(['sid=ana-42']);
    const reopenedId = (reopened.body as Created).session_id;
    expect(
      (
        await svc.send(
          'closeProfileSession',
          { params: { org_id: 'default', session_id: reopenedId } },
          { key: orgKey },
        )
      ).status,
    ).toBe(200);
  });
});

describe('profiles with a default proxy', () => {
  let svc: TestService;
  let proxy: RecordingProxy;

  beforeAll(async () => {
    proxy = await startRecordingProxy();
    process.env.PORTICO_DEFAULT_PROXY = proxy.server;
    svc = await startService();
  });

  afterAll(async () => {
    await svc?.dispose();
    await proxy?.close();
    if (previousEnv.proxy === undefined) delete process.env.PORTICO_DEFAULT_PROXY;
    else process.env.PORTICO_DEFAULT_PROXY = previousEnv.proxy;
  });

  it('use_proxy: true browses through PORTICO_DEFAULT_PROXY', async () => {
    const { status, body } = await svc.send('openProfileSession', {
      params: { org_id: 'default' },
      body: { use_proxy: true, start_url: 'http://portal.example.test/login' },
    });
    expect(status).toBe(200);
    expect(proxy.requests.map((r) => r.url)).toContain('http://portal.example.test/login');
    expect(
      (
        await svc.send('closeProfileSession', {
          params: { org_id: 'default', session_id: (body as Created).session_id },
        })
      ).status,
    ).toBe(200);
  });
});
