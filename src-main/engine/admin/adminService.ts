import type { ProviderEnvironment } from '../../base/config.ts';
import { ValidationError } from '../../base/errors.ts';
import type { ApiKeyInfo } from '../../contract/admin.ts';
import { HttpUrl } from '../../contract/common.ts';
import type { Org, ProviderList, ProviderStatus, ProviderTestResult } from '../../contract/console.ts';
import {
  MODEL_PROVIDERS,
  PROVIDERS,
  providerSecretName,
  resolveBaseUrl,
  type ModelProvider,
  type ResolvedBaseUrl,
} from '../../llm/index.ts';
import type { SecretStore } from '../../secrets/index.ts';
import type { IssuedKey } from '../../store/apiKeys.ts';
import type { OrgRow } from '../../store/principals.ts';
import type { Store } from '../../store/store.ts';
import type { OAuthApp, OAuthAppAddRequest } from '../../contract/oauth.ts';
import { OAuthAppRegistry } from '../oauth/oauthApps.ts';
import { providerChecker, type ProviderCheckResult } from '../providerCheck.ts';
import {
  ApiKeyAlreadyRevokedError,
  ApiKeyNotFoundError,
  NotAMemberError,
  OrgExistsError,
  OrgNotFoundError,
  UserNotFoundError,
  WorkspaceInOtherOrgError,
  WorkspaceNotFoundError,
} from './adminErrors.ts';

/** Tests a provider key with one real request (an OpenAI-compatible server may have no key). */
export type ProviderTester = (provider: ModelProvider, apiKey: string | undefined) => Promise<ProviderCheckResult>;

export interface AdminServiceDeps {
  store: Store;
  /** Opened on first use: probing the keychain can take a moment and most operations never need it. */
  secrets: () => Promise<SecretStore>;
  /** Provider keys and base URLs from the environment (base/config.ts), for the status jobs will see. */
  providerEnvironment: ProviderEnvironment;
  /** "Test connection"; default: one real request at the base URL jobs use (engine/providerCheck.ts). */
  testProvider?: ProviderTester;
}

/** A user made (or found) in a workspace, with the account key made for them. */
export interface CreatedUser {
  user_id: string;
  workspace_id: string;
  org_id: string;
  api_key: string;
}

// `SELECT *` rows: name the public columns so a new one stays internal until the contract says otherwise.
const toOrg = (row: OrgRow): Org => ({ id: row.id, name: row.name, created_at: row.created_at });

/**
 * The operator's operations on organizations, keys, users, workspaces and model providers, held once:
 * the `portico` CLI and the console's `/admin` routes are thin faces that parse input and print results.
 */
export class AdminService {
  readonly #store: Store;
  readonly #secrets: () => Promise<SecretStore>;
  readonly #environment: ProviderEnvironment;
  readonly #testProvider: ProviderTester;
  /** OAuth apps for connected accounts (local-service.md §5.4); client secrets in the SecretStore. */
  readonly oauthApps: OAuthAppRegistry;

  constructor(deps: AdminServiceDeps) {
    this.oauthApps = new OAuthAppRegistry(deps.store.oauth, deps.secrets);
    this.#store = deps.store;
    this.#secrets = deps.secrets;
    this.#environment = deps.providerEnvironment;
    this.#testProvider = deps.testProvider ?? providerChecker({ baseUrl: (provider) => this.baseUrl(provider)?.url });
  }

  /** Every organization on this machine, oldest first. */
  listOrgs(): Org[] {
    return this.#store.principals.listOrgs().map(toOrg);
  }

