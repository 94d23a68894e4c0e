// tier: unit
import { describe, expect, it } from 'vitest';
import { ActiveClock } from '../../src-main/engine/jobs/activeClock.ts';
import { FakeClock } from '../helpers/fakeClock.ts';

describe("a job's active-time clock (timeout_minutes)", () => {
  const setUp = (budgetMs: number) => {
    const clock = new FakeClock();
    const expired: number[] = [];
    const active = new ActiveClock(budgetMs, () => expired.push(active.spentMs), clock);
    return { clock, active, expired };
  };

  it('expires exactly when the budget of active time is spent, not a millisecond before', () => {
    const { clock, active, expired } = setUp(60_000);
    active.resume();
    clock.advance(59_999);
    expect(expired).toEqual([]);
    clock.advance(1);
    expect(expired).toEqual([60_000]);
  });

  it('time spent paused (waiting for a human) does not count, however long', () => {
    const { clock, active, expired } = setUp(60_000);
    active.resume();
    clock.advance(20_000);
    active.pause();
    clock.advance(24 * 60 * 60_000);
    expect(expired).toEqual([]);
    expect(active.spentMs).toBe(20_000);
    active.resume();
    clock.advance(39_999);
    expect(expired).toEqual([]);
    clock.advance(1);
    expect(expired).toEqual([60_000]);
  });

  it('resume and pause are idempotent: a second resume neither restarts the count nor adds a timer', () => {
    const { clock, active, expired } = setUp(1_000);
    active.resume();
    clock.advance(600);
    active.resume();
    expect(clock.pending()).toEqual([400]);
    active.pause();
    active.pause();
    expect(clock.pending()).toEqual([]);
    expect(active.spentMs).toBe(600);
    expect(expired).toEqual([]);
  });
});
