import { prepared, type Db } from './database.ts';

export interface ProfileRow {
  id: string;
  org_id: string;
  name: string;
  provider_profile_id: string;
  created_at: string;
  updated_at: string;
}

/** Browser profiles (the browser layer owns their folders). */
export class ProfileRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  insert(row: ProfileRow): void {
    prepared(
      this.#db,
      `INSERT INTO profiles (id, org_id, name, provider_profile_id, created_at, updated_at)
         VALUES (@id, @org_id, @name, @provider_profile_id, @created_at, @updated_at)`,
    ).run(row);
  }

  get(id: string): ProfileRow | undefined {
    return prepared<[string], ProfileRow>(this.#db, 'SELECT * FROM profiles WHERE id = ?').get(id);
  }

  getForOrg(orgId: string, id: string): ProfileRow | undefined {
    return prepared<[string, string], ProfileRow>(this.#db, 'SELECT * FROM profiles WHERE id = ? AND org_id = ?').get(
      id,
      orgId,
    );
  }

  list(orgId: string): ProfileRow[] {
    return prepared<[string], ProfileRow>(
      this.#db,
      'SELECT * FROM profiles WHERE org_id = ? ORDER BY created_at, id',
    ).all(orgId);
  }

  /** Records that the profile's saved browser state changed at `updatedAt`. */
  touch(id: string, updatedAt: string): void {
    prepared(this.#db, 'UPDATE profiles SET updated_at = ? WHERE id = ?').run(updatedAt, id);
  }

  delete(id: string): boolean {
    return prepared(this.#db, 'DELETE FROM profiles WHERE id = ?').run(id).changes > 0;
  }
}
