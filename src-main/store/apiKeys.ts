import type { ApiKeyInfo, ApiKeyKind } from '../contract/admin.ts';
import { isoNow } from '../base/clock.ts';
import { newId, newSecretToken, sha256Hex } from '../base/ids.ts';
import { prepared, type Db } from './database.ts';

interface ApiKeyRow {
  id: string;
  kind: ApiKeyKind;
  org_id: string | null;
  user_id: string | null;
  workspace_id: string | null;
  key_hash: string;
  prefix: string;
  created_at: string;
  revoked_at: string | null;
}

/** Who a presented key speaks for. */
export type ApiKeyPrincipal =
  | { kind: 'org'; keyId: string; orgId: string }
  | {
      kind: 'account';
      keyId: string;
      userId: string;
      workspaceId: string;
      /** The organization of the key's workspace. */
      orgId: string;
      /** Whether the user is a member of the workspace right now (read with the key, on every request). */
      member: boolean;
    };

export interface IssuedKey {
  info: ApiKeyInfo;
  /** The secret itself: returned once, never stored. */
  apiKey: string;
}

const KEY_PREFIX: Record<ApiKeyKind, string> = { org: 'pk_org_', account: 'pk_acct_' };

function toInfo(row: ApiKeyRow): ApiKeyInfo {
  return {
    id: row.id,
    kind: row.kind,
    org_id: row.org_id,
    user_id: row.user_id,
    workspace_id: row.workspace_id,
    prefix: row.prefix,
    created_at: row.created_at,
    revoked_at: row.revoked_at,
  };
}

// A workspace with no organization yet acts for `default`, as authenticate() reads it.
const WORKSPACE_ORG = "COALESCE(w.org_id, 'default')";
const KEYS_WITH_ORG = `SELECT k.id, k.kind, CASE WHEN k.kind = 'account' THEN ${WORKSPACE_ORG} ELSE k.org_id END AS org_id,
  k.user_id, k.workspace_id, k.key_hash, k.prefix, k.created_at, k.revoked_at
  FROM api_keys k LEFT JOIN workspaces w ON w.id = k.workspace_id`;

/** Live keys remembered by hash at once; past it the least recently used is forgotten (and read again when next presented). */
const AUTH_CACHE_SIZE = 1000;

/**
 * API keys: random, shown once, stored as SHA-256 hashes, revocable.
 *
 * Who a key speaks for is cached by the key's hash, so a request costs one hash and a map lookup, not a
 * join. The cache is dropped whole whenever what it depends on may have changed: a revoke or a
 * membership/workspace change through this process (`forgetCached`, called by the repositories that
 * write them), and any commit by another connection — the CLI revoking a key or removing a member
 * from its own process — which SQLite's `PRAGMA data_version` shows at the next request. Unknown or
 * revoked keys are never cached: a key issued elsewhere works at once.
 */
export class ApiKeyRepository {
  readonly #db: Db;
  readonly #cache = new Map<string, ApiKeyPrincipal>();
  #cacheVersion = -1;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Drops every cached principal (a key revoked, a membership or workspace changed). */
  forgetCached(): void {
    this.#cache.clear();
  }

  /** How many principals are cached now (tests). */
  get cachedCount(): number {
    return this.#cache.size;
  }

  issueOrgKey(orgId: string): IssuedKey {
    return this.#issue({ kind: 'org', org_id: orgId, user_id: null, workspace_id: null });
  }

  issueAccountKey(userId: string, workspaceId: string): IssuedKey {
    return this.#issue({ kind: 'account', org_id: null, user_id: userId, workspace_id: workspaceId });
  }

