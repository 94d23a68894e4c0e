import type { JsonObject } from '../contract/common.ts';
import { JobEvent, type JobStatus, type ProxyConfig } from '../contract/job.ts';
import { isoNow } from '../base/clock.ts';
import { prepared, type Db } from './database.ts';
import { ParsedJsonCache } from './jsonColumns.ts';
import { listPage } from './paging.ts';

/** The portal as it was when the job started: later edits do not change a running job. */
export interface PortalSnapshot {
  start_url: string;
  task: string;
  form_schema: JsonObject;
  output_schema: JsonObject | null;
  humanized_urls: string[] | null;
  webhook_url: string | null;
  skill_ids: string[];
  /** builtin:autofill's assist model for unmatched keys; absent on older rows (= off). */
  assist_model?: string | null;
}

/** The effective start options (defaults applied). A proxy password is never stored. */
export interface JobOptions {
  form_data: JsonObject | null;
  document_bundle_id: string | null;
  max_turns: number;
  timeout_minutes: number;
  save_profile: boolean;
  human_in_the_loop: boolean;
  /** Portico addition: false stops a model-driven job replaying its portal's recorded trace. Absent on older rows (= true). */
  replay?: boolean;
  /** Record the screen as WebM; absent on older rows (= false). */
  record_video?: boolean;
  proxy: (Omit<ProxyConfig, 'password'> & { has_password: boolean }) | null;
  /** Run in this live session's browser (its page, left open afterwards); absent on older rows. */
  browser_session_id?: string | null;
  /** The stored credential the job signs in with; absent on older rows. */
  credential_id?: string | null;
  /** The labels its browser host must carry (the job's, else its portal's); absent or null: any host. */
  browser_host_labels?: string[] | null;
}

export interface JobRecord {
  id: string;
  org_id: string;
  endpoint_name: string;
  portal_id: string | null;
  portal: PortalSnapshot;
  options: JobOptions;
  status: JobStatus;
  orchestrator_model: string;
  vision_model: string;
  profile_id: string | null;
  result: JsonObject | null;
  error: string | null;
  steps: number;
  credits: number;
  session_cost_usd: number;
  active_ms: number;
  has_screenshots: boolean;
  has_downloads: boolean;
  /** Whether `<artifacts>/<id>/recording.webm` was kept. */
  has_recording: boolean;
  view_token: string;
  pending_question_id: string | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  completed_at: string | null;
}

interface JobRow
  extends Omit<JobRecord, 'portal' | 'options' | 'result' | 'has_screenshots' | 'has_downloads' | 'has_recording'> {
  portal_snapshot: string;
  options: string;
  result: string | null;
  has_screenshots: number;
  has_downloads: number;
  has_recording: number;
}

export interface NewJob {
  id: string;
  org_id: string;
  endpoint_name: string;
  portal_id: string;
  portal: PortalSnapshot;
  options: JobOptions;
  orchestrator_model: string;
  vision_model: string;
  profile_id: string | null;
  view_token: string;
}

export interface JobListFilter {
  orgId: string;
  endpointName?: string | undefined;
  status?: JobStatus | undefined;
  limit: number;
  offset: number;
}

export interface JobLogLine {
  seq: number;
  timestamp: string;
  line: string;
}

/** Fields a run may change as it goes. */
export type JobProgress = Partial<
  Pick<
    JobRecord,
    | 'result'
    | 'error'
    | 'steps'
    | 'credits'
    | 'session_cost_usd'
    | 'active_ms'
    | 'has_screenshots'
    | 'has_downloads'
    | 'has_recording'
    | 'pending_question_id'
    | 'started_at'
    | 'completed_at'
  >
>;

/** Event data texts, parsed once each (frozen: see jsonColumns.ts): a status poll re-reads every event. */
const eventJson = new ParsedJsonCache();

