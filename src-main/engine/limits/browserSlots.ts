import { TooManyRequestsError } from '../../base/errors.ts';
import { Emitter } from '../../base/emitter.ts';
import { LOCAL_HOST } from '../../contract/hosts.ts';

/**
 * One live browser (a `/public` session, a profile login or a running job) counted against the limits,
 * placed on one browser host; release it once the browser has closed. Idempotent.
 */
export interface BrowserSlot {
  /** The host the browser runs on: `local` or a `browser_hosts` name. */
  readonly host: string;
  release(): void;
  /**
   * The host refused the browser (a 429, a refused connect): the slot moves to the least-loaded other
   * host with room that is not in `tried`; false (the slot stays where it was) when there is none.
   */
  moveOn(tried: ReadonlySet<string>): boolean;
}

export interface BrowserSlotLimits {
  perOrg: number;
  total: number;
}

/** A place browsers run (the local Chromium or a remote host), as placement sees it. */
export interface PlacementHost {
  readonly name: string;
  readonly maxBrowsers: number;
  readonly labels: readonly string[];
  /** Whether it can run `/public` session browsers (local and `playwright` hosts; absent: yes). */
  readonly sessions?: boolean;
  /** Whether it takes new browsers now (a host that stopped answering does not). */
  accepting(): boolean;
  /** Why it does not take browsers now (for refusals), e.g. `unreachable: connect ECONNREFUSED`. */
  unavailableReason(): string | undefined;
}

/** What a browser needs of its host. */
export interface PlacementWish {
  /** Every label the host must carry (`browser_host_labels` of the job or portal); `local` names the local Chromium. */
  labels?: readonly string[] | undefined;
  /** Only the local Chromium (a session on a profile folder). */
  localOnly?: boolean;
  /** A `/public` session's browser: only hosts that can run one. */
  session?: boolean;
  /**
   * A profile login window: a person logs in there, so always the local Chromium, and it does not count
   * against local_max_browsers (which may be 0 when every job runs on the hosts); the other limits hold.
   */
  loginWindow?: boolean;
}

/** Where the limits are raised, named in every refusal. */
const HOW_TO_RAISE =
  'close a session or profile login, or raise browsers_per_org / browsers_total in settings.json in the data folder and restart';

/** The local Chromium without a host list: placement as before browser hosts existed (only the totals limit it). */
const UNBOUNDED_LOCAL: PlacementHost = {
  name: LOCAL_HOST,
  maxBrowsers: Number.POSITIVE_INFINITY,
  labels: [LOCAL_HOST],
  accepting: () => true,
  unavailableReason: () => undefined,
};

/**
 * Counts live browsers per organization, overall and per host, and places each new one on the
 * least-loaded host with room (docs/scale.md, "How Portico places work"). Sessions and profile logins ask
 * with `acquire` (429 naming the hosts' state when full); the job queue asks with `tryAcquire` and leaves
 * the job queued until a slot frees.
 */
export class BrowserSlots {
  readonly #limits: BrowserSlotLimits;
  readonly #hosts: () => readonly PlacementHost[];
  readonly #byOrg = new Map<string, number>();
  readonly #byHost = new Map<string, number>();
  #total = 0;
  readonly #onDidRelease = new Emitter<void>();
  /** A slot was given back: a queued job may start now. */
  readonly onDidRelease: Emitter<void>['event'] = this.#onDidRelease.event;

  constructor(limits: BrowserSlotLimits, hosts?: () => readonly PlacementHost[]) {
    this.#limits = { ...limits };
    this.#hosts = hosts ?? (() => [UNBOUNDED_LOCAL]);
  }

  get limits(): Readonly<BrowserSlotLimits> {
    return this.#limits;
  }

  /** Live browsers of one organization, or of the whole service. */
  inUse(orgId?: string): number {
    return orgId === undefined ? this.#total : (this.#byOrg.get(orgId) ?? 0);
  }

  /** Live browsers on one host (profile login windows included for `local`). */
  inUseOn(host: string): number {
    return this.#byHost.get(host) ?? 0;
  }

  /** Whether any configured host carries every label of `wish` (else a job asking for them could never start). */
  unplaceable(wish: PlacementWish): string | undefined {
    const labels = wish.labels ?? [];
    if (labels.length === 0) return undefined;
    const hosts = this.#hosts();
    if (hosts.some((host) => labels.every((label) => host.labels.includes(label)))) return undefined;
    return `no browser host carries the labels ${labels.map((label) => `'${label}'`).join(', ')} (hosts: ${hosts.map((host) => `${host.name} [${host.labels.join(', ')}]`).join('; ')})`;
  }

