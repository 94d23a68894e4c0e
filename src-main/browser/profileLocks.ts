/** Proof of holding a profile's lock; `release()` is idempotent. */
export interface ProfileLockHandle {
  readonly profileId: string;
  release(): void;
}

interface Waiter {
  grant(handle: ProfileLockHandle): void;
}

/**
 * In-process mutual exclusion per profile: one browser per profile folder, ever. Waiters are
 * served first come, first served, and a release hands the lock straight to the next waiter so
 * `tryAcquire` can never jump the queue.
 */
export class ProfileLocks {
  // A key present means "held"; its array is the FIFO queue of waiters.
  readonly #queues = new Map<string, Waiter[]>();

  /** Waits until `profileId` is free, then holds it; rejects with `signal.reason` if aborted while waiting. */
  acquire(profileId: string, signal?: AbortSignal): Promise<ProfileLockHandle> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const handle = this.tryAcquire(profileId);
    if (handle) return Promise.resolve(handle);
    const queue = this.#queues.get(profileId) ?? [];
    return new Promise<ProfileLockHandle>((resolve, reject) => {
      const onAbort = (): void => {
        const index = queue.indexOf(waiter);
        if (index >= 0) queue.splice(index, 1);
        reject(signal?.reason);
      };
      const waiter: Waiter = {
        grant: (granted) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(granted);
        },
      };
      queue.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Holds `profileId` if it is free right now, else returns undefined (callers answer 409). */
  tryAcquire(profileId: string): ProfileLockHandle | undefined {
    if (this.#queues.has(profileId)) return undefined;
    this.#queues.set(profileId, []);
    return this.#handle(profileId);
  }

  isHeld(profileId: string): boolean {
    return this.#queues.has(profileId);
  }

  /** How many acquirers are queued for `profileId` (0 when it is free or held with no one waiting). */
  waiting(profileId: string): number {
    return this.#queues.get(profileId)?.length ?? 0;
  }

  /** How many profiles are held right now. */
  get heldCount(): number {
    return this.#queues.size;
  }

  #handle(profileId: string): ProfileLockHandle {
    let released = false;
    return {
      profileId,
      release: () => {
        if (released) return;
        released = true;
        const next = this.#queues.get(profileId)?.shift();
        if (next) next.grant(this.#handle(profileId));
        else this.#queues.delete(profileId);
      },
    };
  }
}
