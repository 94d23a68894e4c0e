import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { readConfig } from './base/config.ts';
import { resolveDataDir } from './base/paths.ts';
import { startApp } from './app.ts';

/** The headless host: `node src-main/serve.ts [--host H] [--port P] [--data-dir D] [--allow-host NAME]…`. */
async function main(): Promise<void> {
  // Before anything starts: a bad variable stops here, with its name, rather than half-way through.
  const config = readConfig(process.env);
  const { values } = parseArgs({
    options: {
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '8787' },
      'data-dir': { type: 'string' },
      'allow-host': { type: 'string', multiple: true },
    },
    strict: true,
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be an integer from 0 to 65535 (got '${values.port}')`);
  const app = await startApp({
    host: values.host,
    port,
    config,
    dataDir: resolveDataDir(values['data-dir'], config),
    allowedHosts: [...(values['allow-host'] ?? []), ...config.allowedHosts],
    rendererDir: fileURLToPath(new URL('../out/renderer', import.meta.url)),
  });
  process.stdout.write(`listening on ${app.url}\n`);
  const shutdown = (): void => {
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`shutdown failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

main().catch((error: unknown) => {
  process.stderr.write(`${JSON.stringify({ detail: error instanceof Error ? error.message : String(error) })}\n`);
  process.exit(1);
});
