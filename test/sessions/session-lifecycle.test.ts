import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProfileLocks } from '../../src-main/browser/profileLocks.ts';
import { profileDir } from '../../src-main/browser/profileFolders.ts';
import { SessionBrowserPool } from '../../src-main/browser/sessionBrowsers.ts';
import { SessionCreateRequest } from '../../src-main/contract/session.ts';
import { LiveViewHub } from '../../src-main/engine/liveViewHub.ts';
import { seedFirstStart } from '../../src-main/engine/firstStart.ts';
import { SessionService, type SessionActor } from '../../src-main/engine/sessions/sessionService.ts';
import { openStore, type Store } from '../../src-main/store/store.ts';
import { browserProcessId } from '../helpers/browserFixtures.ts';
import { CHROMIUM_PATH } from '../helpers/chromium.ts';
import { FakeClock } from '../helpers/fakeClock.ts';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { expectNoProcessesUnder } from '../helpers/leaks.ts';
import { until } from '../helpers/wait.ts';

const ORIGIN = 'http://127.0.0.1:1';
const actor: SessionActor = { userId: 'local', workspaceId: 'default', orgId: 'default' };
const stranger: SessionActor = { userId: 'eve', workspaceId: 'elsewhere', orgId: 'default' };
const PROFILE_ID = '22222222-2222-4222-8222-222222222222';

