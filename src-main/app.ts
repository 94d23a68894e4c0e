import { createLogger, type Logger } from './base/logger.ts';
import { dataPaths } from './base/paths.ts';
import { buildServer } from './api/server.ts';
import { seedFirstStart, type SeededKeys } from './engine/firstStart.ts';
import { JsonSchemaCompiler } from './engine/jsonSchema.ts';
import { PortalService } from './engine/portalService.ts';
import { SkillService } from './engine/skills/skillService.ts';
import { openStore } from './store/store.ts';
import type { AppOptions, RunningApp } from './app-types.ts';
import packageJson from '../package.json' with { type: 'json' };

export type { AppOptions, RunningApp } from './app-types.ts';

export const VERSION: string = packageJson.version;

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}

function firstStartNotice(keys: SeededKeys, url: string): string[] {
  return [
    'Portico first start: created organization \'default\' and user \'local\' in workspace \'default\'.',
    `  Organization API key (org '${keys.orgId}'):  ${keys.orgApiKey}`,
    `  Account API key (user '${keys.userId}', workspace '${keys.workspaceId}'):  ${keys.accountApiKey}`,
    '  These keys are shown only this once; keep them. Create more with `npm run cli -- key create --org default`.',
    `  Console: ${url}/`,
  ];
}

/** The composition root shared by both hosts: builds every service, then listens. */
export async function startApp(options: AppOptions & { logger?: Logger }): Promise<RunningApp> {
  const notice = options.notice ?? ((line: string) => process.stderr.write(`${line}\n`));
  const logger = options.logger ?? createLogger((process.env.PORTICO_LOG_LEVEL as 'info' | undefined) ?? 'warn');
  const host = options.host ?? '127.0.0.1';
  const paths = dataPaths(options.dataDir);
  if (!isLoopback(host)) notice(`WARNING: binding ${host} exposes the Portico API beyond this machine; every request still needs an API key.`);

  const store = openStore(paths.database);
  try {
    const schemas = new JsonSchemaCompiler();
    const portals = new PortalService(store, schemas);
    const skills = new SkillService(store, { skillsDir: paths.skills, tmpDir: paths.tmp }, logger);
    await skills.cleanUp();
    const seeded = seedFirstStart(store);
    const server = await buildServer({ store, portals, skills, logger, version: VERSION, boundHost: host, rendererDir: options.rendererDir });
    await server.listen({ host, port: options.port ?? 8787 });
    const address = server.server.address();
    const port = typeof address === 'object' && address ? address.port : (options.port ?? 8787);
    const urlHost = host.includes(':') ? `[${host}]` : host;
    const url = `http://${urlHost}:${port}`;
    if (seeded) for (const line of firstStartNotice(seeded, url)) notice(line);

    let closing: Promise<void> | undefined;
    return {
      url,
      host,
      port,
      close: () => {
        closing ??= (async () => {
          await server.close();
          store.close();
        })();
        return closing;
      },
    };
  } catch (error) {
    store.close();
    throw error;
  }
}
