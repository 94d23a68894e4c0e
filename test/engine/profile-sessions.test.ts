import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src-main/base/ids.ts';
import { BrowserRuntime } from '../../src-main/browser/browserRuntime.ts';
import { BrowserSlots } from '../../src-main/engine/limits/browserSlots.ts';
import { LiveViewHub } from '../../src-main/engine/liveViewHub.ts';
import { ProfileSessionManager } from '../../src-main/engine/profiles/profileSessions.ts';
import type { ProfileRow } from '../../src-main/store/profiles.ts';
import { openStore, type Store } from '../../src-main/store/store.ts';
import { html, scratchDir, startPageServer, type LocalServer } from '../helpers/browserFixtures.ts';
import { FakeClock } from '../helpers/fakeClock.ts';
import { expectNoProcessesUnder } from '../helpers/leaks.ts';
import { until } from '../helpers/wait.ts';

const MINUTE_MS = 60_000;

describe('profile login sessions expire when idle (fake clock, real Chromium)', () => {
  const data = scratchDir('portico-sessions-');
  const runtime = new BrowserRuntime({ dataDir: data.path, tempDir: join(data.path, 'tmp'), spareContext: false });
  let store: Store;
  let pages: LocalServer;
  const managers: ProfileSessionManager[] = [];

  beforeAll(async () => {
    store = openStore(join(data.path, 'portico.db'));
    store.principals.createOrg('default');
    pages = await startPageServer({ '/login': html('<p>sign in</p>') });
  });
  afterEach(async () => {
    for (const manager of managers.splice(0)) await manager.close();
  });
  afterAll(async () => {
    await runtime.close();
    await pages.close();
    store.close();
    data.cleanup();
  });

  /** A manager on its own fake clock, with a fresh profile to log in to. */
  const setUp = () => {
    const clock = new FakeClock();
    const hub = new LiveViewHub();
    const slots = new BrowserSlots({ perOrg: 5, total: 5 });
    const manager = new ProfileSessionManager(store, runtime, hub, {
      headed: false,
      defaultProxy: undefined,
      clock,
      browserSlots: slots,
    });
    managers.push(manager);
    const created = new Date(0).toISOString();
    const profile: ProfileRow = {
      id: newId(),
      org_id: 'default',
      name: 'Bank',
      provider_profile_id: 'local:bank',
      created_at: created,
      updated_at: created,
    };
    store.profiles.insert(profile);
    const open = async (timeoutMinutes: number) => {
      const opened = await manager.open(profile, {
        timeoutMinutes,
        useProxy: false,
        startUrl: pages.url('/login'),
        baseUrl: 'http://127.0.0.1:1',
      });
      return { ...opened, token: opened.liveUrl.split('/live/')[1] ?? '' };
    };
    const expiresAt = () => manager.list('default').map((session) => Date.parse(session.expires_at));
    return { clock, hub, slots, manager, profile, open, expiresAt };
  };

  it('a session idle for timeout_minutes closes itself exactly then, and saves the profile', async () => {
    const { clock, hub, manager, profile, open, expiresAt } = setUp();
    const openedAt = clock.now().getTime();
    const session = await open(2);
    expect(expiresAt()).toEqual([openedAt + 2 * MINUTE_MS]);
    clock.advance(2 * MINUTE_MS - 1);
    // Ending a session unregisters its live view at once, before the browser is closed.
    expect(hub.get(session.token), 'still open 1 ms before expiry').toBeDefined();
    clock.advance(1);
    expect(hub.get(session.token)).toBeUndefined();
    await until(() => manager.list('default').length === 0 && !manager.isOpen(profile.id), 'the idle session to close');
    expect(store.profiles.get(profile.id)?.updated_at).toBe(new Date(openedAt + 2 * MINUTE_MS).toISOString());
    expect(clock.pending()).toEqual([]);
  });

  it('live-view input restarts the idle clock: a session in use outlives its timeout', async () => {
    const { clock, hub, manager, open, expiresAt } = setUp();
    const openedAt = clock.now().getTime();
    const session = await open(2);
    // Input every 90 s for six minutes keeps a two-minute session open.
    for (let at = 90_000; at <= 6 * MINUTE_MS; at += 90_000) {
      clock.advance(90_000);
      manager.noteInput(session.token);
      expect(expiresAt()).toEqual([openedAt + at + 2 * MINUTE_MS]);
    }
    expect(hub.get(session.token)).toBeDefined();
    clock.advance(2 * MINUTE_MS - 1);
    expect(hub.get(session.token), 'still open 1 ms before the idle timeout after the last input').toBeDefined();
    clock.advance(1);
    expect(hub.get(session.token)).toBeUndefined();
    await until(() => manager.list('default').length === 0, 'the idle session to close');
  });

  it('closing a session on request leaves no idle timer behind', async () => {
    const { clock, manager, open } = setUp();
    const session = await open(5);
    expect(clock.pending()).toEqual([5 * MINUTE_MS]);
    await manager.closeSession('default', session.sessionId);
    expect(clock.pending()).toEqual([]);
  });

  // issue 23 item 2: the login's rollback and its end are one Lifecycle dispose().
  it('the service closes while the login browser opens: its browser, profile lock and slot are released', async () => {
    const { manager, profile, slots, open } = setUp();
    const opening = open(5);
    await manager.close();
    await expect(opening).rejects.toMatchObject({ status: 409, message: 'The service is shutting down' });
    await expectNoProcessesUnder(runtime.profileDir(profile.id), 'no Chromium on the profile folder');
    expect(runtime.locks.isHeld(profile.id)).toBe(false);
    expect(slots.inUse()).toBe(0);
    expect(manager.isOpen(profile.id)).toBe(false);
  });

  it("the profile's save cannot be written: closing says so instead of 'saved', and still releases the browser, lock and slot", async () => {
    const { hub, manager, profile, slots, open } = setUp();
    const session = await open(5);
    store.db.exec(
      "CREATE TRIGGER injected_failure BEFORE UPDATE ON profiles BEGIN SELECT RAISE(ABORT, 'injected: profile refused'); END",
    );
    try {
      await expect(manager.closeSession('default', session.sessionId)).rejects.toThrow('injected: profile refused');
    } finally {
      store.db.exec('DROP TRIGGER injected_failure');
    }
    await expectNoProcessesUnder(runtime.profileDir(profile.id), 'no Chromium on the profile folder');
    expect(runtime.locks.isHeld(profile.id)).toBe(false);
    expect(slots.inUse()).toBe(0);
    expect(hub.get(session.token)).toBeUndefined();
    expect(manager.list('default')).toEqual([]);
    // The profile opens again at once.
    const again = await open(5);
    await manager.closeSession('default', again.sessionId);
  });
});
