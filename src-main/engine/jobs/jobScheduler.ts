import { isoNow, systemClock, type Clock, type TimerHandle } from '../../base/clock.ts';
import type { Agent } from '../../agent/agentTypes.ts';
import type { JobRecord } from '../../store/jobs.ts';
import type { Store } from '../../store/store.ts';
import type { Disposable } from '../../base/emitter.ts';
import type { BrowserSlots } from '../limits/browserSlots.ts';
import type { JobEvents } from './jobEvents.ts';
import { JobRun, type JobRunDeps } from './jobRun.ts';

/** Which agent runs a job, by its orchestrator model id. */
export interface AgentRegistry {
  get(model: string): Agent | undefined;
}

export interface JobSchedulerOptions {
  /** Jobs running at once; the default fits a 2-core machine. */
  concurrency: number;
  /** How often blocked queued jobs (busy profile) are looked at again, on the runs' clock; default 1 s. */
  pollMs?: number;
  /** The live-browser limits: a job that would pass them stays queued until a browser closes (never 429). */
  browserSlots?: BrowserSlots;
}

/**
 * Queued jobs in the order they may start: one per organization in turn (each org's own oldest first),
 * beginning with the org after `lastOrg`, so one org's backlog never starves another's.
 */
export function roundRobin<T extends { org_id: string }>(queued: readonly T[], lastOrg: string | undefined): T[] {
  const byOrg = new Map<string, T[]>();
  for (const job of queued) {
    const list = byOrg.get(job.org_id);
    if (list) list.push(job);
    else byOrg.set(job.org_id, [job]);
  }
  const orgs = [...byOrg.keys()].sort();
  const next = lastOrg === undefined ? 0 : orgs.findIndex((org) => org > lastOrg);
  const rotated = next <= 0 ? orgs : [...orgs.slice(next), ...orgs.slice(0, next)];
  const ordered: T[] = [];
  for (let round = 0; ordered.length < queued.length; round += 1) {
    for (const org of rotated) {
      const job = byOrg.get(org)?.[round];
      if (job) ordered.push(job);
    }
  }
  return ordered;
}

/**
 * The durable queue: queued rows in SQLite, started in per-organization round robin within the
 * concurrency limit. A job waiting for a human holds no running slot (its browser stays open and keeps
 * counting against the browser limits); when answered it goes on at once, even past the limit for a while.
 */
export class JobScheduler {
  readonly #deps: JobRunDeps;
  readonly #agents: AgentRegistry;
  readonly #options: JobSchedulerOptions;
  readonly #runs = new Map<string, { run: JobRun; done: Promise<void> }>();
  // Proxy passwords live only in memory: never written to the database.
  readonly #proxyPasswords = new Map<string, string>();
  #poll: TimerHandle | undefined;
  #closed = false;
  /** The organization whose job started last: the round robin goes on from the next one. */
  #lastOrg: string | undefined;
  readonly #slotFreed: Disposable | undefined;
  readonly #statusChanged: Disposable;

