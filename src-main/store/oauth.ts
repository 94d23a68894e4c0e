import type { ConnectedAccountStatus } from '../contract/oauth.ts';
import { prepared, type Db } from './database.ts';

export interface OAuthAppRow {
  id: string;
  authorize_url: string;
  token_url: string;
  userinfo_url: string | null;
  client_id: string;
  /** JSON array of scope strings. */
  scopes: string;
  has_client_secret: number;
  created_at: string;
  updated_at: string;
}

export interface ConnectedAccountRow {
  id: string;
  user_id: string;
  workspace_id: string;
  oauth_app_id: string;
  oauth_user_name: string;
  /** JSON array of the scopes granted (as asked). */
  scopes: string;
  status: ConnectedAccountStatus;
  created_at: string;
  updated_at: string;
}

/** A connect request waiting for the provider's redirect (migration 0016); its PKCE verifier is in the secret store. */
export interface PendingConnectRow {
  /** SHA-256 (hex) of the `state`; the state itself is never stored. */
  state_hash: string;
  user_id: string;
  workspace_id: string;
  oauth_app_id: string;
  /** JSON array of the scopes asked. */
  scopes: string;
  redirect_uri: string;
  created_at: string;
  expires_at: string;
}

/** OAuth apps and connected accounts (migration 0012): metadata only, never a secret or token. */
export class OAuthRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Inserts or replaces an app by id; created_at stays what it was. */
  upsertApp(row: OAuthAppRow): void {
    prepared(
      this.#db,
      `INSERT INTO oauth_apps (id, authorize_url, token_url, userinfo_url, client_id, scopes, has_client_secret, created_at, updated_at)
         VALUES (@id, @authorize_url, @token_url, @userinfo_url, @client_id, @scopes, @has_client_secret, @created_at, @updated_at)
         ON CONFLICT (id) DO UPDATE SET authorize_url = excluded.authorize_url, token_url = excluded.token_url, userinfo_url = excluded.userinfo_url,
           client_id = excluded.client_id, scopes = excluded.scopes, has_client_secret = excluded.has_client_secret, updated_at = excluded.updated_at`,
    ).run(row);
  }

  getApp(id: string): OAuthAppRow | undefined {
    return prepared<[string], OAuthAppRow>(this.#db, 'SELECT * FROM oauth_apps WHERE id = ?').get(id);
  }

  listApps(): OAuthAppRow[] {
    return prepared<[], OAuthAppRow>(this.#db, 'SELECT * FROM oauth_apps ORDER BY id').all();
  }

  deleteApp(id: string): boolean {
    return prepared(this.#db, 'DELETE FROM oauth_apps WHERE id = ?').run(id).changes > 0;
  }

  countAccountsOfApp(appId: string): number {
    return (
      prepared<[string], { n: number }>(
        this.#db,
        'SELECT count(*) AS n FROM connected_accounts WHERE oauth_app_id = ?',
      ).get(appId)?.n ?? 0
    );
  }

  /** The account a user already has for this app and provider identity (a reconnect reuses it). */
  findAccount(userId: string, appId: string, userName: string): ConnectedAccountRow | undefined {
    return prepared<[string, string, string], ConnectedAccountRow>(
      this.#db,
      'SELECT * FROM connected_accounts WHERE user_id = ? AND oauth_app_id = ? AND oauth_user_name = ?',
    ).get(userId, appId, userName);
  }

  insertAccount(row: ConnectedAccountRow): void {
    prepared(
      this.#db,
      `INSERT INTO connected_accounts (id, user_id, workspace_id, oauth_app_id, oauth_user_name, scopes, status, created_at, updated_at)
         VALUES (@id, @user_id, @workspace_id, @oauth_app_id, @oauth_user_name, @scopes, @status, @created_at, @updated_at)`,
    ).run(row);
  }

  /** A reconnect: the account works again with the scopes just granted. */
  reconnectAccount(id: string, scopes: string, at: string): void {
    prepared(
      this.#db,
      "UPDATE connected_accounts SET status = 'connected', scopes = ?, updated_at = ? WHERE id = ?",
    ).run(scopes, at, id);
  }

  setAccountStatus(id: string, status: ConnectedAccountStatus, at: string): void {
    prepared(this.#db, 'UPDATE connected_accounts SET status = ?, updated_at = ? WHERE id = ?').run(status, at, id);
  }

  getAccount(id: string): ConnectedAccountRow | undefined {
    return prepared<[string], ConnectedAccountRow>(this.#db, 'SELECT * FROM connected_accounts WHERE id = ?').get(id);
  }

  /** One user's accounts, oldest first. */
  listAccountsOfUser(userId: string): ConnectedAccountRow[] {
    return prepared<[string], ConnectedAccountRow>(
      this.#db,
      'SELECT * FROM connected_accounts WHERE user_id = ? ORDER BY created_at, rowid',
    ).all(userId);
  }

  deleteAccount(id: string): boolean {
    return prepared(this.#db, 'DELETE FROM connected_accounts WHERE id = ?').run(id).changes > 0;
  }

  insertPending(row: PendingConnectRow): void {
    prepared(
      this.#db,
      `INSERT INTO oauth_pending_connects (state_hash, user_id, workspace_id, oauth_app_id, scopes, redirect_uri, created_at, expires_at)
         VALUES (@state_hash, @user_id, @workspace_id, @oauth_app_id, @scopes, @redirect_uri, @created_at, @expires_at)`,
    ).run(row);
  }

  /** Reads and deletes a pending connect in one statement: of two callbacks with the same state, one gets it. */
  takePending(stateHash: string): PendingConnectRow | undefined {
    return prepared<[string], PendingConnectRow>(
      this.#db,
      'DELETE FROM oauth_pending_connects WHERE state_hash = ? RETURNING *',
    ).get(stateHash);
  }

  /**
   * Deletes the pending connects that expired before `nowIso`, and the oldest beyond `keep` (a flood of
   * connect requests cannot grow the table); returns the state hashes removed, so their verifiers go too.
   */
  prunePending(nowIso: string, keep: number): string[] {
    return this.#db.transaction(() => {
      const expired = prepared<[string], { state_hash: string }>(
        this.#db,
        'DELETE FROM oauth_pending_connects WHERE expires_at < ? RETURNING state_hash',
      ).all(nowIso);
      const excess = prepared<[number], { state_hash: string }>(
        this.#db,
        `DELETE FROM oauth_pending_connects WHERE state_hash IN (
             SELECT state_hash FROM oauth_pending_connects ORDER BY created_at DESC, rowid DESC LIMIT -1 OFFSET ?) RETURNING state_hash`,
      ).all(keep);
      return [...expired, ...excess].map((row) => row.state_hash);
    })();
  }

  countPending(): number {
    return prepared<[], { n: number }>(this.#db, 'SELECT count(*) AS n FROM oauth_pending_connects').get()?.n ?? 0;
  }
}