function toRecord(row: JobRow): JobRecord {
  const { portal_snapshot, options, result, has_screenshots, has_downloads, has_recording, ...rest } = row;
  let portal: PortalSnapshot | undefined;
  let parsedOptions: JobOptions | undefined;
  const record = {
    ...rest,
    result: result === null ? null : (JSON.parse(result) as JsonObject),
    has_screenshots: has_screenshots === 1,
    has_downloads: has_downloads === 1,
    has_recording: has_recording === 1,
  };
  // The portal snapshot (with its schemas) and the options are parsed when first read: a status poll reads neither.
  return Object.defineProperties(record, {
    portal: {
      enumerable: true,
      configurable: true,
      get: () => (portal ??= JSON.parse(portal_snapshot) as PortalSnapshot),
      set: (value: PortalSnapshot) => {
        portal = value;
      },
    },
    options: {
      enumerable: true,
      configurable: true,
      get: () => (parsedOptions ??= JSON.parse(options) as JobOptions),
      set: (value: JobOptions) => {
        parsedOptions = value;
      },
    },
  }) as JobRecord;
}

/** `column = @column` assignments (plus updated_at) for the given progress fields, values in SQLite form. */
function progressAssignments(progress: JobProgress): { sets: string[]; params: Record<string, unknown> } {
  const sets = ['updated_at = @now'];
  const params: Record<string, unknown> = { now: isoNow() };
  for (const [key, value] of Object.entries(progress)) {
    sets.push(`${key} = @${key}`);
    params[key] =
      key === 'result'
        ? value === null
          ? null
          : JSON.stringify(value)
        : typeof value === 'boolean'
          ? value
            ? 1
            : 0
          : value;
  }
  return { sets, params };
}