  constructor(deps: JobRunDeps, agents: AgentRegistry, options: JobSchedulerOptions) {
    this.#deps = deps;
    this.#agents = agents;
    this.#options = options;
    this.#slotFreed = options.browserSlots?.onDidRelease(() => this.kick());
    // A run that starts waiting for input frees its running slot for the next queued job.
    this.#statusChanged = deps.events.onDidChangeStatus((job) => {
      if (job.status === 'waiting_for_input') this.kick();
    });
  }

  /** Runs that hold a running slot: every live run but those waiting for a human. */
  get #running(): number {
    let count = 0;
    for (const { run } of this.#runs.values()) if (!run.waitingForInput) count += 1;
    return count;
  }

  get #store(): Store {
    return this.#deps.store;
  }

  get #events(): JobEvents {
    return this.#deps.events;
  }

  get concurrency(): number {
    return this.#options.concurrency;
  }

  /** Changes how many jobs run at once; running jobs are never stopped, extra slots fill at once. */
  setConcurrency(concurrency: number): void {
    this.#options.concurrency = concurrency;
    this.kick();
  }

  /** Fails the jobs a previous process left running, then starts what is queued and keeps polling. */
  recover(): void {
    // Polling starts here, not in the constructor: a start-up that fails before this leaves no timer behind.
    if (this.#poll === undefined) this.#armPoll();
    for (const job of this.#store.jobs.listInterrupted()) this.#fail(job, 'interrupted by restart');
    for (const job of this.#store.jobs.listQueued()) {
      if (job.options.proxy?.has_password) {
        this.#fail(job, 'interrupted by restart: the proxy password is never stored on disk; start the job again');
      }
    }
    this.kick();
  }

  get #clock(): Clock {
    return this.#deps.clock ?? systemClock;
  }

  /** Looks at the queue again after pollMs on the clock, and again after that, until close. */
  #armPoll(): void {
    this.#poll = this.#clock.setTimeout(
      () => {
        if (this.#closed) return;
        this.#armPoll();
        this.kick();
      },
      this.#options.pollMs ?? 1000,
      { unref: true },
    );
  }

  #fail(job: JobRecord, error: string): void {
    const failed = this.#store.jobs.move(
      job.id,
      ['queued', 'running', 'waiting_for_input'],
      'failed',
      { error, completed_at: isoNow(this.#deps.clock), pending_question_id: null },
      this.#events.writeWithStatus,
    );
    if (failed) {
      this.#store.jobs.appendLog(job.id, `job failed: ${error}`);
      this.#events.fireStatus(failed);
    }
  }

  /** Queues a stored job (status queued) and starts it when a slot and its profile are free. */
  enqueue(jobId: string, proxyPassword?: string): void {
    if (proxyPassword !== undefined) this.#proxyPasswords.set(jobId, proxyPassword);
    this.kick();
  }

  #profileBusy(profileId: string): boolean {
    for (const { run } of this.#runs.values()) if (run.profileId === profileId && run.locksProfile) return true;
    return this.#deps.runtime.locks.isHeld(profileId);
  }

  /** Starts queued jobs while slots are free, organizations in turn; a job whose profile is busy waits its turn. */
  kick(): void {
    if (this.#closed || this.#running >= this.#options.concurrency) return;
    // The order comes from the queued jobs' ids and orgs; a job's record is read only when its turn comes,
    // so a backlog of n costs n narrow rows per kick, not n whole records (portal snapshot and all).
    for (const head of roundRobin(this.#store.jobs.queuedHeads(), this.#lastOrg)) {
      if (this.#running >= this.#options.concurrency) break;
      if (this.#runs.has(head.id)) continue;
      const job = this.#store.jobs.get(head.id);
      if (job?.status !== 'queued') continue;
      if (job.profile_id !== null && job.options.save_profile && this.#profileBusy(job.profile_id)) continue;
      const agent = this.#agents.get(job.orchestrator_model);
      if (!agent) {
        this.#fail(job, `No agent can run orchestrator_model '${job.orchestrator_model}' in this build`);
        continue;
      }
      const unplaceable = job.options.browser_host_labels
        ? this.#options.browserSlots?.unplaceable({ labels: job.options.browser_host_labels })
        : undefined;
      if (unplaceable) {
        this.#fail(job, `No browser host can run it: ${unplaceable}`);
        continue;
      }
      // A job in a live session uses that session's browser; any other opens one, within the limits and on a host with room.
      const slot = job.options.browser_session_id
        ? undefined
        : this.#options.browserSlots?.tryAcquire(job.org_id, { labels: job.options.browser_host_labels ?? undefined });
      if (slot === undefined && this.#options.browserSlots && !job.options.browser_session_id) continue;
      const run = new JobRun(this.#deps, job, agent, this.#proxyPasswords.get(job.id), slot);
      this.#lastOrg = job.org_id;
      this.#proxyPasswords.delete(job.id);
      const done = run.execute().finally(() => {
        this.#runs.delete(job.id);
        // Released after the run is forgotten, so the kick this triggers sees the freed concurrency slot too.
        slot?.release();
        this.kick();
      });
      this.#runs.set(job.id, { run, done });
    }
  }

  /** The live run of a job, if it is running or waiting. */
  runOf(jobId: string): JobRun | undefined {
    return this.#runs.get(jobId)?.run;
  }

  /** Cancels a queued or running job; false when it already ended. */
  cancel(jobId: string): boolean {
    const active = this.#runs.get(jobId);
    if (active) {
      active.run.cancel();
      return true;
    }
    const cancelled = this.#store.jobs.move(
      jobId,
      ['queued'],
      'cancelled',
      { error: 'Cancelled by user', completed_at: isoNow(this.#deps.clock) },
      this.#events.writeWithStatus,
    );
    if (cancelled) {
      this.#proxyPasswords.delete(jobId);
      this.#store.jobs.appendLog(jobId, 'job cancelled before it started');
      this.#events.fireStatus(cancelled);
    }
    return cancelled !== undefined;
  }

  /** Waits for a job's run to finish (for tests and shutdown). */
  async settled(jobId: string): Promise<void> {
    await this.#runs.get(jobId)?.done;
  }

  /** Stops starting jobs and ends the running ones (they fail as interrupted by shutdown). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#clock.clearTimeout(this.#poll);
    this.#poll = undefined;
    this.#slotFreed?.dispose();
    this.#statusChanged.dispose();
    const running = [...this.#runs.values()];
    for (const { run } of running) run.shutdown();
    await Promise.allSettled(running.map(({ done }) => done));
  }
}
