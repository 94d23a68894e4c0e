import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startApp, type AppOptions, type RunningApp } from '../../src-main/app.ts';
import { readConfig, type PorticoConfig } from '../../src-main/base/config.ts';
import { ENDED_JOB_STATUSES } from './wait.ts';
import {
  createApiClient,
  operationMethod,
  operationPath,
  type ApiClient,
  type OperationArgs,
  type OperationName,
} from '../../src-main/contract/client.ts';

/** Who a request is from: the org key unless `key` says another (null: none); extra headers (e.g. `x-console-token`). */
export interface Caller {
  key?: string | null;
  headers?: Record<string, string>;
}

/**
 * What `send` takes for operation `N`: path parameters typed by the contract (the path is built from
 * the declaration), and any query and JSON body, so a test can send what the schemas refuse.
 */
export type SendArgs<N extends OperationName> = Pick<OperationArgs<N>, 'params'> & {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
};

/** A non-2xx answer to a typed `call`: its status and body (`{detail}` for API errors). */
export class ApiCallError extends Error {
  readonly status: number;
  readonly body: unknown;

  constructor(status: number, body: unknown, request: string) {
    super(`${request}: ${status} ${JSON.stringify(body)}`);
    this.status = status;
    this.body = body;
  }
}

export interface TestService {
  app: RunningApp;
  url: string;
  dataDir: string;
  /** Key of org `default`. */
  orgKey: string;
  /** Account key of user `local` in workspace `default`. */
  accountKey: string;
  /** The operator console's token (`X-Console-Token`). */
  consoleToken: string;
  /** fetch against the service with the org key unless headers say otherwise. */
  api(path: string, init?: RequestInit & { key?: string | null; json?: unknown }): Promise<Response>;
  /** Operation `name` by its contract (path, method, JSON body): the raw response, for headers, bytes and streams. */
  request<N extends OperationName>(name: N, args?: SendArgs<N>, caller?: Caller): Promise<Response>;
  /**
   * Operation `name` by its contract (path, method, JSON body), answered as status and body, errors
   * included: JSON parsed, any other text as a string.
   */
  send<N extends OperationName>(
    name: N,
    args?: SendArgs<N>,
    caller?: Caller,
  ): Promise<{ status: number; body: unknown }>;
  /** The contract's typed client as the org key (or `caller`): results typed by the response schema; a non-2xx throws `ApiCallError`. */
  client(caller?: Caller): ApiClient;
  /** `client().call`: the typed client as the org key. */
  call: ApiClient['call'];
  /** Stops the service; keeps the data dir for a restart. */
  stop(): Promise<void>;
  /** Stops the service and removes the data dir. */
  dispose(): Promise<void>;
}

/** The request rate and live browsers test services allow unless a test sets its own (`options.limits`). */
export const TEST_LIMITS = Object.freeze({ requestsPerMinute: 1_000_000, browsersPerOrg: 64, browsersTotal: 256 });

export const RENDERER_DIR = fileURLToPath(new URL('../../out/renderer', import.meta.url));

/** The configuration a host would read now: tests set `process.env` before starting a service. */
export function testConfig(): PorticoConfig {
  return readConfig(process.env);
}

export async function makeDataDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'portico-test-'));
}

