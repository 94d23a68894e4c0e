// tier: unit
import { describe, expect, it } from 'vitest';
import { isoNow, systemClock, timeoutSignal } from '../../src-main/base/clock.ts';
import { FakeClock } from '../helpers/fakeClock.ts';

describe('the fake clock every timing test relies on', () => {
  it('fires due timers in due order, each with now() at its own due time, and none before', () => {
    const clock = new FakeClock(0);
    const fired: string[] = [];
    clock.setTimeout(() => fired.push(`b@${clock.now().getTime()}`), 20);
    clock.setTimeout(() => fired.push(`a@${clock.now().getTime()}`), 10);
    clock.setTimeout(() => fired.push(`c@${clock.now().getTime()}`), 20);
    expect(clock.advance(9)).toBe(0);
    expect(clock.advance(11)).toBe(3);
    expect(fired).toEqual(['a@10', 'b@20', 'c@20']);
    expect(clock.now().getTime()).toBe(20);
  });

  it('fires timers set by fired timers when they fall due within the same advance', () => {
    const clock = new FakeClock(0);
    const fired: number[] = [];
    const chain = (): void => {
      fired.push(clock.now().getTime());
      if (fired.length < 5) clock.setTimeout(chain, 100);
    };
    clock.setTimeout(chain, 100);
    clock.advance(350);
    expect(fired).toEqual([100, 200, 300]);
    expect(clock.pending()).toEqual([50]);
    expect(clock.runUntilIdle()).toBe(2);
    expect(fired).toEqual([100, 200, 300, 400, 500]);
  });

  it('a cleared timer never fires; next() jumps to the soonest timer; runUntilIdle stops a timer that re-arms forever', () => {
    const clock = new FakeClock(0);
    let fired = 0;
    const handle = clock.setTimeout(() => (fired += 1), 10);
    clock.setTimeout(() => (fired += 10), 30);
    clock.clearTimeout(handle);
    clock.clearTimeout(undefined);
    expect(clock.next()).toBe(true);
    expect([fired, clock.now().getTime()]).toEqual([10, 30]);
    expect(clock.next()).toBe(false);
    const forever = (): void => void clock.setTimeout(forever, 1);
    forever();
    expect(() => clock.runUntilIdle(5)).toThrow(/re-arms forever/);
  });

  it('starts far ahead of the wall clock, so rows stamped with real time are already past', () => {
    expect(new FakeClock().now().getTime()).toBeGreaterThan(Date.now());
    expect(isoNow(new FakeClock(Date.parse('2030-05-06T07:08:09.010Z')))).toBe('2030-05-06T07:08:09.010Z');
  });
});

describe('timeoutSignal', () => {
  it('aborts with a TimeoutError exactly when the deadline passes, and clear() leaves no timer', () => {
    const clock = new FakeClock(0);
    const deadline = timeoutSignal(clock, 10_000);
    clock.advance(9_999);
    expect(deadline.signal.aborted).toBe(false);
    clock.advance(1);
    expect(deadline.signal.aborted).toBe(true);
    expect((deadline.signal.reason as Error).name).toBe('TimeoutError');
    const cleared = timeoutSignal(clock, 10);
    cleared.clear();
    expect(clock.pending()).toEqual([]);
  });

  it('runs on the system clock too', async () => {
    const deadline = timeoutSignal(systemClock, 5);
    await new Promise((resolve) => deadline.signal.addEventListener('abort', resolve, { once: true }));
    expect((deadline.signal.reason as Error).name).toBe('TimeoutError');
  });
});
