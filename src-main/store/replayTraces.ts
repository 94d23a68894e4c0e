import { isoNow } from '../base/clock.ts';
import { prepared, type Db } from './database.ts';

/** One stored trace; `trace` is the agent's own JSON (the store does not look inside). */
export interface ReplayTraceRow {
  portal_id: string;
  version: number;
  trace: unknown;
  source_job_id: string | null;
  updated_at: string;
}

/** The replay cache of model-driven jobs, one trace per portal. */
export class ReplayTraceRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  get(portalId: string): ReplayTraceRow | undefined {
    const row = prepared<[string], Omit<ReplayTraceRow, 'trace'> & { trace: string }>(
      this.#db,
      'SELECT * FROM replay_traces WHERE portal_id = ?',
    ).get(portalId);
    return row ? { ...row, trace: JSON.parse(row.trace) as unknown } : undefined;
  }

  /** Stores or replaces a portal's trace, bumping its version. */
  put(portalId: string, trace: unknown, sourceJobId: string | null): void {
    prepared(
      this.#db,
      `INSERT INTO replay_traces (portal_id, version, trace, source_job_id, updated_at) VALUES (?, 1, ?, ?, ?)
         ON CONFLICT(portal_id) DO UPDATE SET version = version + 1, trace = excluded.trace, source_job_id = excluded.source_job_id, updated_at = excluded.updated_at`,
    ).run(portalId, JSON.stringify(trace), sourceJobId, isoNow());
  }

  delete(portalId: string): boolean {
    return prepared(this.#db, 'DELETE FROM replay_traces WHERE portal_id = ?').run(portalId).changes > 0;
  }
}
