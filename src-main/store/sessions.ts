import { prepared, type Db } from './database.ts';
import { listPage } from './paging.ts';

export type SessionStatus = 'active' | 'terminated' | 'expired';

export interface SessionRow {
  id: string;
  workspace_id: string;
  created_by: string;
  status: SessionStatus;
  screen_width: number;
  screen_height: number;
  profile_id: string | null;
  /** The proxy server only; proxy credentials are never stored. */
  proxy_server: string | null;
  user_agent: string | null;
  record_video: number;
  /** 1 once the session's recording was kept (migration 0009; absent before insert). */
  has_recording?: number;
  /** JSON object. */
  metadata: string;
  timeout_minutes: number;
  expires_at: string;
  ended_at: string | null;
  created_at: string;
  updated_at: string;
}

/** Browser sessions of the public API (`/public/sessions`), one workspace each. */
export class SessionRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  insert(row: SessionRow): void {
    prepared(
      this.#db,
      `INSERT INTO browser_sessions (id, workspace_id, created_by, status, screen_width, screen_height, profile_id, proxy_server, user_agent,
           record_video, metadata, timeout_minutes, expires_at, ended_at, created_at, updated_at)
         VALUES (@id, @workspace_id, @created_by, @status, @screen_width, @screen_height, @profile_id, @proxy_server, @user_agent,
           @record_video, @metadata, @timeout_minutes, @expires_at, @ended_at, @created_at, @updated_at)`,
    ).run(row);
  }

  /** Removes a session's row: only for one whose creation failed before it was handed out (nothing refers to it yet). */
  remove(id: string): void {
    prepared(this.#db, 'DELETE FROM browser_sessions WHERE id = ?').run(id);
  }

  get(id: string): SessionRow | undefined {
    return prepared<[string], SessionRow>(this.#db, 'SELECT * FROM browser_sessions WHERE id = ?').get(id);
  }

  getForWorkspace(workspaceId: string, id: string): SessionRow | undefined {
    return prepared<[string, string], SessionRow>(
      this.#db,
      'SELECT * FROM browser_sessions WHERE id = ? AND workspace_id = ?',
    ).get(id, workspaceId);
  }

  /** One page of a workspace's sessions, newest first, and how many match. */
  list(
    workspaceId: string,
    status: SessionStatus | undefined,
    limit: number,
    offset: number,
  ): { rows: SessionRow[]; total: number } {
    return listPage<SessionRow>(
      this.#db,
      'browser_sessions',
      { workspace_id: workspaceId, status },
      'created_at DESC, rowid DESC',
      limit,
      offset,
    );
  }

  /** Ends an active session; false when it had ended already (the first ending wins). */
  /** Notes that the session's recording was kept. */
  markRecorded(id: string): void {
    prepared(this.#db, 'UPDATE browser_sessions SET has_recording = 1 WHERE id = ?').run(id);
  }

  end(id: string, status: Exclude<SessionStatus, 'active'>, at: string): boolean {
    return (
      prepared(
        this.#db,
        "UPDATE browser_sessions SET status = ?, ended_at = ?, updated_at = ? WHERE id = ? AND status = 'active'",
      ).run(status, at, at, id).changes > 0
    );
  }

  /** At start-up: sessions left active by the previous run lost their browser with it. */
  terminateAllActive(at: string): number {
    return prepared(
      this.#db,
      "UPDATE browser_sessions SET status = 'terminated', ended_at = ?, updated_at = ? WHERE status = 'active'",
    ).run(at, at).changes;
  }
}
