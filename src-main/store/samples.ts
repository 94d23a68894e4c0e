import { prepared, type Db } from './database.ts';

/** An application the sample site accepted. */
export interface SampleSubmissionRecord {
  reference: string;
  sample: string;
  fields: Record<string, string>;
  received_at: string;
}

/** At most this many received applications are kept (the oldest go first). */
export const SAMPLE_SUBMISSIONS_KEPT = 500;

/** The sample portals created per organization, and what the sample site received. */
export class SampleRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Whether `sample` was ever created in `orgId` (its portal may have been deleted since). */
  wasCreated(orgId: string, sample: string): boolean {
    return (
      prepared(this.#db, 'SELECT 1 FROM sample_portals WHERE org_id = ? AND sample = ?').get(orgId, sample) !==
      undefined
    );
  }

  markCreated(orgId: string, sample: string, endpointName: string, now: string): void {
    prepared(
      this.#db,
      'INSERT INTO sample_portals (org_id, sample, endpoint_name, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (org_id, sample) DO UPDATE SET endpoint_name = excluded.endpoint_name, created_at = excluded.created_at',
    ).run(orgId, sample, endpointName, now);
  }

  /** Every sample created anywhere: (org, sample, endpoint). */
  all(): Array<{ org_id: string; sample: string; endpoint_name: string }> {
    return prepared<[], { org_id: string; sample: string; endpoint_name: string }>(
      this.#db,
      'SELECT org_id, sample, endpoint_name FROM sample_portals ORDER BY org_id, sample',
    ).all();
  }

  forOrg(orgId: string): Array<{ sample: string; endpoint_name: string }> {
    return prepared<[string], { sample: string; endpoint_name: string }>(
      this.#db,
      'SELECT sample, endpoint_name FROM sample_portals WHERE org_id = ? ORDER BY sample',
    ).all(orgId);
  }

  /** Stores an accepted application and drops the oldest beyond the limit, in one transaction. */
  addSubmission(record: SampleSubmissionRecord): void {
    this.#db.transaction(() => {
      prepared(
        this.#db,
        'INSERT INTO sample_submissions (reference, sample, fields, received_at) VALUES (?, ?, ?, ?)',
      ).run(record.reference, record.sample, JSON.stringify(record.fields), record.received_at);
      prepared(
        this.#db,
        `DELETE FROM sample_submissions WHERE reference IN (
        SELECT reference FROM sample_submissions ORDER BY received_at DESC, rowid DESC LIMIT -1 OFFSET ${SAMPLE_SUBMISSIONS_KEPT})`,
      ).run();
    })();
  }

  submission(reference: string): SampleSubmissionRecord | undefined {
    const row = prepared<[string], { reference: string; sample: string; fields: string; received_at: string }>(
      this.#db,
      'SELECT reference, sample, fields, received_at FROM sample_submissions WHERE reference = ?',
    ).get(reference);
    return row && { ...row, fields: JSON.parse(row.fields) as Record<string, string> };
  }
}
