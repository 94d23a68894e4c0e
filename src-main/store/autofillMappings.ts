import { isoNow } from '../base/clock.ts';
import { prepared, type Db } from './database.ts';

/**
 * The key mappings builtin:autofill's assist model gave, one per portal and cache key (page
 * structure and key names); `mapping` is the agent's own JSON (the store does not look inside).
 * Rows go with their portal.
 */
export class AutofillMappingRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  get(portalId: string, cacheKey: string): unknown {
    const row = prepared<[string, string], { mapping_json: string }>(
      this.#db,
      'SELECT mapping_json FROM autofill_mappings WHERE portal_id = ? AND cache_key = ?',
    ).get(portalId, cacheKey);
    return row ? (JSON.parse(row.mapping_json) as unknown) : undefined;
  }

  /** Stores or replaces one mapping. Throws a FOREIGN KEY error when the portal is gone. */
  put(portalId: string, cacheKey: string, mapping: unknown, sourceJobId: string | null): void {
    prepared(
      this.#db,
      `INSERT INTO autofill_mappings (portal_id, cache_key, mapping_json, source_job_id, created_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(portal_id, cache_key) DO UPDATE SET mapping_json = excluded.mapping_json, source_job_id = excluded.source_job_id, created_at = excluded.created_at`,
    ).run(portalId, cacheKey, JSON.stringify(mapping), sourceJobId, isoNow());
  }
}