  /** Why `orgId` cannot have another browser now, or undefined when it can. */
  refusal(orgId: string, wish: PlacementWish = {}): string | undefined {
    const own = this.inUse(orgId);
    if (own >= this.#limits.perOrg) {
      return `Browser limit reached: organization '${orgId}' has ${own} live browsers (sessions, profile logins and running jobs); the limit is ${this.#limits.perOrg} per organization (browsers_per_org). To free one, ${HOW_TO_RAISE}`;
    }
    if (this.#total >= this.#limits.total) {
      return `Browser limit reached: the service has ${this.#total} live browsers (sessions, profile logins and running jobs of every organization); the limit is ${this.#limits.total} in total (browsers_total). To free one, ${HOW_TO_RAISE}`;
    }
    if (this.#place(wish, new Set()) !== undefined) return undefined;
    const unplaceable = this.unplaceable(wish);
    if (unplaceable) return `No browser host can take it: ${unplaceable}`;
    return `Every browser host is full or unavailable: ${this.#candidates(wish, new Set(), false)
      .map((host) => this.#describe(host))
      .join('; ')}`;
  }

  #describe(host: PlacementHost): string {
    const why = host.unavailableReason();
    const counts = `${this.inUseOn(host.name)}/${Number.isFinite(host.maxBrowsers) ? host.maxBrowsers : '∞'} in use`;
    return `${host.name} ${why === undefined ? counts : `${why} (${counts})`}`;
  }

  /** The hosts `wish` may use, in list order; `withRoom` keeps only those taking a browser now. */
  #candidates(wish: PlacementWish, tried: ReadonlySet<string>, withRoom: boolean): PlacementHost[] {
    const labels = wish.labels ?? [];
    return this.#hosts().filter((host) => {
      if (tried.has(host.name)) return false;
      if ((wish.localOnly || wish.loginWindow) && host.name !== LOCAL_HOST) return false;
      if (wish.session && host.sessions === false) return false;
      if (!labels.every((label) => host.labels.includes(label))) return false;
      if (!withRoom) return true;
      if (!host.accepting()) return false;
      return wish.loginWindow || this.inUseOn(host.name) < host.maxBrowsers;
    });
  }

  /** The least-loaded host with room (share of its max in use; ties go to the one listed first, `local` leading). */
  #place(wish: PlacementWish, tried: ReadonlySet<string>): PlacementHost | undefined {
    let best: PlacementHost | undefined;
    let bestLoad = Number.POSITIVE_INFINITY;
    for (const host of this.#candidates(wish, tried, true)) {
      const load =
        wish.loginWindow || !Number.isFinite(host.maxBrowsers) ? 0 : this.inUseOn(host.name) / host.maxBrowsers;
      if (load < bestLoad) {
        best = host;
        bestLoad = load;
      }
    }
    return best;
  }

  #count(host: string, delta: number): void {
    const next = this.inUseOn(host) + delta;
    if (next > 0) this.#byHost.set(host, next);
    else this.#byHost.delete(host);
  }

  /** A slot for `orgId` on the least-loaded host with room, or undefined when a limit is reached or every host is full. */
  tryAcquire(orgId: string, wish: PlacementWish = {}): BrowserSlot | undefined {
    if (this.inUse(orgId) >= this.#limits.perOrg || this.#total >= this.#limits.total) return undefined;
    const placed = this.#place(wish, new Set());
    if (placed === undefined) return undefined;
    this.#byOrg.set(orgId, this.inUse(orgId) + 1);
    this.#total += 1;
    // A login window is outside local_max_browsers: it is counted on no host.
    const counted = !wish.loginWindow;
    let host = placed.name;
    if (counted) this.#count(host, 1);
    let held = true;
    return {
      get host() {
        return host;
      },
      release: () => {
        if (!held) return;
        held = false;
        const left = this.inUse(orgId) - 1;
        if (left > 0) this.#byOrg.set(orgId, left);
        else this.#byOrg.delete(orgId);
        this.#total -= 1;
        if (counted) this.#count(host, -1);
        this.#onDidRelease.fire();
      },
      moveOn: (tried) => {
        if (!held) return false;
        const next = this.#place(wish, new Set([...tried, host]));
        if (next === undefined) return false;
        if (counted) {
          this.#count(host, -1);
          this.#count(next.name, 1);
        }
        host = next.name;
        return true;
      },
    };
  }

  /** A slot for `orgId`; 429 naming the limit reached (or the hosts' state) and how to raise it. */
  acquire(orgId: string, wish: PlacementWish = {}): BrowserSlot {
    const slot = this.tryAcquire(orgId, wish);
    if (slot === undefined) throw new TooManyRequestsError(this.refusal(orgId, wish) ?? 'Browser limit reached');
    return slot;
  }
}