/** Jobs, their event list and their log lines. */
export class JobRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  insert(job: NewJob): JobRecord {
    const now = isoNow();
    prepared(
      this.#db,
      `INSERT INTO jobs (id, org_id, endpoint_name, portal_id, portal_snapshot, options, status, orchestrator_model, vision_model,
           profile_id, view_token, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?, ?, ?, ?)`,
    ).run(
      job.id,
      job.org_id,
      job.endpoint_name,
      job.portal_id,
      JSON.stringify(job.portal),
      JSON.stringify(job.options),
      job.orchestrator_model,
      job.vision_model,
      job.profile_id,
      job.view_token,
      now,
      now,
    );
    const created = this.get(job.id);
    if (!created) throw new Error('job vanished after insert');
    return created;
  }

  /** Every job id of an org (the folders its artifacts live in). */
  idsForOrg(orgId: string): string[] {
    return prepared<[string], { id: string }>(this.#db, 'SELECT id FROM jobs WHERE org_id = ?')
      .all(orgId)
      .map((row) => row.id);
  }

  get(id: string): JobRecord | undefined {
    const row = prepared<[string], JobRow>(this.#db, 'SELECT * FROM jobs WHERE id = ?').get(id);
    return row ? toRecord(row) : undefined;
  }

  getByViewToken(token: string): JobRecord | undefined {
    const row = prepared<[string], JobRow>(this.#db, 'SELECT * FROM jobs WHERE view_token = ?').get(token);
    return row ? toRecord(row) : undefined;
  }

  list(filter: JobListFilter): { jobs: JobRecord[]; total: number } {
    const { rows, total } = listPage<JobRow>(
      this.#db,
      'jobs',
      { org_id: filter.orgId, endpoint_name: filter.endpointName, status: filter.status },
      'created_at DESC, rowid DESC',
      filter.limit,
      filter.offset,
    );
    return { jobs: rows.map(toRecord), total };
  }

  /**
   * Queued jobs' ids and organizations, oldest first: what the scheduler's round robin orders by. A backlog
   * costs one narrow row each per look at the queue; a job's whole record is read only when it may start.
   */
  queuedHeads(): { id: string; org_id: string }[] {
    return prepared<[], { id: string; org_id: string }>(
      this.#db,
      "SELECT id, org_id FROM jobs WHERE status = 'queued' ORDER BY created_at, rowid",
    ).all();
  }

  /** Queued jobs, oldest first. */
  listQueued(): JobRecord[] {
    return prepared<[], JobRow>(this.#db, "SELECT * FROM jobs WHERE status = 'queued' ORDER BY created_at, rowid")
      .all()
      .map(toRecord);
  }

  /**
   * Moves a job between statuses only from one of `from`, answering the job as moved (read once, inside the
   * transaction), or undefined when it did not move: whoever announces the move needs no second read.
   * `withMove` runs in the same transaction with the job as moved: what it writes (the webhook outbox)
   * commits with the move, and if it throws neither happens.
   */
  move(
    id: string,
    from: readonly JobStatus[],
    to: JobStatus,
    progress: JobProgress = {},
    withMove?: (job: JobRecord) => void,
  ): JobRecord | undefined {
    const { sets, params } = progressAssignments(progress);
    sets.unshift('status = @to');
    Object.assign(params, { id, to });
    for (const [i, status] of from.entries()) params[`from${i}`] = status;
    const placeholders = from.map((_, i) => `@from${i}`).join(', ');
    return this.#db.transaction((): JobRecord | undefined => {
      const moved =
        prepared(this.#db, `UPDATE jobs SET ${sets.join(', ')} WHERE id = @id AND status IN (${placeholders})`).run(
          params,
        ).changes > 0;
      if (!moved) return undefined;
      const job = this.get(id);
      if (!job) throw new Error(`job ${id} vanished during its transition`);
      withMove?.(job);
      return job;
    })();
  }

  /** Records progress without a status change. */
  update(id: string, progress: JobProgress): void {
    const { sets, params } = progressAssignments(progress);
    prepared(this.#db, `UPDATE jobs SET ${sets.join(', ')} WHERE id = @id`).run({ ...params, id });
  }

  /** Stores one event; its data must be what the contract's `JobEvent` union says for its type (checked before writing). */
  appendEvent(jobId: string, type: string, data: JsonObject): JobEvent {
    const event = JobEvent.parse({ type, timestamp: isoNow(), data });
    // What the schema read (unknown keys dropped) is what is stored, so reading needs no check again.
    prepared(this.#db, 'INSERT INTO job_events (job_id, type, timestamp, data) VALUES (?, ?, ?, ?)').run(
      jobId,
      type,
      event.timestamp,
      JSON.stringify(event.data),
    );
    return event;
  }

  /**
   * A job's events in order. Each was checked against `JobEvent` when written (appendEvent), so rows are
   * only JSON-parsed here: a status poll of a long job no longer runs the zod union per event. The
   * response serializer still writes only the fields the schema names.
   */
  events(jobId: string): JobEvent[] {
    return prepared<[string], { type: string; timestamp: string; data: string }>(
      this.#db,
      'SELECT type, timestamp, data FROM job_events WHERE job_id = ? ORDER BY seq',
    )
      .all(jobId)
      .map((row) => ({ type: row.type, timestamp: row.timestamp, data: eventJson.parse(row.data) }) as JobEvent);
  }

  /**
   * A step as one transaction: its progress (the step count), its event and, when given, its log line
   * (three autocommit writes before; a job records a step or two, each with all three).
   */
  appendStep(
    jobId: string,
    progress: JobProgress,
    event: { type: string; data: JsonObject },
    line?: string,
  ): { event: JobEvent; line: JobLogLine | undefined } {
    return this.#db.transaction(() => {
      this.update(jobId, progress);
      return {
        event: this.appendEvent(jobId, event.type, event.data),
        line: line === undefined ? undefined : this.appendLog(jobId, line),
      };
    })();
  }

  appendLog(jobId: string, line: string): JobLogLine {
    const timestamp = isoNow();
    const info = prepared(this.#db, 'INSERT INTO job_logs (job_id, timestamp, line) VALUES (?, ?, ?)').run(
      jobId,
      timestamp,
      line,
    );
    return { seq: Number(info.lastInsertRowid), timestamp, line };
  }

  logs(jobId: string, afterSeq = 0): JobLogLine[] {
    return prepared<[string, number], JobLogLine>(
      this.#db,
      'SELECT seq, timestamp, line FROM job_logs WHERE job_id = ? AND seq > ? ORDER BY seq',
    ).all(jobId, afterSeq);
  }

  /** Jobs that were running or waiting when the service stopped. */
  listInterrupted(): JobRecord[] {
    return prepared<[], JobRow>(this.#db, "SELECT * FROM jobs WHERE status IN ('running', 'waiting_for_input')")
      .all()
      .map(toRecord);
  }

  /** Whether a job that has not ended uses the profile (delete refuses then). */
  profileInUse(profileId: string): boolean {
    return (
      prepared(
        this.#db,
        "SELECT 1 FROM jobs WHERE profile_id = ? AND status IN ('queued', 'running', 'waiting_for_input')",
      ).get(profileId) !== undefined
    );
  }
}