  #issue(owner: Pick<ApiKeyRow, 'kind' | 'org_id' | 'user_id' | 'workspace_id'>): IssuedKey {
    const apiKey = newSecretToken(KEY_PREFIX[owner.kind]);
    const row: ApiKeyRow = {
      id: newId(),
      ...owner,
      key_hash: sha256Hex(apiKey),
      prefix: apiKey.slice(0, KEY_PREFIX[owner.kind].length + 6),
      created_at: isoNow(),
      revoked_at: null,
    };
    prepared(
      this.#db,
      `INSERT INTO api_keys (id, kind, org_id, user_id, workspace_id, key_hash, prefix, created_at, revoked_at)
         VALUES (@id, @kind, @org_id, @user_id, @workspace_id, @key_hash, @prefix, @created_at, @revoked_at)`,
    ).run(row);
    return { info: toInfo(row), apiKey };
  }

  /** The principal of a live key, or undefined for an unknown or revoked one. */
  authenticate(apiKey: string): ApiKeyPrincipal | undefined {
    return this.authenticateHash(sha256Hex(apiKey));
  }

  /** {@link authenticate} by the key's SHA-256 (hex), for a caller that hashed it already. */
  authenticateHash(keyHash: string): ApiKeyPrincipal | undefined {
    // Another connection committed since the cache was filled: anything in it may be stale.
    const version = prepared<[], { data_version: number }>(this.#db, 'PRAGMA data_version').get()?.data_version ?? -1;
    if (version !== this.#cacheVersion) {
      this.#cache.clear();
      this.#cacheVersion = version;
    }
    const cached = this.#cache.get(keyHash);
    if (cached) {
      this.#cache.delete(keyHash);
      this.#cache.set(keyHash, cached);
      // A copy: callers may not change what the next request gets.
      return { ...cached };
    }
    const principal = this.#lookup(keyHash);
    if (principal) {
      this.#cache.set(keyHash, principal);
      if (this.#cache.size > AUTH_CACHE_SIZE) this.#cache.delete(this.#cache.keys().next().value as string);
      return { ...principal };
    }
    return undefined;
  }

  #lookup(keyHash: string): ApiKeyPrincipal | undefined {
    const row = prepared<[string], ApiKeyRow & { workspace_org_id: string | null; member: number }>(
      this.#db,
      `SELECT k.*, w.org_id AS workspace_org_id,
           EXISTS (SELECT 1 FROM memberships m WHERE m.workspace_id = k.workspace_id AND m.user_id = k.user_id) AS member
         FROM api_keys k LEFT JOIN workspaces w ON w.id = k.workspace_id
         WHERE k.key_hash = ? AND k.revoked_at IS NULL`,
    ).get(keyHash);
    if (!row) return undefined;
    if (row.kind === 'org' && row.org_id) return { kind: 'org', keyId: row.id, orgId: row.org_id };
    if (row.kind === 'account' && row.user_id && row.workspace_id) {
      return {
        kind: 'account',
        keyId: row.id,
        userId: row.user_id,
        workspaceId: row.workspace_id,
        orgId: row.workspace_org_id ?? 'default',
        member: row.member === 1,
      };
    }
    return undefined;
  }

  /** Marks a key revoked; false when no live key has that id. */
  revoke(id: string): boolean {
    const revoked =
      prepared(this.#db, 'UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(isoNow(), id)
        .changes > 0;
    this.forgetCached();
    return revoked;
  }

  /** A key by id; an account key's `org_id` is its workspace's organization (the one it acts for). */
  get(id: string): ApiKeyInfo | undefined {
    const row = prepared<[string], ApiKeyRow>(this.#db, `${KEYS_WITH_ORG} WHERE k.id = ?`).get(id);
    return row ? toInfo(row) : undefined;
  }

  /** An organization's keys: its org keys and the account keys of its workspaces, oldest first. */
  listForOrg(orgId: string): ApiKeyInfo[] {
    return prepared<[string, string], ApiKeyRow>(
      this.#db,
      `${KEYS_WITH_ORG} WHERE (k.kind = 'org' AND k.org_id = ?) OR (k.kind = 'account' AND ${WORKSPACE_ORG} = ?) ORDER BY k.created_at, k.id`,
    )
      .all(orgId, orgId)
      .map(toInfo);
  }
}
