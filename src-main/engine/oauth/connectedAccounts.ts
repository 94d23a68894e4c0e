import { createHash, randomBytes } from 'node:crypto';
import { isoNow, systemClock, type Clock } from '../../base/clock.ts';
import { ConflictError, isAppError, NotFoundError } from '../../base/errors.ts';
import { newId } from '../../base/ids.ts';
import { silentLogger, type Logger } from '../../base/logger.ts';
import {
  oauthMessages,
  type ConnectedAccount,
  type ConnectRequest,
  type ConnectResponse,
} from '../../contract/oauth.ts';
import type { SecretStore } from '../../secrets/index.ts';
import type { ConnectedAccountRow, OAuthRepository, PendingConnectRow } from '../../store/oauth.ts';
import type { OAuthAppRegistry } from './oauthApps.ts';
import { presetFor } from './presets.ts';
import {
  fetchUserName,
  idTokenClaims,
  InvalidGrantError,
  nameFromClaims,
  tokenRequest,
  type StoredTokens,
} from './tokenEndpoint.ts';

/** Where an account's tokens live in the SecretStore (one JSON secret). */
export const tokensSecretName = (accountId: string): string => `oauth-account/${accountId}/tokens`;

/** A connect request waits this long for the provider to send the browser back. */
export const STATE_TTL_MS = 10 * 60_000;
/** An access token this close to its expiry is refreshed before it is handed out. */
export const REFRESH_BEFORE_EXPIRY_MS = 2 * 60_000;
/** Connect requests kept waiting at once; the oldest is dropped beyond this (a flood cannot grow the table). */
export const MAX_PENDING = 1000;

/** Where a waiting connect's PKCE verifier lives in the SecretStore (SQLite holds only the state's hash). */
export const verifierSecretName = (stateHash: string): string => `oauth-pending/${stateHash}/verifier`;

/** SHA-256 (hex) of a state: how a waiting connect is found without storing the state itself. */
export const stateHash = (state: string): string => createHash('sha256').update(state, 'utf8').digest('hex');

/** 409: the provider revoked the grant; the user connects the account again. */
export class NeedsReconnectError extends ConflictError {
  constructor(accountId: string) {
    super(oauthMessages.needsReconnect(accountId));
  }
}

/** The page `/oauth/callback` shows, with its status. */
export interface CallbackOutcome {
  status: number;
  title: string;
  message: string;
}

export interface CallbackQuery {
  state?: string;
  code?: string;
  error?: string;
  error_description?: string;
}

interface PendingConnect {
  userId: string;
  workspaceId: string;
  appId: string;
  verifier: string;
  scopes: string[];
  redirectUri: string;
}

export interface ConnectedAccountDeps {
  repo: OAuthRepository;
  apps: OAuthAppRegistry;
  secrets: () => Promise<SecretStore>;
  /** `http://127.0.0.1:<port>/oauth/callback` (RFC 8252 §7.3: a loopback IP literal, the port the service listens on). */
  redirectUri: () => string;
  clock?: Clock;
  logger?: Logger;
  fetch?: typeof fetch;
  /** Told every token value this service handles, so the app's log redactor can hide it in any encoding. */
  onSecret?: (value: string) => void;
  /** Called once each time a callback connects (or reconnects) an account; the desktop host focuses its window. */
  onAccountConnected?: (account: ConnectedAccount) => void;
}

const base64url = (bytes: Buffer): string => bytes.toString('base64url');
/** PKCE S256 (RFC 7636 §4.2): BASE64URL(SHA256(ASCII(code_verifier))). */
export const s256Challenge = (verifier: string): string =>
  base64url(createHash('sha256').update(verifier, 'ascii').digest());

const toAccount = (row: ConnectedAccountRow): ConnectedAccount => ({
  id: row.id,
  user_id: row.user_id,
  oauth_app_id: row.oauth_app_id,
  oauth_user_name: row.oauth_user_name,
  status: row.status,
  scopes: JSON.parse(row.scopes) as string[],
  created_at: row.created_at,
  updated_at: row.updated_at,
});

/**
 * Connected accounts (local-service.md §5.4): the authorization-code + PKCE flow through the loopback
 * callback, the caller's own accounts, and access tokens refreshed before expiry, one refresh per
 * account at a time.
 */