  /** Creates an organization (named after its id unless a name is given); 409 when the id is taken. */
  createOrg(orgId: string, name?: string): Org {
    if (this.#store.principals.getOrg(orgId)) throw new OrgExistsError(orgId);
    return toOrg(this.#store.principals.createOrg(orgId, name ?? orgId));
  }

  /** Creates an organization and its first org API key together (local-service.md §1 `org create`). */
  createOrgWithFirstKey(orgId: string, name?: string): { org: Org; key: IssuedKey } {
    return this.#store.db.transaction(() => {
      const org = this.createOrg(orgId, name);
      return { org, key: this.#store.apiKeys.issueOrgKey(orgId) };
    })();
  }

  /** 404 unless the organization exists. */
  requireOrg(orgId: string): void {
    if (!this.#store.principals.getOrg(orgId)) throw new OrgNotFoundError(orgId);
  }

  /** An organization's API keys (org keys and its workspaces' account keys, with user and workspace), revoked ones included, never the secrets. */
  listOrgKeys(orgId: string): ApiKeyInfo[] {
    this.requireOrg(orgId);
    return this.#store.apiKeys.listForOrg(orgId);
  }

  /** Issues an org API key; the secret is in the result this once. */
  issueOrgKey(orgId: string): IssuedKey {
    this.requireOrg(orgId);
    return this.#store.apiKeys.issueOrgKey(orgId);
  }

  /** Revokes a key by id; `withinOrg` limits it to that org's keys (another org's key reads as not found). */
  revokeKey(keyId: string, withinOrg?: string): { revoked: true } {
    const key = this.#store.apiKeys.get(keyId);
    if (!key || (withinOrg !== undefined && key.org_id !== withinOrg)) throw new ApiKeyNotFoundError();
    if (key.revoked_at !== null || !this.#store.apiKeys.revoke(keyId)) throw new ApiKeyAlreadyRevokedError(keyId);
    return { revoked: true };
  }

  /**
   * A user in a workspace (user and workspace made when absent), their membership, and a new account
   * key for that workspace. A new workspace joins `orgId` (404 when it does not exist); without one, an
   * existing workspace keeps its org and a new one joins `default` (else the oldest org, as migration
   * 0007 placed the workspaces it found). 409 when `orgId` names another org than the workspace's:
   * a workspace never moves between orgs.
   */
  createUser(userId: string, workspaceId: string, orgId?: string): CreatedUser {
    const { principals, apiKeys } = this.#store;
    return this.#store.db.transaction(() => {
      if (orgId !== undefined) this.requireOrg(orgId);
      const exists = principals.workspaceExists(workspaceId);
      const existingOrg = exists ? (principals.workspaceOrg(workspaceId) ?? 'default') : undefined;
      if (orgId !== undefined && existingOrg !== undefined && existingOrg !== orgId)
        throw new WorkspaceInOtherOrgError(workspaceId, existingOrg);
      const org =
        orgId ??
        existingOrg ??
        (principals.getOrg('default') ? 'default' : (principals.listOrgs()[0]?.id ?? 'default'));
      principals.ensureUser(userId);
      // With no organization at all yet, the workspace waits for `default` (first start makes it).
      principals.ensureWorkspace(workspaceId, principals.getOrg(org) ? org : null);
      principals.addMember(workspaceId, userId);
      return {
        user_id: userId,
        workspace_id: workspaceId,
        org_id: org,
        api_key: apiKeys.issueAccountKey(userId, workspaceId).apiKey,
      };
    })();
  }

  /** Adds an existing user to an existing workspace (already a member: nothing changes). */
  addMember(workspaceId: string, userId: string): { ok: true } {
    if (!this.#store.principals.workspaceExists(workspaceId)) throw new WorkspaceNotFoundError(workspaceId);
    if (!this.#store.principals.userExists(userId)) throw new UserNotFoundError(userId);
    this.#store.principals.addMember(workspaceId, userId);
    return { ok: true };
  }

  /** Removes a membership; the user's keys for that workspace stop working at their next request. */
  removeMember(workspaceId: string, userId: string): { ok: true } {
    if (!this.#store.principals.removeMember(workspaceId, userId)) throw new NotAMemberError(workspaceId, userId);
    return { ok: true };
  }

  /** The base URL `provider` is called at and where it comes from, as jobs resolve it. */
  baseUrl(provider: ModelProvider): ResolvedBaseUrl | undefined {
    return resolveBaseUrl(provider, {
      env: this.#environment[provider].baseUrl,
      stored: this.#store.providerSettings.baseUrl(provider),
      sdkEnv: this.#environment[provider].sdkBaseUrl,
    });
  }

  /** Whether a provider has a stored key, and the base URL jobs call. */
  async providerStatus(provider: ModelProvider): Promise<ProviderStatus> {
    const configured = (await (await this.#secrets()).get(providerSecretName(provider))) !== undefined;
    const effective = this.baseUrl(provider);
    return { provider, configured, base_url: effective?.url ?? null, base_url_source: effective?.source ?? null };
  }

  /** Every provider's status, and where secrets live. */
  async listProviders(): Promise<ProviderList> {
    const secrets = await this.#secrets();
    return {
      secret_store: secrets.kind,
      providers: await Promise.all(MODEL_PROVIDERS.map((provider) => this.providerStatus(provider))),
    };
  }

  /** Stores a provider's API key in the SecretStore (503 when there is no keychain or vault). */
  async setProviderKey(provider: ModelProvider, apiKey: string): Promise<void> {
    const key = apiKey.trim();
    if (key === '') throw new ValidationError('api_key: must not be empty');
    await (await this.#secrets()).set(providerSecretName(provider), key);
  }

  /** Removes a provider's API key; its stored base URL stays. */
  async deleteProviderKey(provider: ModelProvider): Promise<void> {
    await (await this.#secrets()).delete(providerSecretName(provider));
  }

  /** Stores a provider's base URL (an absolute http(s) URL); null goes back to the provider's own. */
  setProviderBaseUrl(
    provider: ModelProvider,
    baseUrl: string | null,
  ): { provider: ModelProvider; base_url: string | null } {
    const url = baseUrl === null ? null : baseUrl.trim();
    if (url !== null) {
      const checked = HttpUrl.safeParse(url);
      if (!checked.success) throw new ValidationError(`base_url: ${checked.error.issues[0]?.message ?? 'is invalid'}`);
    }
    this.#store.providerSettings.setBaseUrl(provider, url);
    return { provider, base_url: url };
  }

  /** Stores a key, a base URL or both; the key first, so a refused key (no keychain: 503) leaves the base URL as it was too. */
  async updateProvider(
    provider: ModelProvider,
    change: { api_key?: string; base_url?: string | null },
  ): Promise<ProviderStatus> {
    if (change.api_key !== undefined) await this.setProviderKey(provider, change.api_key);
    if (change.base_url !== undefined) this.setProviderBaseUrl(provider, change.base_url);
    return this.providerStatus(provider);
  }

  /** Adds or replaces an OAuth app (`oauth-app add`); presets `google`, `microsoft` fill the URLs. */
  addOAuthApp(request: OAuthAppAddRequest): Promise<OAuthApp> {
    return this.oauthApps.add(request);
  }

  /** Every OAuth app, never a client secret. */
  listOAuthApps(): OAuthApp[] {
    return this.oauthApps.list();
  }

  /** Removes an OAuth app and its client secret (409 while accounts use it). */
  removeOAuthApp(id: string): Promise<{ removed: true }> {
    return this.oauthApps.remove(id);
  }

  /** One real request with the stored key at the base URL jobs use, told in words. */
  async testProvider(provider: ModelProvider): Promise<ProviderTestResult> {
    const key = await (await this.#secrets()).get(providerSecretName(provider));
    if (key === undefined && PROVIDERS[provider].needsKey)
      return { provider, status: 'failed', detail: 'No key is stored for this provider' };
    const outcome = await this.#testProvider(provider, key);
    return { provider, status: outcome.ok ? 'ok' : 'failed', detail: outcome.detail };
  }
}
