import { prepared, type Db } from './database.ts';

export interface CredentialRow {
  id: string;
  workspace_id: string;
  created_by: string;
  service_name: string;
  username_or_email: string | null;
  service_url: string | null;
  has_password: number;
  has_totp: number;
  gmail_oauth_account_id: string | null;
  phone_number_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface PhoneNumberRow {
  id: string;
  workspace_id: string;
  created_by: string;
  phone_number: string;
  label: string | null;
  created_at: string;
}

/** Credential metadata and phone numbers of a workspace; never a secret value. */
export class CredentialRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  insert(row: CredentialRow): void {
    prepared(
      this.#db,
      `INSERT INTO credentials (id, workspace_id, created_by, service_name, username_or_email, service_url, has_password, has_totp,
           gmail_oauth_account_id, phone_number_id, created_at, updated_at)
         VALUES (@id, @workspace_id, @created_by, @service_name, @username_or_email, @service_url, @has_password, @has_totp,
           @gmail_oauth_account_id, @phone_number_id, @created_at, @updated_at)`,
    ).run(row);
  }

  get(id: string): CredentialRow | undefined {
    return prepared<[string], CredentialRow>(this.#db, 'SELECT * FROM credentials WHERE id = ?').get(id);
  }

  getForWorkspace(workspaceId: string, id: string): CredentialRow | undefined {
    return prepared<[string, string], CredentialRow>(
      this.#db,
      'SELECT * FROM credentials WHERE id = ? AND workspace_id = ?',
    ).get(id, workspaceId);
  }

  /** A credential of any workspace of `orgId` (what a job of that org may use). */
  getForOrg(orgId: string, id: string): CredentialRow | undefined {
    return prepared<[string, string], CredentialRow>(
      this.#db,
      'SELECT c.* FROM credentials c JOIN workspaces w ON w.id = c.workspace_id WHERE c.id = ? AND w.org_id = ?',
    ).get(id, orgId);
  }

  /** The workspace's credentials, oldest first. */
  list(workspaceId: string): CredentialRow[] {
    return prepared<[string], CredentialRow>(
      this.#db,
      'SELECT * FROM credentials WHERE workspace_id = ? ORDER BY created_at, rowid',
    ).all(workspaceId);
  }

  /** Credentials that receive codes on this phone number. */
  listByPhoneNumber(phoneNumberId: string): CredentialRow[] {
    return prepared<[string], CredentialRow>(
      this.#db,
      'SELECT * FROM credentials WHERE phone_number_id = ? ORDER BY created_at, rowid',
    ).all(phoneNumberId);
  }

  delete(id: string): boolean {
    return prepared(this.#db, 'DELETE FROM credentials WHERE id = ?').run(id).changes > 0;
  }

  insertPhoneNumber(row: PhoneNumberRow): void {
    prepared(
      this.#db,
      'INSERT INTO phone_numbers (id, workspace_id, created_by, phone_number, label, created_at) VALUES (@id, @workspace_id, @created_by, @phone_number, @label, @created_at)',
    ).run(row);
  }

  /** The workspace's phone numbers, oldest first. */
  listPhoneNumbers(workspaceId: string): PhoneNumberRow[] {
    return prepared<[string], PhoneNumberRow>(
      this.#db,
      'SELECT * FROM phone_numbers WHERE workspace_id = ? ORDER BY created_at, rowid',
    ).all(workspaceId);
  }

  /**
   * Deletes the phone number unless a credential still points to it, in one transaction (a credential
   * linked meanwhile is seen, never silently unlinked by the foreign key). Returns those credentials.
   */
  deletePhoneNumberIfUnused(id: string): { deleted: boolean; usedBy: CredentialRow[] } {
    return this.#db
      .transaction(() => {
        const usedBy = this.listByPhoneNumber(id);
        if (usedBy.length > 0) return { deleted: false, usedBy };
        return { deleted: prepared(this.#db, 'DELETE FROM phone_numbers WHERE id = ?').run(id).changes > 0, usedBy };
      })
      .immediate();
  }

  getPhoneNumberForWorkspace(workspaceId: string, id: string): PhoneNumberRow | undefined {
    return prepared<[string, string], PhoneNumberRow>(
      this.#db,
      'SELECT * FROM phone_numbers WHERE id = ? AND workspace_id = ?',
    ).get(id, workspaceId);
  }
}