/** Starts a real service (real HTTP on a free loopback port, real SQLite file) on a fresh or given data dir. */
export async function startService(dataDir?: string, options: Partial<AppOptions> = {}): Promise<TestService> {
  const dir = dataDir ?? (await makeDataDir());
  const notices: string[] = [];
  const app = await startApp({
    dataDir: dir,
    port: 0,
    rendererDir: RENDERER_DIR,
    notice: (line) => notices.push(line),
    warmBrowser: false,
    samples: false,
    ...options,
    config: options.config ?? testConfig(),
    // A suite sends requests far faster than any script and keeps browsers open across its cases: only
    // the limit tests (test/hostile/caps-*) set low limits.
    limits: { ...TEST_LIMITS, ...options.limits },
  });
  const orgKey = notices.join('\n').match(/Organization API key[^:]*:\s+(\S+)/)?.[1] ?? '';
  const accountKey = notices.join('\n').match(/Account API key[^:]*:\s+(\S+)/)?.[1] ?? '';
  const api: TestService['api'] = (path, init = {}) => {
    const { key, json, ...rest } = init;
    const headers = new Headers(rest.headers);
    const useKey = key === undefined ? orgKey : key;
    if (useKey !== null && !headers.has('x-api-key')) headers.set('x-api-key', useKey);
    if (json !== undefined) headers.set('content-type', 'application/json');
    return fetch(`${app.url}${path}`, {
      ...rest,
      headers,
      body: json !== undefined ? JSON.stringify(json) : rest.body,
    });
  };
  const service: TestService = {
    app,
    url: app.url,
    dataDir: dir,
    orgKey,
    accountKey,
    consoleToken: app.consoleToken,
    api,
    // Methods on `this`, so a copy with another `api` (another key after a restart) sends through it.
    request(name, args, caller = {}) {
      // SendArgs has the typed params of OperationArgs; query and body are free (operationPath never reads the body).
      const path = (
        operationPath as (operation: OperationName, args?: { params?: unknown; query?: unknown }) => string
      )(name, args);
      const init: RequestInit & { key?: string | null; json?: unknown } = {
        method: operationMethod(name),
        headers: caller.headers ?? {},
      };
      if (caller.key !== undefined) init.key = caller.key;
      if (args?.body !== undefined) init.json = args.body;
      return this.api(path, init);
    },
    async send(name, args, caller) {
      const response = await this.request(name, args, caller);
      const text = await response.text();
      const json = /^application\/([\w.+-]+\+)?json\b/i.test(response.headers.get('content-type') ?? '');
      return { status: response.status, body: text === '' ? undefined : json ? (JSON.parse(text) as unknown) : text };
    },
    client(caller = {}) {
      return createApiClient(async (request) => {
        const init: RequestInit & { key?: string | null; json?: unknown } = {
          method: request.method,
          headers: caller.headers ?? {},
        };
        if (caller.key !== undefined) init.key = caller.key;
        if (request.body !== undefined) init.json = request.body;
        const { status, body } = await jsonOf(await this.api(request.path, init));
        if (status < 200 || status > 299) throw new ApiCallError(status, body, `${request.method} ${request.path}`);
        return body;
      });
    },
    call(name, ...args) {
      return this.client().call(name, ...args);
    },
    stop: () => app.close(),
    dispose: async () => {
      await app.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return service;
}

/** Reads a JSON response and its status together, for one-line assertions. */
export async function jsonOf(response: Response): Promise<{ status: number; body: unknown }> {
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined };
}

/**
 * Polls a job's status until it is one of `statuses`. Fails at once, with what was seen, when the job
 * ends (completed, failed, cancelled: statuses it never leaves) in another status; else after `timeoutMs`.
 */
export async function waitForJob(
  svc: TestService,
  endpoint: string,
  jobId: string,
  statuses: string[],
  timeoutMs = 30_000,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  let last: Record<string, unknown> = {};
  while (Date.now() < deadline) {
    last = await svc.call('getJobStatus', {
      params: { org_id: 'default', endpoint_name: endpoint },
      query: { job_id: jobId },
    });
    if (statuses.includes(String(last.status))) return last;
    if (ENDED_JOB_STATUSES.includes(String(last.status)))
      throw new Error(
        `job ${jobId} ended ${String(last.status)} while waiting for ${statuses.join('|')}: ${JSON.stringify(last)}`,
      );
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`job ${jobId} did not reach ${statuses.join('|')} in ${timeoutMs} ms; last: ${JSON.stringify(last)}`);
}
