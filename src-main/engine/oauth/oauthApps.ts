import { isoNow, systemClock, type Clock } from '../../base/clock.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../base/errors.ts';
import {
  OAuthAppAddRequest,
  oauthMessages,
  type OAuthApp,
  type OAuthAppAddRequest as AddRequest,
} from '../../contract/oauth.ts';
import type { SecretStore } from '../../secrets/index.ts';
import type { OAuthAppRow, OAuthRepository } from '../../store/oauth.ts';
import { presetFor } from './presets.ts';

/** Where an app's client secret lives in the SecretStore; SQLite holds only `has_client_secret`. */
export const clientSecretName = (appId: string): string => `oauth-app/${appId}/client-secret`;

export const toOAuthApp = (row: OAuthAppRow): OAuthApp => ({
  id: row.id,
  authorize_url: row.authorize_url,
  token_url: row.token_url,
  userinfo_url: row.userinfo_url,
  client_id: row.client_id,
  scopes: JSON.parse(row.scopes) as string[],
  has_client_secret: row.has_client_secret === 1,
  created_at: row.created_at,
  updated_at: row.updated_at,
});

/** The OAuth apps the operator configured (the CLI and the console's `/admin/oauth-apps` go through AdminService to here). */
export class OAuthAppRegistry {
  readonly #repo: OAuthRepository;
  readonly #secrets: () => Promise<SecretStore>;
  readonly #clock: Clock;

  constructor(repo: OAuthRepository, secrets: () => Promise<SecretStore>, clock: Clock = systemClock) {
    this.#repo = repo;
    this.#secrets = secrets;
    this.#clock = clock;
  }

  /**
   * Adds or replaces an app. A preset id (`google`, `microsoft`) fills the URLs and scopes it leaves
   * out; any other id needs both URLs. The secret goes to the keychain first, so a refused secret
   * (no keychain: 503) leaves no app behind.
   */
  async add(request: AddRequest): Promise<OAuthApp> {
    const parsed = OAuthAppAddRequest.safeParse(request);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ValidationError(`${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'is invalid'}`);
    }
    const input = parsed.data;
    const preset = presetFor(input.id);
    const authorizeUrl = input.authorize_url ?? preset?.authorize_url;
    const tokenUrl = input.token_url ?? preset?.token_url;
    if (!authorizeUrl || !tokenUrl)
      throw new ValidationError(
        `authorize_url and token_url are required for '${input.id}' (presets: google, microsoft)`,
      );
    const existing = this.#repo.getApp(input.id);
    const secrets = await this.#secrets();
    const keepsSecret =
      input.client_secret === undefined && existing?.has_client_secret === 1 && existing.client_id === input.client_id;
    if (preset?.needsClientSecret && input.client_secret === undefined && !keepsSecret) {
      throw new ValidationError(
        `client_secret: '${input.id}' requires the client secret (pass it with --client-secret-stdin)`,
      );
    }
    if (input.client_secret !== undefined) await secrets.set(clientSecretName(input.id), input.client_secret);
    else if (!keepsSecret) await secrets.delete(clientSecretName(input.id));
    const now = isoNow(this.#clock);
    this.#repo.upsertApp({
      id: input.id,
      authorize_url: authorizeUrl,
      token_url: tokenUrl,
      userinfo_url: input.userinfo_url ?? preset?.userinfo_url ?? null,
      client_id: input.client_id,
      scopes: JSON.stringify(input.scopes ?? preset?.scopes ?? []),
      has_client_secret: input.client_secret !== undefined || keepsSecret ? 1 : 0,
      created_at: existing?.created_at ?? now,
      updated_at: now,
    });
    return this.get(input.id);
  }

  list(): OAuthApp[] {
    return this.#repo.listApps().map(toOAuthApp);
  }

  get(id: string): OAuthApp {
    const row = this.#repo.getApp(id);
    if (!row) throw new NotFoundError(oauthMessages.appNotFound(id));
    return toOAuthApp(row);
  }

  /** Removes an app and its client secret; 409 while accounts are connected through it. */
  async remove(id: string): Promise<{ removed: true }> {
    this.get(id);
    const count = this.#repo.countAccountsOfApp(id);
    if (count > 0) throw new ConflictError(oauthMessages.appInUse(id, count));
    await (await this.#secrets()).delete(clientSecretName(id));
    this.#repo.deleteApp(id);
    return { removed: true };
  }

  /** The client secret, when the app has one. */
  async clientSecret(id: string): Promise<string | undefined> {
    return (await this.#secrets()).get(clientSecretName(id));
  }
}
