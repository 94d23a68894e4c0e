import { ConflictError, NotFoundError, ValidationError } from '../base/errors.ts';
import { PrincipalId } from '../contract/admin.ts';
import type { SecretStore } from '../secrets/index.ts';
import type { Store } from '../store/store.ts';
import { WebhookKeyService } from '../webhooks/webhookKeys.ts';

/** What a command prints on success: one JSON object. */
export type CliOutput = Record<string, unknown>;

export interface CliContext {
  store: Store;
  /** Reads all of standard input (for secrets passed by pipe). */
  readStdin(): Promise<string>;
  /** The secret store, opened only by commands that keep secrets. */
  secrets(): Promise<SecretStore>;
}

export interface ParsedArgs {
  positionals: string[];
  options: Record<string, string | undefined>;
}

export class UsageError extends ValidationError {}

function principalId(value: string | undefined, what: string): string {
  if (!value) throw new UsageError(`${what} is required`);
  const parsed = PrincipalId.safeParse(value);
  if (!parsed.success) throw new UsageError(`${what} ${parsed.error.issues[0]?.message ?? 'is invalid'}`);
  return value;
}

function requireOrg(store: Store, orgId: string): void {
  if (!store.principals.getOrg(orgId)) throw new NotFoundError(`Organization '${orgId}' not found`);
}

type Command = (ctx: CliContext, args: ParsedArgs) => CliOutput | Promise<CliOutput>;

/** The admin commands of local-service.md §1, keyed by "<noun> <verb>". */
export const commands: Record<string, Command> = {
  'org create': ({ store }, { positionals }) => {
    const orgId = principalId(positionals[0], '<org_id>');
    return store.db.transaction(() => {
      if (store.principals.getOrg(orgId)) throw new ConflictError(`Organization '${orgId}' already exists`);
      store.principals.createOrg(orgId);
      return { org_id: orgId, api_key: store.apiKeys.issueOrgKey(orgId).apiKey };
    })();
  },
  'key create': ({ store }, { options }) => {
    const orgId = principalId(options.org, '--org');
    requireOrg(store, orgId);
    const issued = store.apiKeys.issueOrgKey(orgId);
    return { id: issued.info.id, org_id: orgId, api_key: issued.apiKey, prefix: issued.info.prefix, created_at: issued.info.created_at };
  },
  'key revoke': ({ store }, { positionals }) => {
    const keyId = positionals[0];
    if (!keyId) throw new UsageError('<key_id> is required');
    if (!store.apiKeys.revoke(keyId)) {
      throw store.apiKeys.get(keyId) ? new ConflictError(`Key '${keyId}' is already revoked`) : new NotFoundError(`Key '${keyId}' not found`);
    }
    return { revoked: true };
  },
  'key list': ({ store }, { options }) => {
    const orgId = principalId(options.org, '--org');
    requireOrg(store, orgId);
    return { keys: store.apiKeys.listForOrg(orgId) };
  },
  'user create': ({ store }, { positionals, options }) => {
    const userId = principalId(positionals[0], '<user_id>');
    const workspaceId = principalId(options.workspace, '--workspace');
    return store.db.transaction(() => {
      store.principals.ensureUser(userId);
      store.principals.ensureWorkspace(workspaceId);
      store.principals.addMember(workspaceId, userId);
      return { user_id: userId, workspace_id: workspaceId, api_key: store.apiKeys.issueAccountKey(userId, workspaceId).apiKey };
    })();
  },
  'workspace add-member': ({ store }, { positionals }) => {
    const workspaceId = principalId(positionals[0], '<workspace_id>');
    const userId = principalId(positionals[1], '<user_id>');
    if (!store.principals.workspaceExists(workspaceId)) throw new NotFoundError(`Workspace '${workspaceId}' not found`);
    if (!store.principals.userExists(userId)) throw new NotFoundError(`User '${userId}' not found`);
    store.principals.addMember(workspaceId, userId);
    return { ok: true };
  },
  'workspace remove-member': ({ store }, { positionals }) => {
    const workspaceId = principalId(positionals[0], '<workspace_id>');
    const userId = principalId(positionals[1], '<user_id>');
    if (!store.principals.removeMember(workspaceId, userId)) {
      throw new NotFoundError(`User '${userId}' is not a member of workspace '${workspaceId}'`);
    }
    return { ok: true };
  },
  'provider set-key': async ({ secrets, readStdin }, { positionals }) => {
    const provider = positionals[0];
    if (!provider || !MODEL_PROVIDERS.includes(provider)) throw new UsageError(`<provider> must be one of ${MODEL_PROVIDERS.join(', ')}`);
    const key = (await readStdin()).trim();
    if (!key) throw new UsageError('the API key is read from standard input, which was empty');
    await (await secrets()).set(`provider/${provider}`, key);
    return { ok: true };
  },
  'provider set-base-url': ({ store }, { positionals }) => {
    const provider = positionals[0];
    if (!provider || !MODEL_PROVIDERS.includes(provider)) throw new UsageError(`<provider> must be one of ${MODEL_PROVIDERS.join(', ')}`);
    const url = positionals[1];
    if (!url) throw new UsageError('<url> is required (or `default` to go back to the provider\'s own endpoint)');
    if (url === 'default') {
      store.providerSettings.setBaseUrl(provider, null);
      return { provider, base_url: null };
    }
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) throw new UsageError('<url> must be an http(s) URL');
    store.providerSettings.setBaseUrl(provider, url);
    return { provider, base_url: url };
  },
  'webhook-key generate': ({ store, secrets }, { options }) => {
    const orgId = principalId(options.org, '--org');
    requireOrg(store, orgId);
    return new WebhookKeyService(store, secrets).generate(orgId);
  },
  'webhook-key revoke': ({ store, secrets }, { options }) => {
    const orgId = principalId(options.org, '--org');
    requireOrg(store, orgId);
    return new WebhookKeyService(store, secrets).revoke(orgId);
  },
};

/** Model providers whose API keys the CLI stores (local-service.md §3). */
export const MODEL_PROVIDERS = ['anthropic', 'openai', 'moonshot', 'openai-compatible'];

export const USAGE = `usage: portico [--data-dir DIR] <command>
  org create <org_id>
  key create --org <org_id>
  key revoke <key_id>
  key list --org <org_id>
  user create <user_id> --workspace <workspace_id>
  workspace add-member <workspace_id> <user_id>
  workspace remove-member <workspace_id> <user_id>
  webhook-key generate --org <org_id>   (prints the secret once; generating again rotates)
  webhook-key revoke --org <org_id>
  provider set-key <${MODEL_PROVIDERS.join('|')}>   (the key is read from standard input)
  provider set-base-url <${MODEL_PROVIDERS.join('|')}> <url|default>`;
