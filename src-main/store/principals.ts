import { isoNow } from '../base/clock.ts';
import { prepared, type Db } from './database.ts';

export interface OrgRow {
  id: string;
  name: string;
  created_at: string;
}

/** Organizations, users, workspaces and workspace memberships. */
export class PrincipalRepository {
  readonly #db: Db;
  readonly #changed: () => void;

  /** `changed`: told after a workspace or membership write (who an API key speaks for may have changed). */
  constructor(db: Db, changed: () => void = () => {}) {
    this.#db = db;
    this.#changed = changed;
  }

  createOrg(id: string, name = id): OrgRow {
    const row: OrgRow = { id, name, created_at: isoNow() };
    prepared(this.#db, 'INSERT INTO orgs (id, name, created_at) VALUES (@id, @name, @created_at)').run(row);
    return row;
  }

  getOrg(id: string): OrgRow | undefined {
    return prepared<[string], OrgRow>(this.#db, 'SELECT * FROM orgs WHERE id = ?').get(id);
  }

  listOrgs(): OrgRow[] {
    return prepared<[], OrgRow>(this.#db, 'SELECT * FROM orgs ORDER BY created_at, id').all();
  }

  countOrgs(): number {
    return prepared<[], { n: number }>(this.#db, 'SELECT COUNT(*) AS n FROM orgs').get()?.n ?? 0;
  }

  userExists(id: string): boolean {
    return prepared(this.#db, 'SELECT 1 FROM users WHERE id = ?').get(id) !== undefined;
  }

  ensureUser(id: string): void {
    prepared(this.#db, 'INSERT OR IGNORE INTO users (id, created_at) VALUES (?, ?)').run(id, isoNow());
  }

  workspaceExists(id: string): boolean {
    return prepared(this.#db, 'SELECT 1 FROM workspaces WHERE id = ?').get(id) !== undefined;
  }

  /** Makes the workspace in `orgId` when absent (an existing one keeps its org: see workspaceOrg); null: no org exists yet, read as `default`. */
  ensureWorkspace(id: string, orgId: string | null = 'default'): void {
    prepared(this.#db, 'INSERT OR IGNORE INTO workspaces (id, org_id, created_at) VALUES (?, ?, ?)').run(
      id,
      orgId,
      isoNow(),
    );
    this.#changed();
  }

  /** The organization a workspace belongs to; undefined when there is no such workspace. */
  workspaceOrg(id: string): string | undefined {
    return (
      prepared<[string], { org_id: string | null }>(this.#db, 'SELECT org_id FROM workspaces WHERE id = ?').get(id)
        ?.org_id ?? undefined
    );
  }

  addMember(workspaceId: string, userId: string): void {
    prepared(this.#db, 'INSERT OR IGNORE INTO memberships (workspace_id, user_id, created_at) VALUES (?, ?, ?)').run(
      workspaceId,
      userId,
      isoNow(),
    );
    this.#changed();
  }

  /** Returns whether a membership was removed. */
  removeMember(workspaceId: string, userId: string): boolean {
    const removed =
      prepared(this.#db, 'DELETE FROM memberships WHERE workspace_id = ? AND user_id = ?').run(workspaceId, userId)
        .changes > 0;
    this.#changed();
    return removed;
  }

  isMember(workspaceId: string, userId: string): boolean {
    return (
      prepared(this.#db, 'SELECT 1 FROM memberships WHERE workspace_id = ? AND user_id = ?').get(
        workspaceId,
        userId,
      ) !== undefined
    );
  }
}
