import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { readConfig, type PorticoConfig } from '../base/config.ts';
import { isAppError } from '../base/errors.ts';
import { dataPaths, resolveDataDir } from '../base/paths.ts';
import { AdminService } from '../engine/admin/adminService.ts';
import { HostAdmin } from '../engine/hosts/hostAdmin.ts';
import { OperatorSettings } from '../engine/operatorSettings.ts';
import { openAppSecrets, type SecretStore } from '../secrets/index.ts';
import { openStore } from '../store/store.ts';
import { jsonSchemas } from '../base/jsonSchema.ts';
import { PortalService } from '../engine/portalService.ts';
import { SampleService } from '../engine/samples/sampleService.ts';
import { WebhookKeyService } from '../webhooks/webhookKeys.ts';
import { commands, USAGE, UsageError } from './commands.ts';
import { runMcpCommand } from './mcpCommand.ts';

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  readStdin(): Promise<string>;
  /** The environment, read once here through base/config.ts. */
  env: Readonly<Record<string, string | undefined>>;
}

const processIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  readStdin: async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
  env: process.env,
};

/** Runs one admin command; prints one JSON object (stdout on success, stderr on failure) and returns the exit code. */
export async function runCli(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  const fail = (code: number, detail: string): number => {
    io.stderr(`${JSON.stringify({ detail })}\n`);
    return code;
  };
  // `mcp` speaks MCP on stdio until the assistant hangs up, over HTTP to the service: no data folder, no JSON line.
  if (argv[0] === 'mcp' && argv.length === 1) return runMcpCommand(io.env, fail);
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        'data-dir': { type: 'string' },
        org: { type: 'string' },
        workspace: { type: 'string' },
        help: { type: 'boolean' },
        'authorize-url': { type: 'string' },
        'token-url': { type: 'string' },
        'userinfo-url': { type: 'string' },
        'client-id': { type: 'string' },
        'client-secret-stdin': { type: 'boolean' },
        scopes: { type: 'string' },
        url: { type: 'string' },
        kind: { type: 'string' },
        'max-browsers': { type: 'string' },
        labels: { type: 'string' },
        'token-stdin': { type: 'boolean' },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    return fail(2, `${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
  }
  const [noun, verb, ...rest] = parsed.positionals;
  const command = noun && verb ? commands[`${noun} ${verb}`] : undefined;
  if (parsed.values.help || !command) {
    if (!parsed.values.help) return fail(2, `unknown command '${[noun, verb].filter(Boolean).join(' ')}'\n${USAGE}`);
    io.stdout(`${JSON.stringify({ usage: USAGE })}\n`);
    return 0;
  }
  let config: PorticoConfig;
  try {
    config = readConfig(io.env);
  } catch (error) {
    return fail(1, error instanceof Error ? error.message : String(error));
  }
  const paths = dataPaths(resolveDataDir(parsed.values['data-dir'], config));
  const store = openStore(paths.database);
  let secrets: Promise<SecretStore> | undefined;
  const openSecrets = (): Promise<SecretStore> =>
    (secrets ??= openAppSecrets(paths.root, store.meta.installId(), config));
  try {
    const admin = new AdminService({ store, secrets: openSecrets, providerEnvironment: config.providers });
    const output = await command(
      {
        admin,
        webhookKeys: new WebhookKeyService(store, openSecrets),
        readStdin: io.readStdin,
        // settings.json is read when a host command needs it: a broken file must not stop `key create`.
        get hosts() {
          return new HostAdmin({ settings: OperatorSettings.load(paths.root), secrets: openSecrets });
        },
        // No session is live in the CLI: a portal it creates names none.
        samples: new SampleService({
          store,
          portals: new PortalService(store, jsonSchemas, { isActiveInOrg: () => false }),
        }),
      },
      {
        positionals: rest,
        options: {
          org: parsed.values.org,
          workspace: parsed.values.workspace,
          'authorize-url': parsed.values['authorize-url'],
          'token-url': parsed.values['token-url'],
          'userinfo-url': parsed.values['userinfo-url'],
          'client-id': parsed.values['client-id'],
          'client-secret-stdin': parsed.values['client-secret-stdin'] ? 'true' : undefined,
          scopes: parsed.values.scopes,
          url: parsed.values.url,
          kind: parsed.values.kind,
          'max-browsers': parsed.values['max-browsers'],
          labels: parsed.values.labels,
          'token-stdin': parsed.values['token-stdin'] ? 'true' : undefined,
        },
      },
    );
    io.stdout(`${JSON.stringify(output)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) return fail(2, `${error.detail}\n${USAGE}`);
    if (isAppError(error)) return fail(1, error.detail);
    return fail(1, error instanceof Error ? error.message : String(error));
  } finally {
    store.close();
  }
}

const invokedDirectly =
  process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  runCli(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
