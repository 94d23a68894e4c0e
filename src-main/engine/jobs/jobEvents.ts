import { Emitter, type Disposable, type Listener } from '../../base/emitter.ts';
import type { JobEvent } from '../../contract/job.ts';
import type { JobLogLine, JobRecord } from '../../store/jobs.ts';

/**
 * Listeners by job id: a fire reaches only that job's listeners, so with n jobs running (each with its
 * log stream open) a line costs one lookup, not n listener calls (O(jobs²) under concurrency).
 */
class PerJob<T> {
  readonly #listeners = new Map<string, Set<Listener<T>>>();

  on(jobId: string, listener: Listener<T>): Disposable {
    const set = this.#listeners.get(jobId) ?? new Set<Listener<T>>();
    if (set.size === 0) this.#listeners.set(jobId, set);
    set.add(listener);
    return {
      dispose: () => {
        const current = this.#listeners.get(jobId);
        if (!current?.delete(listener)) return;
        if (current.size === 0) this.#listeners.delete(jobId);
      },
    };
  }

  fire(jobId: string, event: T): void {
    const set = this.#listeners.get(jobId);
    if (!set) return;
    for (const listener of [...set]) listener(event);
  }

  /** How many listeners a job has (tests: a stream's subscriptions are gone once it ends). */
  count(jobId: string): number {
    return this.#listeners.get(jobId)?.size ?? 0;
  }

  clear(): void {
    this.#listeners.clear();
  }
}

/** The engine's job signals; webhooks, the log stream and the console all listen here. */
export class JobEvents {
  readonly #status = new Emitter<JobRecord>();
  readonly #statusOf = new PerJob<JobRecord>();
  readonly #eventOf = new PerJob<JobEvent>();
  readonly #logOf = new PerJob<JobLogLine>();

  /** Any status change (queued → running → … → final), with the job after the change. */
  readonly onDidChangeStatus = this.#status.event;

  /** One job's status changes, with the job after the change. */
  onDidChangeStatusOf(jobId: string, listener: Listener<JobRecord>): Disposable {
    return this.#statusOf.on(jobId, listener);
  }

  /** An event appended to one job's `events` (question, answer, step, …); the job's row is not read for it. */
  onDidAppendEventOf(jobId: string, listener: Listener<JobEvent>): Disposable {
    return this.#eventOf.on(jobId, listener);
  }

  /** A line appended to one job's log. */
  onDidLogOf(jobId: string, listener: Listener<JobLogLine>): Disposable {
    return this.#logOf.on(jobId, listener);
  }

  /** Listeners one job has for its lines, events and status (tests). */
  listenersOf(jobId: string): number {
    return this.#statusOf.count(jobId) + this.#eventOf.count(jobId) + this.#logOf.count(jobId);
  }

  readonly #statusWriters = new Set<(job: JobRecord) => void>();

  /**
   * Adds a write that must commit with every status change or not at all (the webhook outbox): it
   * runs inside the change's SQLite transaction, synchronously, with the job as changed; a throw
   * undoes the change. Listeners of onDidChangeStatus hear of it after the commit.
   */
  addStatusWriter(write: (job: JobRecord) => void): Disposable {
    this.#statusWriters.add(write);
    return { dispose: () => void this.#statusWriters.delete(write) };
  }

  /** What the engine hands the store's status transition: every status writer, in order. */
  readonly writeWithStatus = (job: JobRecord): void => {
    for (const write of this.#statusWriters) write(job);
  };

  fireStatus(job: JobRecord): void {
    this.#status.fire(job);
    this.#statusOf.fire(job.id, job);
  }

  fireEvent(jobId: string, event: JobEvent): void {
    this.#eventOf.fire(jobId, event);
  }

  fireLog(jobId: string, line: JobLogLine): void {
    this.#logOf.fire(jobId, line);
  }

  dispose(): void {
    this.#statusWriters.clear();
    this.#status.dispose();
    this.#statusOf.clear();
    this.#eventOf.clear();
    this.#logOf.clear();
  }
}
