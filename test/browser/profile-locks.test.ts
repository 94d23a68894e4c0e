// tier: unit
import { describe, expect, it } from 'vitest';

import { ProfileLocks } from '../../src-main/browser/profileLocks.ts';

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('ProfileLocks', () => {
  it('hands a held profile to waiters first come, first served', async () => {
    const locks = new ProfileLocks();
    const order: string[] = [];
    const first = await locks.acquire('p');
    const inOrder =
      (name: string) =>
      <T>(handle: T): T => {
        order.push(name);
        return handle;
      };
    const second = locks.acquire('p').then(inOrder('second'));
    const third = locks.acquire('p').then(inOrder('third'));
    await tick();
    expect(order).toEqual([]);
    expect(locks.waiting('p')).toBe(2);
    first.release();
    expect(locks.waiting('p')).toBe(1);
    (await second).release();
    (await third).release();
    expect(order).toEqual(['second', 'third']);
    expect(locks.isHeld('p')).toBe(false);
    expect(locks.waiting('p')).toBe(0);
  });

  it('tryAcquire refuses a held profile and never jumps the queue', async () => {
    const locks = new ProfileLocks();
    const held = locks.tryAcquire('p');
    expect(held).toBeDefined();
    expect(locks.tryAcquire('p')).toBeUndefined();
    const waiting = locks.acquire('p');
    held?.release();
    expect(locks.tryAcquire('p')).toBeUndefined();
    (await waiting).release();
    expect(locks.tryAcquire('other')).toBeDefined();
  });

  it('an aborted wait rejects with the signal reason and leaves the queue to the others', async () => {
    const locks = new ProfileLocks();
    const held = await locks.acquire('p');
    const controller = new AbortController();
    const givenUp = locks.acquire('p', controller.signal);
    const next = locks.acquire('p');
    controller.abort(new Error('job cancelled'));
    await expect(givenUp).rejects.toThrow('job cancelled');
    expect(locks.waiting('p')).toBe(1);
    held.release();
    const handle = await next;
    expect(handle.profileId).toBe('p');
    handle.release();
    expect(locks.heldCount).toBe(0);
  });

  it('an already aborted signal rejects without taking the lock', async () => {
    const locks = new ProfileLocks();
    await expect(locks.acquire('p', AbortSignal.abort(new Error('too late')))).rejects.toThrow('too late');
    expect(locks.isHeld('p')).toBe(false);
  });

  it('releasing twice does not free the lock a waiter now holds', async () => {
    const locks = new ProfileLocks();
    const first = await locks.acquire('p');
    const second = locks.acquire('p');
    first.release();
    const handle = await second;
    first.release();
    expect(locks.isHeld('p')).toBe(true);
    handle.release();
    expect(locks.isHeld('p')).toBe(false);
  });
});
