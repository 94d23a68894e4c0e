import type { AnyRouteSpec } from './api/routeTable.ts';
import type { Clock } from './base/clock.ts';
import type { PorticoConfig } from './base/config.ts';
import type { ConnectedAccount } from './contract/oauth.ts';
import type { AgentRegistry } from './engine/jobs/jobScheduler.ts';
import type { ResourceLimits } from './engine/limits/resourceLimits.ts';
import type { RetryPolicy } from './llm/index.ts';
import type { SecretStore } from './secrets/index.ts';

/** What a host (headless `serve.ts` or the Electron main process) asks of the engine. */
export interface AppOptions {
  /** Folder holding the database, profiles, artifacts and skills. */
  dataDir: string;
  /** The environment, read and validated once by the host (base/config.ts `readConfig`). */
  config: PorticoConfig;
  /** Bind address; default 127.0.0.1. */
  host?: string;
  /** Host header names accepted besides loopback and the bound address (e.g. this machine's LAN name). */
  allowedHosts?: readonly string[];
  /** Port; 0 picks a free one. Default 8787. */
  port?: number;
  /** The built console (out/renderer), served at `/`. */
  rendererDir: string;
  /**
   * Write the service log to a rotating file in the data folder (`logs/portico.log`, 5 MB, 3 older
   * files kept) instead of stderr: the desktop app, which has no terminal. The console shows its tail.
   */
  logFile?: boolean;
  /** Where first-start keys and warnings go (default: process.stderr). */
  notice?: (line: string) => void;
  /** Jobs running at once, ahead of the console's saved value and PORTICO_JOB_CONCURRENCY (else 2); tests set it. */
  jobConcurrency?: number;
  /** Which agent runs which orchestrator model; default: the builtin autofill agent. Tests inject their own. */
  agents?: AgentRegistry;
  /**
   * Keep browsers warm (default true): a spare context in the jobs' shared browser once it is open, and the
   * session pool. Nothing is launched for jobs at start: the shared browser opens at the first job.
   */
  warmBrowser?: boolean;
  /** Create the sample portals in `default` at first start (default true; docs/api.md, "Samples"). */
  samples?: boolean;
  /** Print the console URL (with its token) through `notice` once listening (default true; the desktop app opens a window instead). */
  announceConsole?: boolean;
  /** Webhook delivery deadline and retry delays (default 10 s and 1 s/3 s/9 s); only tests change them. */
  webhookTiming?: { timeoutMs?: number; retryDelaysMs?: number[] };
  /** Where provider keys and credential secrets are read; default: the OS keychain / vault, opened on first use. */
  secrets?: SecretStore;
  /** Model call retries and timeout; tests shorten them. */
  llmRetry?: RetryPolicy;
  /**
   * The one time source of the service's timed behaviour — jobs (timeout_minutes, the wait for an answer,
   * the queue's poll), sessions (expiry), profile login windows (idle close), workflow runs (step times, the resume window),
   * credentials (TOTP codes, the wait for a one-time code), document bundles (the wait for a bundle still
   * being read), the request-rate window and the artifacts usage cache, OAuth connect requests and token
   * refreshes, browser host probes, the warm browsers' idle close. Default: the system clock; tests hand in test/helpers/fakeClock.ts.
   */
  clock?: Clock;
  /** Warm session browsers kept ready, ahead of the console's saved value (default 1; 0 when warmBrowser is false). */
  sessionPoolSize?: number;
  /** Tests only: a module whose `documentReaders()` the document read worker uses instead of the built-in readers. */
  documentReading?: { readersModule?: string };
  /** Live browsers, request rate and disk quotas, ahead of settings.json (docs/api.md, "Limits and quotas"); tests set them low. */
  limits?: Partial<ResourceLimits>;
  /** How often each browser host is probed (default 15 s). */
  hostProbeIntervalMs?: number;
  /** Called once each time `/oauth/callback` connects an account (not on a failed callback); the desktop host focuses its window. */
  onAccountConnected?: (account: ConnectedAccount) => void;
}

/** A started engine and its HTTP server. */
export interface RunningApp {
  /** e.g. http://127.0.0.1:8787 — the real port when 0 was asked. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** The operator console's token for this run (`X-Console-Token`); new at every start. */
  readonly consoleToken: string;
  /** The HTTP operations served: the one table that routes, validates, serializes and documents them. */
  readonly routes: readonly AnyRouteSpec[];
  /** Stops accepting requests, ends work in flight, closes the database. Idempotent. */
  close(): Promise<void>;
}
