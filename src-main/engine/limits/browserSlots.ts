import { TooManyRequestsError } from '../../base/errors.ts';
import { Emitter } from '../../base/emitter.ts';

/** One live browser (a `/public` session, a profile login or a running job) counted against the limits; release it once the browser has closed. Idempotent. */
export interface BrowserSlot {
  release(): void;
}

export interface BrowserSlotLimits {
  perOrg: number;
  total: number;
}

/** Where the limits are raised, named in every refusal. */
const HOW_TO_RAISE = 'close a session or profile login, or raise browsers_per_org / browsers_total in settings.json in the data folder and restart';

/**
 * Counts live browsers per organization and overall. Sessions and profile logins ask with `acquire`
 * (429 when full); the job queue asks with `tryAcquire` and leaves the job queued until a slot frees.
 */
export class BrowserSlots {
  readonly #limits: BrowserSlotLimits;
  readonly #byOrg = new Map<string, number>();
  #total = 0;
  readonly #onDidRelease = new Emitter<void>();
  /** A slot was given back: a queued job may start now. */
  readonly onDidRelease: Emitter<void>['event'] = this.#onDidRelease.event;

  constructor(limits: BrowserSlotLimits) {
    this.#limits = { ...limits };
  }

  get limits(): Readonly<BrowserSlotLimits> {
    return this.#limits;
  }

  /** Live browsers of one organization, or of the whole service. */
  inUse(orgId?: string): number {
    return orgId === undefined ? this.#total : (this.#byOrg.get(orgId) ?? 0);
  }

  /** Why `orgId` cannot have another browser now, or undefined when it can. */
  refusal(orgId: string): string | undefined {
    const own = this.inUse(orgId);
    if (own >= this.#limits.perOrg) {
      return `Browser limit reached: organization '${orgId}' has ${own} live browsers (sessions, profile logins and running jobs); the limit is ${this.#limits.perOrg} per organization (browsers_per_org). To free one, ${HOW_TO_RAISE}`;
    }
    if (this.#total >= this.#limits.total) {
      return `Browser limit reached: the service has ${this.#total} live browsers (sessions, profile logins and running jobs of every organization); the limit is ${this.#limits.total} in total (browsers_total). To free one, ${HOW_TO_RAISE}`;
    }
    return undefined;
  }

  /** A slot for `orgId`, or undefined when its limit or the service's is reached. */
  tryAcquire(orgId: string): BrowserSlot | undefined {
    if (this.refusal(orgId) !== undefined) return undefined;
    this.#byOrg.set(orgId, this.inUse(orgId) + 1);
    this.#total += 1;
    let held = true;
    return {
      release: () => {
        if (!held) return;
        held = false;
        const left = this.inUse(orgId) - 1;
        if (left > 0) this.#byOrg.set(orgId, left);
        else this.#byOrg.delete(orgId);
        this.#total -= 1;
        this.#onDidRelease.fire();
      },
    };
  }

  /** A slot for `orgId`; 429 naming the limit reached and how to raise it. */
  acquire(orgId: string): BrowserSlot {
    const slot = this.tryAcquire(orgId);
    if (slot === undefined) throw new TooManyRequestsError(this.refusal(orgId) ?? 'Browser limit reached');
    return slot;
  }
}
