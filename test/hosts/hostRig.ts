// What the browser-host tests share: hosts in network namespaces, a form server every browser reaches, and a
// Portico service whose settings.json lists the hosts. Placement is checked by where a form's requests came
// from (the form server sees the browser's address), not only by what Portico says.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AppOptions } from '../../src-main/app.ts';
import { createLogger, type Logger } from '../../src-main/base/logger.ts';
import { type FormServer, type Handler, startFormServer } from '../helpers/formServer.ts';
import { memorySecrets } from '../helpers/memorySecrets.ts';
import { type BrowserHostOptions, type NetnsBrowserHost, startBrowserHosts } from '../helpers/netns.ts';
import { REGISTRATION_PATH, registrationData, registrationPortal } from '../helpers/registrationForm.ts';
import { until } from '../helpers/wait.ts';
import { jsonOf, makeDataDir, startService, type TestService, waitForJob } from '../helpers/service.ts';

export interface HostSetting {
  name: string;
  kind: 'playwright' | 'cdp';
  url: string;
  max_browsers: number;
  labels?: string[];
}

export interface HostRig {
  hosts: NetnsBrowserHost[];
  forms: FormServer;
  /** Every line the service logged (level debug). */
  logs: string[];
  svc: TestService;
  /** Which setup a form request's source address belongs to: a host's name, or `local`. */
  placeOf(address: string | undefined): string;
  /** Creates a portal on the registration form (optionally through `path`, e.g. the barrier). */
  portal(name: string, extra?: Record<string, unknown>, path?: string): Promise<void>;
  /** Starts a job of applicant `n` on `portal`; returns its id. */
  start(portal: string, n: number, extra?: Record<string, unknown>): Promise<string>;
  /** Waits for a job to end. */
  finish(portal: string, jobId: string): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/** A host's URL as settings.json holds it: a provider's token is added by Portico only when connecting. */
function withoutToken(url: string): string {
  const parsed = new URL(url);
  if (!parsed.searchParams.has('token')) return url;
  parsed.searchParams.delete('token');
  return parsed.toString();
}

/**
 * A form page that answers no one until `count` browsers asked for it (or 20 s passed): jobs started
 * together then all hold a browser at once, so placement across hosts is forced by their room.
 */
export function barrier(count: number): { handler: Handler; waiting(): number } {
  const pending: (() => void)[] = [];
  const release = () => {
    for (const go of pending.splice(0)) go();
  };
  const handler: Handler = (_req, res, _post, server) => {
    pending.push(() => {
      res.writeHead(302, { location: server.url(REGISTRATION_PATH) }).end();
    });
    if (pending.length >= count) release();
    else setTimeout(release, 20_000).unref();
  };
  return { handler, waiting: () => pending.length };
}

/**
 * Starts hosts (named as in `names`), the form server and a service whose settings.json has
 * `local_max_browsers` and the hosts as `settings` describes them (the URL filled in from the host).
 */
export async function startHostRig(options: {
  hosts: (BrowserHostOptions & {
    name: string;
    max_browsers: number;
    labels?: string[];
    kind?: 'playwright' | 'cdp';
  })[];
  localMaxBrowsers: number;
  handlers?: Record<string, Handler>;
  jobConcurrency?: number;
  extraSettings?: Record<string, unknown>;
  /** Left out of settings.json (a test adds them another way, e.g. the CLI). */
  unlisted?: string[];
  service?: Partial<AppOptions>;
  /** Host name → token, kept where Portico keeps host tokens (the vault entry `browser-host/<name>`), never in settings.json. */
  tokens?: Record<string, string>;
}): Promise<HostRig> {
  const started = await startBrowserHosts(options.hosts);
  const hosts = started.hosts;
  let forms: FormServer | undefined;
  try {
    forms = await startFormServer(options.handlers ?? {}, {
      host: '0.0.0.0',
      urlHost: hosts[0]?.gateway ?? '127.0.0.1',
    });
    const dataDir = await makeDataDir();
    const browserHosts: HostSetting[] = options.hosts
      .map(
        (h, i) =>
          ({
            name: h.name,
            kind: h.kind ?? (h.engine === 'playwright' ? 'playwright' : 'cdp'),
            url: withoutToken(hosts[i]!.url),
            max_browsers: h.max_browsers,
            ...(h.labels && { labels: h.labels }),
          }) as HostSetting,
      )
      .filter((h) => !options.unlisted?.includes(h.name));
    await writeFile(
      join(dataDir, 'settings.json'),
      JSON.stringify({
        local_max_browsers: options.localMaxBrowsers,
        browser_hosts: browserHosts,
        ...options.extraSettings,
      }),
    );
    const logs: string[] = [];
    const secrets = memorySecrets(
      Object.fromEntries(Object.entries(options.tokens ?? {}).map(([name, token]) => [`browser-host/${name}`, token])),
    );
    const serviceOptions: Partial<AppOptions> & { logger: Logger } = {
      jobConcurrency: options.jobConcurrency ?? 6,
      logger: createLogger('debug', (line) => void logs.push(line)),
      ...(options.tokens && { secrets }),
      ...options.service,
    };
    const svc = await startService(dataDir, serviceOptions);
    // Tests start once Portico has reached every host it lists (as an operator would see on /admin/hosts).
    const listed = browserHosts.map((h) => h.name);
    await until(
      async () => {
        const res = await svc.api('/admin/hosts', { key: null, headers: { 'x-console-token': svc.consoleToken } });
        const body = (await res.json()) as { hosts?: { name: string; reachable: boolean }[] };
        return listed.every((name) => body.hosts?.some((h) => h.name === name && h.reachable));
      },
      `Portico to reach ${listed.join(', ')}`,
      20_000,
    );
    const names = new Map(hosts.map((h, i) => [h.address, options.hosts[i]!.name]));
    const formServer = forms;
    return {
      hosts,
      forms: formServer,
      logs,
      svc,
      placeOf: (address) => names.get(address?.replace(/^::ffff:/, '') ?? '') ?? 'local',
      portal: async (name, extra = {}, path) => {
        const body = registrationPortal(name, formServer.origin, extra);
        if (path) body.start_url = formServer.url(path);
        const res = await jsonOf(await svc.api('/portals/default', { method: 'POST', json: body }));
        if (res.status !== 200) throw new Error(`portal ${name}: ${res.status} ${JSON.stringify(res.body)}`);
      },
      start: async (portal, n, extra = {}) => {
        const res = await jsonOf(
          await svc.api(`/jobs/default/${portal}/start`, {
            method: 'POST',
            json: { form_data: registrationData(n), ...extra },
          }),
        );
        if (res.status !== 200) throw new Error(`start ${portal}: ${res.status} ${JSON.stringify(res.body)}`);
        return String((res.body as { job_id: string }).job_id);
      },
      finish: (portal, jobId) => waitForJob(svc, portal, jobId, ['completed', 'failed', 'cancelled'], 60_000),
      close: async () => {
        await svc.dispose();
        await formServer.close();
        started.close();
      },
    };
  } catch (error) {
    await forms?.close();
    started.close();
    throw error;
  }
}
