import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import type { BrowserLease } from '../../src-main/browser/browserLease.ts';
import { BrowserRuntime } from '../../src-main/browser/browserRuntime.ts';
import { SessionBrowserPool } from '../../src-main/browser/sessionBrowsers.ts';
import { browserProcessId, scratchDir } from '../helpers/browserFixtures.ts';
import { CHROMIUM_PATH } from '../helpers/chromium.ts';
import { FakeClock } from '../helpers/fakeClock.ts';
import { until } from '../helpers/wait.ts';

/**
 * Issue 21: a browser whose close never returns (here: every process of it stopped with SIGSTOP, as a
 * wedged Chromium) is killed — SIGKILL to its process group — once the close bound passes on the
 * injected clock, and the lease gives back what it held (the profile's lock, the runtime's counts).
 */

const CLOSE_BOUND_MS = 10_000;

/** The process group of the context's Chromium (asked while it still answers). */
async function browserGroup(context: BrowserContext): Promise<number> {
  const stat = readFileSync(`/proc/${await browserProcessId(context)}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
}

/** Live (not zombie) processes of a process group. */
function liveMembers(group: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return Number(fields[2]) === group && fields[0] !== 'Z' ? [Number(entry)] : [];
      } catch {
        return [];
      }
    });
}

/** Stops every process of the browser, closes the lease, and moves the clock past the bound once the close waits on it. */
async function closeStopped(clock: FakeClock, lease: BrowserLease): Promise<number> {
  const group = await browserGroup(lease.context);
  expect(liveMembers(group).length).toBeGreaterThan(1);
  process.kill(-group, 'SIGSTOP');
  let closed = false;
  const closing = lease.close().then(() => {
    closed = true;
  });
  await until(() => clock.pending().includes(CLOSE_BOUND_MS), 'the close to wait on its bound');
  expect(closed).toBe(false);
  clock.advance(CLOSE_BOUND_MS);
  await closing;
  await until(() => liveMembers(group).length === 0, 'every process of the stopped browser to be gone');
  return group;
}

describe('a browser that does not close in time is killed, and its lease released (issue 21)', () => {
  const data = scratchDir('portico-close-hang-data-');
  const temp = scratchDir('portico-close-hang-temp-');
  const clock = new FakeClock();
  const runtime = new BrowserRuntime({ dataDir: data.path, tempDir: temp.path, clock, closeTimeoutMs: CLOSE_BOUND_MS });

  afterAll(async () => {
    await runtime.close();
    data.cleanup();
    temp.cleanup();
  });

  it('a profile browser stopped by SIGSTOP: its process group is killed, the profile lock is free, and the profile opens again', async () => {
    const lease = await runtime.lease({ profileId: 'wedged' });
    await lease.page.setContent('<title>before</title>');
    expect(runtime.locks.isHeld('wedged')).toBe(true);
    await closeStopped(clock, lease);
    expect(runtime.locks.isHeld('wedged')).toBe(false);
    expect(runtime.resources()).toMatchObject({ leases: 0, browsers: 0, contexts: 0 });

    const again = await runtime.lease({ profileId: 'wedged' });
    await again.page.setContent('<title>after</title>');
    expect(await again.page.title()).toBe('after');
    await again.close();
  });

  it("the shared browser stopped under a job's context: killed, and the next lease gets a new one", async () => {
    const lease = await runtime.lease();
    const group = await closeStopped(clock, lease);
    expect(runtime.resources()).toMatchObject({ leases: 0, contexts: 0 });

    const next = await runtime.lease();
    await next.page.setContent('<title>fresh</title>');
    expect(await next.page.title()).toBe('fresh');
    expect(await browserGroup(next.context)).not.toBe(group);
    await next.close();
  });
});

/** A session pool with no warm browser, its close bound on a fake clock, in a scratch folder. */
function sessionPool(prefix: string): {
  temp: ReturnType<typeof scratchDir>;
  clock: FakeClock;
  pool: SessionBrowserPool;
} {
  const temp = scratchDir(prefix);
  const clock = new FakeClock();
  const options = {
    executablePath: () => CHROMIUM_PATH,
    noSandbox: true,
    tempDir: temp.path,
    clock,
    closeTimeoutMs: CLOSE_BOUND_MS,
  };
  return { temp, clock, pool: new SessionBrowserPool(options, 0) };
}

describe('a session browser that does not exit after Browser.close is killed with its whole process tree (issue 21)', () => {
  it('every process of a stopped session Chromium (on a profile: asked to close first) is gone once the bound passes on the injected clock', async () => {
    const { temp, clock, pool } = sessionPool('portico-close-hang-sessions-');
    try {
      // On a profile folder, Chromium is asked to close (its shutdown writes the profile) before it is killed.
      const { browser } = await pool.take({
        screen: { width: 800, height: 600 },
        userDataDir: join(temp.path, 'profile'),
      });
      // Launched detached: its process group is its pid.
      expect(liveMembers(browser.pid).length).toBeGreaterThan(1);
      process.kill(-browser.pid, 'SIGSTOP');
      let closed = false;
      const closing = browser.close().then(() => {
        closed = true;
      });
      await until(() => clock.pending().includes(CLOSE_BOUND_MS), 'the close to wait on its bound');
      expect(closed).toBe(false);
      clock.advance(CLOSE_BOUND_MS);
      await closing;
      await until(() => liveMembers(browser.pid).length === 0, 'every process of the stopped browser to be gone');
      expect(pool.running).toBe(0);
    } finally {
      await pool.close();
      temp.cleanup();
    }
  });
});

describe('a session browser on a throwaway profile is killed at once when it closes (nothing in it is kept)', () => {
  it('a stopped one is gone, every process of it, without the close waiting on its bound', async () => {
    const { temp, clock, pool } = sessionPool('portico-close-kill-sessions-');
    try {
      const { browser } = await pool.take({ screen: { width: 800, height: 600 } });
      expect(liveMembers(browser.pid).length).toBeGreaterThan(1);
      // Stopped: a browser asked to close would not answer, and its close would wait for the bound on the clock (never moved here).
      process.kill(-browser.pid, 'SIGSTOP');
      let closed = false;
      const closing = browser.close().finally(() => {
        closed = true;
      });
      await until(() => closed || clock.pending().includes(CLOSE_BOUND_MS), 'the close to end or wait on its bound');
      expect(clock.pending(), 'the close waits on its bound: the browser was asked to close, not killed').not.toContain(
        CLOSE_BOUND_MS,
      );
      await closing;
      await until(() => liveMembers(browser.pid).length === 0, 'every process of the killed browser to be gone');
      expect(pool.running).toBe(0);
    } finally {
      // A close that waits on its bound (the failure above) is let go, so the pool closes.
      if (clock.pending().includes(CLOSE_BOUND_MS)) clock.advance(CLOSE_BOUND_MS);
      await pool.close();
      temp.cleanup();
    }
  });
});
