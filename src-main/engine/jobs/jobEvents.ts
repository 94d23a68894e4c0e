import { Emitter } from '../../base/emitter.ts';
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
    this.#status.dispose();
    this.#event.dispose();
    this.#log.dispose();
  }
}