function pidsUnder(marker: string): number[] {
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((line) => line.includes(marker) && !line.includes('ps -eo'))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

const browserPid = (page: Page): Promise<number> => browserProcessId(page.context());

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('SessionService: expiry on the injected clock, pageFor, profiles, no orphan browsers', () => {
  let dir: string;
  let store: Store;
  let pool: SessionBrowserPool;
  let clock: FakeClock;
  let locks: ProfileLocks;
  let sessions: SessionService;
  let pages: PageServer;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-sessions-'));
    store = openStore(join(dir, 'portico.db'));
    seedFirstStart(store);
    store.principals.ensureUser('eve');
    store.principals.ensureWorkspace('elsewhere');
    store.principals.addMember('elsewhere', 'eve');
    const now = new Date().toISOString();
    store.profiles.insert({
      id: PROFILE_ID,
      org_id: 'default',
      name: 'kept',
      provider_profile_id: PROFILE_ID,
      created_at: now,
      updated_at: now,
    });
    pool = new SessionBrowserPool(
      { executablePath: () => CHROMIUM_PATH, noSandbox: true, tempDir: join(dir, 'tmp') },
      1,
    );
    pool.fill();
    clock = new FakeClock();
    locks = new ProfileLocks();
    sessions = new SessionService({
      store,
      pool,
      locks,
      profileDir: (id) => profileDir(dir, id),
      liveViews: new LiveViewHub(),
      clock,
    });
    pages = await startPageServer({
      '/hello': '<!doctype html><title>Hello</title><button>Go</button>',
    });
  });
  afterAll(async () => {
    await sessions?.close();
    await pool?.close();
    await pages?.close();
    store?.close();
    await expectNoProcessesUnder(dir, 'no Chromium on the data folder');
    await rm(dir, { recursive: true, force: true });
  });

  const open = (body: unknown = {}, who: SessionActor = actor) =>
    sessions.create(who, SessionCreateRequest.parse(body), ORIGIN);

  it("pageFor gives Portico a page of that session's browser, and only to its own workspace while it is active", async () => {
    const session = await open();
    const page = await sessions.pageFor(session.session_id, actor.workspaceId);
    await page.goto(`${pages.url}/hello`);
    expect(await page.title()).toBe('Hello');
    // A CDP client of the session sees the page Portico drove.
    const token = new URL(String(session.cdp_url)).pathname.split('/').pop()!;
    const target = sessions.cdpTarget(token)!;
    // The target serves an upgrade on the session's own pipe (the API's proxy does the same after its checks).
    const door = createServer();
    door.on('upgrade', (request, socket, head) => target.accept(request, socket, head));
    await new Promise<void>((resolve) => door.listen(0, '127.0.0.1', resolve));
    const client = await chromium.connectOverCDP(
      `ws://127.0.0.1:${(door.address() as AddressInfo).port}/devtools/browser/${token}`,
    );
    expect(
      client
        .contexts()[0]!
        .pages()
        .map((p) => p.url()),
    ).toContain(`${pages.url}/hello`);
    await client.close();
    door.close();

    await expect(sessions.pageFor(session.session_id, stranger.workspaceId)).rejects.toMatchObject({
      status: 404,
      message: 'Session not found',
    });
    await expect(sessions.pageFor('00000000-0000-4000-8000-000000000000', actor.workspaceId)).rejects.toMatchObject({
      status: 404,
      message: 'Session not found',
    });
    await sessions.terminate(actor.workspaceId, session.session_id, ORIGIN);
    await expect(sessions.pageFor(session.session_id, actor.workspaceId)).rejects.toMatchObject({
      status: 404,
      message: 'Session not found',
    });
  });

  it('expires at expires_at on the clock: status expired, browser gone, CDP token dead', async () => {
    const session = await open({ timeout_minutes: 2 });
    const token = new URL(String(session.cdp_url)).pathname.split('/').pop()!;
    const pid = await browserPid(await sessions.pageFor(session.session_id, actor.workspaceId));
    expect(Date.parse(session.expires_at) - clock.now().getTime()).toBe(2 * 60_000);

    clock.advance(2 * 60_000 - 1);
    expect(sessions.get(actor.workspaceId, session.session_id, ORIGIN).status).toBe('active');
    expect(sessions.cdpTarget(token)).toBeDefined();

    clock.advance(1);
    // The row flips at once; the browser's exit follows.
    expect(sessions.get(actor.workspaceId, session.session_id, ORIGIN)).toMatchObject({
      status: 'expired',
      cdp_url: null,
      live_url: null,
    });
    expect(sessions.cdpTarget(token)).toBeUndefined();
    await until(
      () => !sessions.isActive(session.session_id, actor.workspaceId) && !alive(pid),
      "the expired session's browser to exit",
    );
    await expect(sessions.pageFor(session.session_id, actor.workspaceId)).rejects.toMatchObject({ status: 404 });
    // Terminating an expired session changes nothing.
    expect((await sessions.terminate(actor.workspaceId, session.session_id, ORIGIN)).status).toBe('expired');
  });

  it('a session with profile_id holds the profile (a second one is 409) and saves it when it ends', async () => {
    const first = await open({ profile_id: PROFILE_ID });
    expect(locks.isHeld(PROFILE_ID)).toBe(true);
    await expect(open({ profile_id: PROFILE_ID })).rejects.toMatchObject({
      status: 409,
      message: `Profile '${PROFILE_ID}' is in use`,
    });
    const page = await sessions.pageFor(first.session_id, actor.workspaceId);
    await page.goto(`${pages.url}/hello`);
    await page
      .context()
      .addCookies([{ name: 'kept', value: 'yes', url: pages.url, expires: Math.floor(Date.now() / 1000) + 3600 }]);
    const before = store.profiles.get(PROFILE_ID)!.updated_at;
    await sessions.terminate(actor.workspaceId, first.session_id, ORIGIN);
    expect(locks.isHeld(PROFILE_ID)).toBe(false);
    expect(store.profiles.get(PROFILE_ID)!.updated_at > before).toBe(true);

    const second = await open({ profile_id: PROFILE_ID });
    const again = await sessions.pageFor(second.session_id, actor.workspaceId);
    expect((await again.context().cookies(pages.url)).map((c) => `${c.name}=${c.value}`)).toContain('kept=yes');
    await sessions.terminate(actor.workspaceId, second.session_id, ORIGIN);
    // Another org's profile is not found, and nothing is held for it.
    await expect(open({ profile_id: PROFILE_ID }, { ...stranger, orgId: 'rival' })).rejects.toMatchObject({
      status: 404,
      message: 'Profile not found',
    });
    expect(locks.heldCount).toBe(0);
  });

  it('recover() marks sessions a previous run left active as terminated', () => {
    const now = clock.now().toISOString();
    store.sessions.insert({
      id: '33333333-3333-4333-8333-333333333333',
      workspace_id: 'default',
      created_by: 'local',
      status: 'active',
      screen_width: 1280,
      screen_height: 800,
      profile_id: null,
      proxy_server: null,
      user_agent: null,
      record_video: 0,
      metadata: '{}',
      timeout_minutes: 30,
      expires_at: now,
      ended_at: null,
      created_at: now,
      updated_at: now,
    });
    expect(sessions.recover()).toBe(1);
    expect(sessions.get('default', '33333333-3333-4333-8333-333333333333', ORIGIN)).toMatchObject({
      status: 'terminated',
      cdp_url: null,
    });
  });

  it('close() ends every live session as terminated and leaves no browser process behind', async () => {
    const a = await open();
    const b = await open({ screen_config: { width: 1024, height: 700 } });
    await sessions.close();
    expect(sessions.get(actor.workspaceId, a.session_id, ORIGIN).status).toBe('terminated');
    expect(sessions.get(actor.workspaceId, b.session_id, ORIGIN).status).toBe('terminated');
    await pool.close();
    await until(() => pidsUnder(dir).length === 0, 'every session browser to exit');
  });
});
