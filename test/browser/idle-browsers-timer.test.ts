// tier: unit
import { describe, expect, it } from 'vitest';
import { IdleBrowsers } from '../../src-main/browser/idleBrowsers.ts';
import { FakeClock } from '../helpers/fakeClock.ts';

// The idle timer alone, on the fake clock (the real browsers closing and reopening: idle-browsers.test.ts).

const MINUTE = 60_000;

function setUp(idleMinutes = 5) {
  const clock = new FakeClock();
  const idle = new IdleBrowsers({ idleMs: idleMinutes * MINUTE, clock });
  const closed: string[] = [];
  idle.onIdle(async () => {
    closed.push('jobs');
  });
  idle.onIdle(async () => {
    closed.push('sessions');
  });
  idle.start();
  return { clock, idle, closed };
}

describe('IdleBrowsers: closes the warm browsers once nothing has held them for the idle period', () => {
  it('from start-up: not a moment before the period, then every closer once', async () => {
    const { clock, idle, closed } = setUp();
    clock.advance(5 * MINUTE - 1);
    expect(closed).toEqual([]);
    clock.advance(1);
    await idle.closing;
    expect(closed).toEqual(['jobs', 'sessions']);
    clock.advance(60 * MINUTE);
    expect(closed).toEqual(['jobs', 'sessions']);
  });

  it('never while something holds them, however long; the period counts from the last release', async () => {
    const { clock, idle, closed } = setUp();
    const job = idle.hold();
    const session = idle.hold();
    clock.advance(60 * MINUTE);
    job();
    job(); // a second release of the same hold changes nothing
    expect(idle.holders).toBe(1);
    clock.advance(60 * MINUTE);
    expect(closed).toEqual([]);
    session();
    clock.advance(5 * MINUTE - 1);
    expect(closed).toEqual([]);
    clock.advance(1);
    await idle.closing;
    expect(closed).toEqual(['jobs', 'sessions']);
  });

  it('a hold after an idle close starts the count again at its release', async () => {
    const { clock, idle, closed } = setUp(0.5);
    clock.advance(30_000);
    await idle.closing;
    const lease = idle.hold();
    lease();
    clock.advance(29_999);
    expect(closed).toHaveLength(2);
    clock.advance(1);
    await idle.closing;
    expect(closed).toHaveLength(4);
  });

  it('stop() ends the timer: nothing closes afterwards', async () => {
    const { clock, idle, closed } = setUp();
    await idle.stop();
    clock.advance(10 * MINUTE);
    idle.hold()();
    clock.advance(10 * MINUTE);
    expect(closed).toEqual([]);
    expect(clock.pending()).toEqual([]);
  });
});
