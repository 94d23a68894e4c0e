import { ValidationError } from '../base/errors.ts';
import { PrincipalId } from '../contract/admin.ts';
import { MODEL_PROVIDERS, ModelProvider } from '../contract/models.ts';
import type { AdminService } from '../engine/admin/adminService.ts';
import type { HostAdmin } from '../engine/hosts/hostAdmin.ts';
import type { SampleService } from '../engine/samples/sampleService.ts';
import type { WebhookKeyService } from '../webhooks/webhookKeys.ts';

/** What a command prints on success: one JSON object. */
export type CliOutput = Record<string, unknown>;

export interface CliContext {
  /** The operations themselves, shared with the console's `/admin` routes. */
  admin: AdminService;
  /** Webhook signing keys, shared with the `/webhooks/{org_id}/key` routes. */
  webhookKeys: WebhookKeyService;
  /** The sample portals (`samples add`). */
  samples: SampleService;
  /** Remote browser hosts (`host add/list/remove`): settings.json and the keychain/vault. */
  hosts: HostAdmin;
  /** Reads all of standard input (for secrets passed by pipe). */
  readStdin(): Promise<string>;
}

export interface ParsedArgs {
  positionals: string[];
  options: Record<string, string | undefined>;
}

/** A command written wrongly (missing or malformed argument): exit 2 with the usage. */
export class UsageError extends ValidationError {}

function principalId(value: string | undefined, what: string): string {
  if (!value) throw new UsageError(`${what} is required`);
  const parsed = PrincipalId.safeParse(value);
  if (!parsed.success) throw new UsageError(`${what} ${parsed.error.issues[0]?.message ?? 'is invalid'}`);
  return value;
}

function provider(value: string | undefined): ModelProvider {
  const parsed = ModelProvider.safeParse(value);
  if (!parsed.success) throw new UsageError(`<provider> must be one of ${MODEL_PROVIDERS.join(', ')}`);
  return parsed.data;
}

type Command = (ctx: CliContext, args: ParsedArgs) => CliOutput | Promise<CliOutput>;

