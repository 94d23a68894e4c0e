import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { enableStartCaches } from './base/startCaches.mjs';

// V8's code cache and the stripped TypeScript of every module loaded from here on, kept in the OS temp
// folder: a warm start compiles almost nothing (docs/performance.md). Before anything else of the engine
// is imported, which is why config, paths and the app are imported inside main() rather than at the top.
enableStartCaches();

/** What a terminal, a supervisor (systemd, Docker, a process group kill) or a closed terminal sends to stop us. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * The longest a shutdown may take (docs/api.md, "Stopping"): jobs end within their own bound (jobRun.ts
 * STOP_STEP_MS), and whatever still hangs past this is left to the exit (Playwright kills its browsers;
 * the next start fails what was left and removes unfinished files). Under systemd's 90 s and our 30 s promise.
 */
const SHUTDOWN_BOUND_MS = 25_000;

function say(line: string): void {
  // A hung-up terminal makes stderr throw (EIO/EPIPE); stopping must go on regardless.
  try {
    process.stderr.write(`${line}\n`);
  } catch {
    // Nowhere left to say it.
  }
}

/**
 * Stops on the first of SIGINT, SIGTERM or SIGHUP, however many arrive (a group kill reaches this
 * process and the bootstrap that forwards it): running jobs fail `interrupted by shutdown`, browsers
 * close, temp folders go. Later signals are noted, never obeyed half-way (docs/decisions.md).
 */
function stopOnSignals(): { onStop(stop: () => Promise<void>): void } {
  let stop: (() => Promise<void>) | undefined;
  let requested: NodeJS.Signals | undefined;
  const run = (): void => {
    if (stop === undefined) return;
    setTimeout(() => {
      say(
        `portico: shutdown did not finish within ${SHUTDOWN_BOUND_MS / 1000} s; exiting (the next start fails what was left running)`,
      );
      process.exit(1);
    }, SHUTDOWN_BOUND_MS).unref();
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        say(`shutdown failed: ${String(error)}`);
        process.exit(1);
      },
    );
  };
  for (const signal of STOP_SIGNALS) {
    process.on(signal, () => {
      if (requested !== undefined) {
        say(`portico: ${signal} received; already stopping (after ${requested})`);
        return;
      }
      requested = signal;
      say(`portico: ${signal} received; stopping`);
      run();
    });
  }
  return {
    // A signal that came during start-up stops the service as soon as it is up.
    onStop(fn) {
      stop = fn;
      if (requested !== undefined) run();
    },
  };
}

/** The headless host: `node src-main/serve.ts [--host H] [--port P] [--data-dir D] [--allow-host NAME]…`. */
async function main(): Promise<void> {
  // Before anything else: a signal during start-up must not kill the process half-way.
  const signals = stopOnSignals();
  // Every folder and file the service creates is its user's only (docs/api.md, "Data folder").
  process.umask(0o077);
  const [{ readConfig }, { resolveDataDir }] = await Promise.all([
    import('./base/config.ts'),
    import('./base/paths.ts'),
  ]);
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
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`--port must be an integer from 0 to 65535 (got '${values.port}')`);
  const { startApp } = await import('./app.ts');
  const app = await startApp({
    host: values.host,
    port,
    config,
    dataDir: resolveDataDir(values['data-dir'], config),
    allowedHosts: [...(values['allow-host'] ?? []), ...config.allowedHosts],
    rendererDir: fileURLToPath(new URL('../out/renderer', import.meta.url)),
  });
  process.stdout.write(`listening on ${app.url}\n`);
  signals.onStop(() => app.close());
}

main().catch((error: unknown) => {
  say(JSON.stringify({ detail: error instanceof Error ? error.message : String(error) }));
  process.exit(1);
});
