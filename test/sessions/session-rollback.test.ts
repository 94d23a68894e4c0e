import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ProfileLocks } from '../../src-main/browser/profileLocks.ts';
import { profileDir } from '../../src-main/browser/profileFolders.ts';
import { SessionBrowserPool } from '../../src-main/browser/sessionBrowsers.ts';
import { SessionCreateRequest } from '../../src-main/contract/session.ts';
import { seedFirstStart } from '../../src-main/engine/firstStart.ts';
import { BrowserSlots } from '../../src-main/engine/limits/browserSlots.ts';
import { LiveViewHub } from '../../src-main/engine/liveViewHub.ts';
import { SessionService, type SessionActor } from '../../src-main/engine/sessions/sessionService.ts';
import { openStore, type Store } from '../../src-main/store/store.ts';
import { CHROMIUM_PATH } from '../helpers/chromium.ts';
import { FakeClock } from '../helpers/fakeClock.ts';
import { expectNoProcessesUnder, listeningPorts, pidsUnder } from '../helpers/leaks.ts';

// issue 23 item 2: a session's rollback and its end are one Lifecycle dispose(). A failure injected at each
// step (real SQLite refusing through a trigger, a Chromium that cannot start, the service closing) leaves
// nothing of what was acquired before it: no Chromium process, no listening proxy forwarder, no profile
// lock, no browser slot, no session row.

const ORIGIN = 'http://127.0.0.1:1';
const actor: SessionActor = { userId: 'local', workspaceId: 'default', orgId: 'default' };
const PROFILE_ID = '33333333-3333-4333-8333-333333333333';
// Nothing listens on the discard port: the forwarder only dials its upstream when the browser asks for a page.
const request = SessionCreateRequest.parse({
  profile_id: PROFILE_ID,
  proxy: { server: 'http://127.0.0.1:9', username: 'u', password: 'p' },
});

describe('SessionService rollback: a failure at any step releases what came before it (real Chromium, real SQLite)', () => {
  let dir: string;
  let store: Store;
  let pool: SessionBrowserPool;
  let locks: ProfileLocks;
  let slots: BrowserSlots;
  let sessions: SessionService;
  let chromiumPath = CHROMIUM_PATH;
  let portsBefore: number[];

  const service = (): SessionService =>
    new SessionService({
      store,
      pool,
      locks,
      profileDir: (id) => profileDir(dir, id),
      liveViews: new LiveViewHub(),
      clock: new FakeClock(),
      browserSlots: slots,
    });

  /** Nothing the session acquired is left: no browser on the data folder, no forwarder, no lock, no slot, no row. */
  const expectNothingHeld = async (): Promise<void> => {
    await expectNoProcessesUnder(dir, 'no Chromium process on the data folder');
    expect(listeningPorts(), 'no proxy forwarder listening').toEqual(portsBefore);
    expect(locks.isHeld(PROFILE_ID), 'the profile lock released').toBe(false);
    expect(slots.inUse(), 'the browser slot released').toBe(0);
  };
  const activeRows = (): number =>
    store.db.prepare<[], { n: number }>("SELECT count(*) AS n FROM browser_sessions WHERE status = 'active'").get()
      ?.n ?? -1;
  const allRows = (): number =>
    store.db.prepare<[], { n: number }>('SELECT count(*) AS n FROM browser_sessions').get()?.n ?? -1;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-session-rollback-'));
    store = openStore(join(dir, 'portico.db'));
    seedFirstStart(store);
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
      { executablePath: () => chromiumPath, noSandbox: true, tempDir: join(dir, 'tmp') },
      0,
    );
    locks = new ProfileLocks();
    slots = new BrowserSlots({ perOrg: 5, total: 5 });
    sessions = service();
    portsBefore = listeningPorts();
  });
  afterEach(() => {
    chromiumPath = CHROMIUM_PATH;
    store.db.exec('DROP TRIGGER IF EXISTS injected_failure');
  });
  afterAll(async () => {
    await sessions?.close();
    await pool?.close();
    store?.close();
    await expectNoProcessesUnder(dir, 'no Chromium process on the data folder');
    await rm(dir, { recursive: true, force: true });
  });

  it('the row cannot be inserted after the browser launched: browser, forwarder, lock and slot are released', async () => {
    store.db.exec(
      "CREATE TRIGGER injected_failure BEFORE INSERT ON browser_sessions BEGIN SELECT RAISE(ABORT, 'injected: insert refused'); END",
    );
    await expect(sessions.create(actor, request, ORIGIN)).rejects.toThrow('injected: insert refused');
    await expectNothingHeld();
    expect(allRows()).toBe(0);
  });

  it('Chromium cannot start after the lock and the forwarder were taken: both are released', async () => {
    chromiumPath = join(dir, 'no-such-chromium');
    await expect(sessions.create(actor, request, ORIGIN)).rejects.toThrow(/ENOENT|no-such-chromium/);
    await expectNothingHeld();
    expect(allRows()).toBe(0);
  });

  it('the service closes while the browser launches: the launched browser and everything before it are released', async () => {
    const closing = service();
    const creating = closing.create(actor, request, ORIGIN);
    await closing.close();
    await expect(creating).rejects.toMatchObject({ status: 409, message: 'The service is shutting down' });
    await expectNothingHeld();
    expect(allRows()).toBe(0);
  });

  it("the end's row update fails: the session still releases its browser, forwarder, lock and slot, and says it failed", async () => {
    const session = await sessions.create(actor, request, ORIGIN);
    expect(pidsUnder(dir).length).toBeGreaterThan(0);
    expect(listeningPorts().length).toBe(portsBefore.length + 1);
    store.db.exec(
      "CREATE TRIGGER injected_failure BEFORE UPDATE ON browser_sessions BEGIN SELECT RAISE(ABORT, 'injected: update refused'); END",
    );
    await expect(sessions.terminate(actor.workspaceId, session.session_id, ORIGIN)).rejects.toThrow(
      'injected: update refused',
    );
    await expectNothingHeld();
    expect(sessions.activeCount).toBe(0);
    // The row still reads active (the write was refused); the next start's recover() ends it.
    expect(activeRows()).toBe(1);
    store.db.exec('DROP TRIGGER injected_failure');
    expect(sessions.recover()).toBe(1);
  });

  it("the profile's save cannot be written at the end: its lock and slot are released all the same", async () => {
    const session = await sessions.create(actor, request, ORIGIN);
    store.db.exec(
      "CREATE TRIGGER injected_failure BEFORE UPDATE ON profiles BEGIN SELECT RAISE(ABORT, 'injected: profile refused'); END",
    );
    await expect(sessions.terminate(actor.workspaceId, session.session_id, ORIGIN)).rejects.toThrow(
      'injected: profile refused',
    );
    await expectNothingHeld();
    expect(sessions.activeCount).toBe(0);
    expect(activeRows()).toBe(0);
    // The profile can be opened again at once.
    store.db.exec('DROP TRIGGER injected_failure');
    const again = await sessions.create(actor, request, ORIGIN);
    await sessions.terminate(actor.workspaceId, again.session_id, ORIGIN);
    await expectNothingHeld();
  });
});
