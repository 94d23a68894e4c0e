import { isoNow, systemClock, type Clock } from '../base/clock.ts';
import { prepared, type Db } from './database.ts';

/** One step-cache entry as stored; `recipe` is the interpreter's own JSON (the store does not look inside). */
export interface ActionCacheEntry {
  workspaceId: string;
  cacheKey: string;
  /** The request's `id`, when the entry is keyed by it. */
  stepId: string | null;
  /** The action as written, `{{variable}}` names unexpanded. */
  action: string;
  /** Origin + path of the page the entry was resolved on. */
  page: string;
  recipe: unknown;
  hits: number;
  misses: number;
  createdAt: string;
  updatedAt: string;
  lastUsedAt: string;
}

interface Row {
  workspace_id: string;
  cache_key: string;
  step_id: string | null;
  action: string;
  page: string;
  recipe_json: string;
  hits: number;
  misses: number;
  created_at: string;
  updated_at: string;
  last_used_at: string;
}

const toEntry = (row: Row): ActionCacheEntry => ({
  workspaceId: row.workspace_id,
  cacheKey: row.cache_key,
  stepId: row.step_id,
  action: row.action,
  page: row.page,
  recipe: JSON.parse(row.recipe_json) as unknown,
  hits: row.hits,
  misses: row.misses,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  lastUsedAt: row.last_used_at,
});

/** The single-action step cache, one entry per workspace and key, with hit and miss counts. */
export class ActionCacheRepository {
  readonly #db: Db;
  readonly #clock: Pick<Clock, 'now'>;

  constructor(db: Db, clock: Pick<Clock, 'now'> = systemClock) {
    this.#db = db;
    this.#clock = clock;
  }

  get(workspaceId: string, cacheKey: string): ActionCacheEntry | undefined {
    const row = prepared<[string, string], Row>(
      this.#db,
      'SELECT * FROM action_cache WHERE workspace_id = ? AND cache_key = ?',
    ).get(workspaceId, cacheKey);
    return row && toEntry(row);
  }

  /**
   * Stores or replaces an entry's recipe. Counts carry over on replace; `missed` adds the lookup that
   * found nothing usable (a new entry starts with that miss).
   */
  put(
    entry: {
      workspaceId: string;
      cacheKey: string;
      stepId: string | null;
      action: string;
      page: string;
      recipe: unknown;
    },
    missed: boolean,
  ): void {
    const now = isoNow(this.#clock);
    prepared(
      this.#db,
      `INSERT INTO action_cache (workspace_id, cache_key, step_id, action, page, recipe_json, hits, misses, created_at, updated_at, last_used_at)
       VALUES (@workspaceId, @cacheKey, @stepId, @action, @page, @recipe, 0, @missed, @now, @now, @now)
       ON CONFLICT(workspace_id, cache_key) DO UPDATE SET step_id = excluded.step_id, action = excluded.action, page = excluded.page,
         recipe_json = excluded.recipe_json, misses = misses + excluded.misses, updated_at = excluded.updated_at, last_used_at = excluded.last_used_at`,
    ).run({ ...entry, recipe: JSON.stringify(entry.recipe), missed: missed ? 1 : 0, now });
  }

  /** Counts one replay of an entry (hit) or one lookup where it did not apply (miss). */
  count(workspaceId: string, cacheKey: string, outcome: 'hit' | 'miss'): void {
    const column = outcome === 'hit' ? 'hits' : 'misses';
    prepared(
      this.#db,
      `UPDATE action_cache SET ${column} = ${column} + 1, last_used_at = ? WHERE workspace_id = ? AND cache_key = ?`,
    ).run(isoNow(this.#clock), workspaceId, cacheKey);
  }

  /** A workspace's entries, most recently used first, with the total. */
  list(workspaceId: string, limit: number, offset: number): { entries: ActionCacheEntry[]; total: number } {
    const total =
      prepared<[string], { n: number }>(this.#db, 'SELECT COUNT(*) AS n FROM action_cache WHERE workspace_id = ?').get(
        workspaceId,
      )?.n ?? 0;
    const rows = prepared<[string, number, number], Row>(
      this.#db,
      'SELECT * FROM action_cache WHERE workspace_id = ? ORDER BY last_used_at DESC, cache_key LIMIT ? OFFSET ?',
    ).all(workspaceId, limit, offset);
    return { entries: rows.map(toEntry), total };
  }
}