/** The admin commands of local-service.md §1, keyed by "<noun> <verb>": each parses its arguments and calls one operation. */
export const commands: Record<string, Command> = {
  'org create': ({ admin }, { positionals }) => {
    const { org, key } = admin.createOrgWithFirstKey(principalId(positionals[0], '<org_id>'));
    return { org_id: org.id, api_key: key.apiKey };
  },
  'key create': ({ admin }, { options }) => {
    const issued = admin.issueOrgKey(principalId(options.org, '--org'));
    return {
      id: issued.info.id,
      org_id: issued.info.org_id,
      api_key: issued.apiKey,
      prefix: issued.info.prefix,
      created_at: issued.info.created_at,
    };
  },
  'key revoke': ({ admin }, { positionals }) => {
    const keyId = positionals[0];
    if (!keyId) throw new UsageError('<key_id> is required');
    return admin.revokeKey(keyId);
  },
  'key list': ({ admin }, { options }) => ({ keys: admin.listOrgKeys(principalId(options.org, '--org')) }),
  'user create': ({ admin }, { positionals, options }) => ({
    ...admin.createUser(
      principalId(positionals[0], '<user_id>'),
      principalId(options.workspace, '--workspace'),
      options.org === undefined ? undefined : principalId(options.org, '--org'),
    ),
  }),
  'workspace add-member': ({ admin }, { positionals }) =>
    admin.addMember(principalId(positionals[0], '<workspace_id>'), principalId(positionals[1], '<user_id>')),
  'workspace remove-member': ({ admin }, { positionals }) =>
    admin.removeMember(principalId(positionals[0], '<workspace_id>'), principalId(positionals[1], '<user_id>')),
  'provider set-key': async ({ admin, readStdin }, { positionals }) => {
    const name = provider(positionals[0]);
    const key = (await readStdin()).trim();
    if (!key) throw new UsageError('the API key is read from standard input, which was empty');
    await admin.setProviderKey(name, key);
    return { ok: true };
  },
  'provider set-base-url': ({ admin }, { positionals }) => {
    const name = provider(positionals[0]);
    const url = positionals[1];
    if (!url) throw new UsageError("<url> is required (or `default` to go back to the provider's own endpoint)");
    return admin.setProviderBaseUrl(name, url === 'default' ? null : url);
  },
  'oauth-app add': async ({ admin, readStdin }, { positionals, options }) => {
    const id = positionals[0];
    if (!id) throw new UsageError('<id> is required');
    if (!options['client-id']) throw new UsageError('--client-id is required');
    let clientSecret: string | undefined;
    if (options['client-secret-stdin']) {
      clientSecret = (await readStdin()).replace(/\r?\n$/, '');
      if (!clientSecret) throw new UsageError('--client-secret-stdin: standard input was empty');
    }
    const app = await admin.addOAuthApp({
      id,
      client_id: options['client-id'],
      ...(options['authorize-url'] !== undefined && { authorize_url: options['authorize-url'] }),
      ...(options['token-url'] !== undefined && { token_url: options['token-url'] }),
      ...(options['userinfo-url'] !== undefined && { userinfo_url: options['userinfo-url'] }),
      ...(options.scopes !== undefined && { scopes: options.scopes }),
      ...(clientSecret !== undefined && { client_secret: clientSecret }),
    });
    return { ...app };
  },
  'oauth-app list': ({ admin }) => ({ oauth_apps: admin.listOAuthApps() }),
  'oauth-app remove': async ({ admin }, { positionals }) => {
    const id = positionals[0];
    if (!id) throw new UsageError('<id> is required');
    return admin.removeOAuthApp(id);
  },
  'webhook-key generate': ({ webhookKeys }, { options }) => webhookKeys.generate(principalId(options.org, '--org')),
  'webhook-key revoke': ({ webhookKeys }, { options }) => webhookKeys.revoke(principalId(options.org, '--org')),
  'host add': async ({ hosts, readStdin }, { positionals, options }) => {
    const name = positionals[0];
    if (!name) throw new UsageError('<name> is required');
    if (!options.kind) throw new UsageError('--kind is required (playwright or cdp)');
    if (!options.url) throw new UsageError('--url is required');
    const maxBrowsers = options['max-browsers'];
    if (maxBrowsers === undefined || !/^\d+$/.test(maxBrowsers))
      throw new UsageError('--max-browsers is required: a whole number');
    let token: string | undefined;
    if (options['token-stdin']) {
      token = (await readStdin()).replace(/\r?\n$/, '');
      if (!token) throw new UsageError('--token-stdin: standard input was empty');
    }
    const labels = options.labels
      ?.split(',')
      .map((label) => label.trim())
      .filter(Boolean);
    const added = await hosts.add(
      {
        name,
        kind: options.kind,
        url: options.url,
        max_browsers: Number(maxBrowsers),
        ...(labels && labels.length > 0 && { labels }),
      },
      token,
    );
    return { ...added };
  },
  'host list': async ({ hosts }) => ({ ...(await hosts.list()) }),
  'host remove': async ({ hosts }, { positionals }) => {
    const name = positionals[0];
    if (!name) throw new UsageError('<name> is required');
    return { ...(await hosts.remove(name)) };
  },
  'samples add': ({ samples }, { options }) => ({
    samples: samples.add(
      options.org === undefined ? 'default' : principalId(options.org, '--org'),
      serviceOrigin(options.url),
    ),
  }),
};

/** The origin sample portals point at: --url, else the default listening address (the service re-points them at start). */
function serviceOrigin(url: string | undefined): string {
  if (url === undefined) return 'http://127.0.0.1:8787';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError('--url must be the service URL, like http://127.0.0.1:8787');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new UsageError('--url must be an http(s) URL');
  return parsed.origin;
}

export const USAGE = `usage: portico [--data-dir DIR] <command>
  org create <org_id>
  key create --org <org_id>
  key revoke <key_id>
  key list --org <org_id>
  user create <user_id> --workspace <workspace_id> [--org <org_id>]   (a new workspace joins --org, default 'default')
  workspace add-member <workspace_id> <user_id>
  workspace remove-member <workspace_id> <user_id>
  webhook-key generate --org <org_id>   (prints the secret once; generating again rotates)
  webhook-key revoke --org <org_id>
  provider set-key <${MODEL_PROVIDERS.join('|')}>   (the key is read from standard input)
  provider set-base-url <${MODEL_PROVIDERS.join('|')}> <url|default>
  oauth-app add <id> [--authorize-url U --token-url U] --client-id C [--client-secret-stdin] [--scopes "a b"] [--userinfo-url U]
                (presets google, microsoft: only --client-id, and the secret where the provider needs one)
  oauth-app list
  oauth-app remove <id>
  host add <name> --kind <playwright|cdp> --url <ws://…|http://…> --max-browsers N [--labels a,b] [--token-stdin]
                (connects once to check it; a Playwright server must run this Portico's Playwright version)
  host list
  host remove <name>   (host changes apply at the next start of the service)
  samples add [--org <org_id>] [--url <service URL>]   (creates again the sample portals that are missing; default org 'default')
  mcp   (an MCP server on stdio for AI assistants; env PORTICO_URL, PORTICO_API_KEY; see README)`;
