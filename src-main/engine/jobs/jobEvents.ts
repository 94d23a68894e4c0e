import { Emitter, type Disposable } from '../../base/emitter.ts';
import type { JobEvent } from '../../contract/job.ts';
import type { JobLogLine, JobRecord } from '../../store/jobs.ts';

/** The engine's job signals; webhooks, the log stream and the console all listen here. */
export class JobEvents {
  readonly #status = new Emitter<JobRecord>();
  readonly #event = new Emitter<{ job: JobRecord; event: JobEvent }>();
  readonly #log = new Emitter<{ jobId: string; line: JobLogLine }>();

  /** Any status change (queued → running → … → final), with the job after the change. */
  readonly onDidChangeStatus = this.#status.event;
  /** An event appended to a job's `events` (question, answer, step, …). */
  readonly onDidAppendEvent = this.#event.event;
  /** A line appended to a job's log. */
  readonly onDidLog = this.#log.event;

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
  }

  fireEvent(job: JobRecord, event: JobEvent): void {
    this.#event.fire({ job, event });
  }

  fireLog(jobId: string, line: JobLogLine): void {
    this.#log.fire({ jobId, line });
  }

  dispose(): void {
    this.#statusWriters.clear();
    this.#status.dispose();
    this.#event.dispose();
    this.#log.dispose();
  }
}