export class ConnectedAccountService {
  readonly #repo: OAuthRepository;
  readonly #apps: OAuthAppRegistry;
  readonly #secrets: () => Promise<SecretStore>;
  readonly #redirectUri: () => string;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #fetch: typeof fetch;
  readonly #onSecret: (value: string) => void;
  readonly #onAccountConnected: (account: ConnectedAccount) => void;
  /** Per account: the tail of its token operations, so reads and refreshes never overlap. */
  readonly #queues = new Map<string, Promise<unknown>>();

  constructor(deps: ConnectedAccountDeps) {
    this.#repo = deps.repo;
    this.#apps = deps.apps;
    this.#secrets = deps.secrets;
    this.#redirectUri = deps.redirectUri;
    this.#clock = deps.clock ?? systemClock;
    this.#logger = deps.logger ?? silentLogger;
    this.#fetch = deps.fetch ?? ((input, init) => fetch(input, init));
    this.#onSecret = deps.onSecret ?? (() => {});
    this.#onAccountConnected = deps.onAccountConnected ?? (() => {});
  }

  #tell(tokens: StoredTokens): void {
    this.#onSecret(tokens.access_token);
    if (tokens.refresh_token !== undefined) this.#onSecret(tokens.refresh_token);
  }

  /**
   * Starts connecting: a single-use state and a PKCE verifier, and the provider URL to open. The
   * request survives a restart: its row (keyed by the state's hash) in SQLite, its verifier in the
   * secret store — written first, so a row never exists without its verifier.
   */
  async start(actor: { userId: string; workspaceId: string }, request: ConnectRequest): Promise<ConnectResponse> {
    const app = this.#apps.get(request.oauth_app_id);
    const now = this.#clock.now();
    const secrets = await this.#secrets();
    await this.#prune(secrets, now);
    const state = base64url(randomBytes(32));
    const verifier = base64url(randomBytes(48));
    const scopes = request.scopes ?? app.scopes;
    const redirectUri = this.#redirectUri();
    const hash = stateHash(state);
    await secrets.set(verifierSecretName(hash), verifier);
    try {
      this.#repo.insertPending({
        state_hash: hash,
        user_id: actor.userId,
        workspace_id: actor.workspaceId,
        oauth_app_id: app.id,
        scopes: JSON.stringify(scopes),
        redirect_uri: redirectUri,
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + STATE_TTL_MS).toISOString(),
      });
    } catch (error) {
      await secrets.delete(verifierSecretName(hash));
      throw error;
    }
    const url = new URL(app.authorize_url);
    const params: Record<string, string> = {
      response_type: 'code',
      client_id: app.client_id,
      redirect_uri: redirectUri,
      state,
      code_challenge: s256Challenge(verifier),
      code_challenge_method: 'S256',
      ...(scopes.length > 0 && { scope: scopes.join(' ') }),
      ...presetFor(app.id)?.authorizeParams,
    };
    for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
    return { authorization_url: url.toString(), state };
  }

  /** `/oauth/callback`: checks the state (single use, unexpired), exchanges the code with the verifier, names and stores the account. */
  async complete(query: CallbackQuery): Promise<CallbackOutcome> {
    const now = this.#clock.now().getTime();
    const unknown: CallbackOutcome = {
      status: 400,
      title: 'Unknown sign-in request',
      message: 'This sign-in request is unknown or was already used. Start connecting the account again from Portico.',
    };
    if (query.state === undefined) return unknown;
    // Taken (read and deleted) before anything else: a state works once, whatever happens next.
    const row = this.#repo.takePending(stateHash(query.state));
    if (!row) return unknown;
    const pending = await this.#takeVerifier(row);
    if (!pending) return unknown;
    if (now > Date.parse(row.expires_at)) {
      return {
        status: 400,
        title: 'Sign-in request expired',
        message:
          'This sign-in request expired (they last 10 minutes). Start connecting the account again from Portico.',
      };
    }
    if (query.error !== undefined) {
      if (query.error === 'access_denied') {
        return {
          status: 403,
          title: 'Access denied',
          message:
            'Access was denied at the provider, so no account was connected. Start again from Portico if this was a mistake.',
        };
      }
      return {
        status: 502,
        title: 'The provider reported an error',
        message: `The provider refused the sign-in (${query.error.slice(0, 64)}); no account was connected.`,
      };
    }
    if (!query.code)
      return {
        status: 400,
        title: 'No authorization code',
        message: 'The provider sent no authorization code; no account was connected.',
      };
    try {
      const account = await this.#exchange(pending, query.code);
      this.#logger.info('oauth account connected', { account_id: account.id, oauth_app_id: account.oauth_app_id });
      try {
        this.#onAccountConnected(account);
      } catch (error) {
        // The account is connected either way; a host that could not react must not turn it into an error page.
        this.#logger.warn('onAccountConnected hook failed', {
          error: error instanceof Error ? error.message : String(error),
        });
      }
      return {
        status: 200,
        title: 'Connected',
        message: `Connected ${account.oauth_user_name} (${account.oauth_app_id}). You can close this tab.`,
      };
    } catch (error) {
      const detail = isAppError(error) ? error.detail : 'internal error';
      this.#logger.warn('oauth connect failed', { oauth_app_id: pending.appId, detail });
      return {
        status: isAppError(error) && error.status < 500 ? 400 : 502,
        title: 'Could not connect the account',
        message: `${detail}. No account was connected; start again from Portico.`,
      };
    }
  }

  async #exchange(pending: PendingConnect, code: string): Promise<ConnectedAccount> {
    const app = this.#apps.get(pending.appId);
    const secret = await this.#apps.clientSecret(app.id);
    const tokens = await tokenRequest(
      app.token_url,
      {
        grant_type: 'authorization_code',
        code,
        redirect_uri: pending.redirectUri,
        client_id: app.client_id,
        code_verifier: pending.verifier,
        ...(secret !== undefined && { client_secret: secret }),
      },
      this.#clock.now(),
      this.#fetch,
    );
    const name = app.userinfo_url
      ? await fetchUserName(app.userinfo_url, tokens.access_token, this.#fetch)
      : (tokens.id_token && nameFromClaims(idTokenClaims(tokens.id_token))) || app.id;
    const scopes = JSON.stringify(tokens.scope ? tokens.scope.split(/\s+/).filter(Boolean) : pending.scopes);
    const existing = this.#repo.findAccount(pending.userId, app.id, name);
    const id = existing?.id ?? newId();
    const stored: StoredTokens = {
      access_token: tokens.access_token,
      expires_at: tokens.expires_at,
      ...(tokens.refresh_token !== undefined && { refresh_token: tokens.refresh_token }),
    };
    this.#tell(stored);
    // The tokens first: an account row never exists without them.
    await this.#serial(id, async () => (await this.#secrets()).set(tokensSecretName(id), JSON.stringify(stored)));
    const at = isoNow(this.#clock);
    try {
      if (existing) this.#repo.reconnectAccount(id, scopes, at);
      else
        this.#repo.insertAccount({
          id,
          user_id: pending.userId,
          workspace_id: pending.workspaceId,
          oauth_app_id: app.id,
          oauth_user_name: name,
          scopes,
          status: 'connected',
          created_at: at,
          updated_at: at,
        });
    } catch (error) {
      if (!existing) await (await this.#secrets()).delete(tokensSecretName(id));
      throw error;
    }
    const row = this.#repo.getAccount(id);
    if (!row) throw new NotFoundError(oauthMessages.accountNotFound);
    return toAccount(row);
  }

  /** The caller's own accounts, oldest first (interface §2.7). */
  list(userId: string): ConnectedAccount[] {
    return this.#repo.listAccountsOfUser(userId).map(toAccount);
  }

  /** One of the caller's accounts; another user's reads as not found. */
  get(userId: string, accountId: string): ConnectedAccount {
    const row = this.#repo.getAccount(accountId);
    if (!row || row.user_id !== userId) throw new NotFoundError(oauthMessages.accountNotFound);
    return toAccount(row);
  }

  /** The user an account belongs to (undefined: no such account), for callers that act for a user's credential. */
  ownerOf(accountId: string): string | undefined {
    return this.#repo.getAccount(accountId)?.user_id;
  }

  /** Forgets the account and its tokens (locally; the grant at the provider is the user's to revoke there). */
  async remove(userId: string, accountId: string): Promise<void> {
    this.get(userId, accountId);
    await this.#serial(accountId, async () => {
      await (await this.#secrets()).delete(tokensSecretName(accountId));
      this.#repo.deleteAccount(accountId);
    });
    this.#logger.info('oauth account removed', { account_id: accountId });
  }

  /**
   * A valid access token for the account, refreshed first when it expires within
   * REFRESH_BEFORE_EXPIRY_MS. Calls for one account run one after another, so concurrent callers share
   * the one refresh and a rotating refresh token is never sent twice. `invalid_grant` marks the
   * account `needs_reconnect` and forgets its tokens (409).
   */
  accessToken(accountId: string): Promise<string> {
    return this.#serial(accountId, async () => {
      const row = this.#repo.getAccount(accountId);
      if (!row) throw new NotFoundError(oauthMessages.accountNotFound);
      if (row.status === 'needs_reconnect') throw new NeedsReconnectError(accountId);
      const secrets = await this.#secrets();
      const raw = await secrets.get(tokensSecretName(accountId));
      const tokens = raw === undefined ? undefined : (JSON.parse(raw) as StoredTokens);
      if (!tokens) return this.#needsReconnect(row, 'no tokens stored');
      this.#tell(tokens);
      const now = this.#clock.now();
      if (tokens.expires_at === null || Date.parse(tokens.expires_at) - now.getTime() > REFRESH_BEFORE_EXPIRY_MS)
        return tokens.access_token;
      if (!tokens.refresh_token) {
        if (Date.parse(tokens.expires_at) > now.getTime()) return tokens.access_token;
        return this.#needsReconnect(row, 'access token expired and no refresh token was granted');
      }
      const app = this.#apps.get(row.oauth_app_id);
      const secret = await this.#apps.clientSecret(app.id);
      let fresh: StoredTokens;
      try {
        fresh = await tokenRequest(
          app.token_url,
          {
            grant_type: 'refresh_token',
            refresh_token: tokens.refresh_token,
            client_id: app.client_id,
            ...(secret !== undefined && { client_secret: secret }),
          },
          now,
          this.#fetch,
        );
      } catch (error) {
        if (error instanceof InvalidGrantError) return this.#needsReconnect(row, 'invalid_grant');
        throw error;
      }
      const stored: StoredTokens = {
        access_token: fresh.access_token,
        expires_at: fresh.expires_at,
        refresh_token: fresh.refresh_token ?? tokens.refresh_token,
      };
      this.#tell(stored);
      await secrets.set(tokensSecretName(accountId), JSON.stringify(stored));
      this.#logger.info('oauth access token refreshed', {
        account_id: accountId,
        rotated: fresh.refresh_token !== undefined,
      });
      return stored.access_token;
    });
  }

  async #needsReconnect(row: ConnectedAccountRow, reason: string): Promise<never> {
    this.#repo.setAccountStatus(row.id, 'needs_reconnect', isoNow(this.#clock));
    await (await this.#secrets()).delete(tokensSecretName(row.id));
    this.#logger.warn('oauth account needs reconnecting', {
      account_id: row.id,
      oauth_app_id: row.oauth_app_id,
      reason,
    });
    throw new NeedsReconnectError(row.id);
  }

  /** Runs `fn` after every earlier operation on the same account has settled. */
  #serial<T>(accountId: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.#queues.get(accountId) ?? Promise.resolve();
    const result = previous.then(fn);
    const tail = result.catch(() => undefined);
    this.#queues.set(accountId, tail);
    void tail.then(() => {
      if (this.#queues.get(accountId) === tail) this.#queues.delete(accountId);
    });
    return result;
  }

  /** The pending connect's verifier, removed from the secret store as it is read (undefined: it is gone). */
  async #takeVerifier(row: PendingConnectRow): Promise<PendingConnect | undefined> {
    const secrets = await this.#secrets();
    const name = verifierSecretName(row.state_hash);
    const verifier = await secrets.get(name);
    await secrets.delete(name);
    if (verifier === undefined) {
      this.#logger.warn('oauth connect: the verifier of a pending sign-in request is missing from the secret store', {
        oauth_app_id: row.oauth_app_id,
      });
      return undefined;
    }
    return {
      userId: row.user_id,
      workspaceId: row.workspace_id,
      appId: row.oauth_app_id,
      verifier,
      scopes: JSON.parse(row.scopes) as string[],
      redirectUri: row.redirect_uri,
    };
  }

  /** Drops expired connect requests and the oldest beyond MAX_PENDING - 1, with their verifiers. */
  async #prune(secrets: SecretStore, now: Date): Promise<void> {
    for (const hash of this.#repo.prunePending(now.toISOString(), MAX_PENDING - 1))
      await secrets.delete(verifierSecretName(hash));
  }

  /** Connect requests waiting for their callback (for tests and diagnostics). */
  pendingCount(): number {
    return this.#repo.countPending();
  }
}
