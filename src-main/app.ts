import { redactingLogger, SecretRedactor, type Logger } from './base/logger.ts';
import { logEntries, openServiceLog } from './base/serviceLog.ts';
import { dataPaths, securePrivateDataRoot, tightenDataDir } from './base/paths.ts';
import type { Agent } from './agent/agentTypes.ts';
import type { MappingCache } from './agent/autofill/modelKeyMapper.ts';
import type { ModelAgentDeps } from './agent/model/modelAgent.ts';
import { LlmFactory } from './llm/index.ts';
import { allowedHostNames } from './api/hostGuard.ts';
import { buildServer } from './api/server.ts';
import { WebhookDispatcher } from './webhooks/webhookDispatcher.ts';
import { WebhookEmitter } from './webhooks/webhookEmitter.ts';
import { WebhookKeyService } from './webhooks/webhookKeys.ts';
import { BrowserRuntime } from './browser/browserRuntime.ts';
import { LiveViewHub } from './engine/liveViewHub.ts';
import { JobEvents } from './engine/jobs/jobEvents.ts';
import { JobScheduler, type AgentRegistry } from './engine/jobs/jobScheduler.ts';
import { JobService } from './engine/jobs/jobService.ts';
import { BUILTIN_AUTOFILL, DEFAULT_ORCHESTRATOR_MODEL, isOrchestratorModel } from './contract/models.ts';
import { DEFAULT_USER_ID, DEFAULT_WORKSPACE_ID, seedFirstStart, type SeededKeys } from './engine/firstStart.ts';
import { OperatorSettings } from './engine/operatorSettings.ts';
import { BrowserSlots } from './engine/limits/browserSlots.ts';
import { browserCapacity, createBrowserHosts, hostStatuses, placementHosts } from './engine/hosts/browserHostSetup.ts';
import { HostAdmin } from './engine/hosts/hostAdmin.ts';
import type { BrowserHostAddRequest } from './contract/hosts.ts';
import { ChromiumVersionCache } from './browser/chromiumVersion.ts';
import { DiskQuotas } from './engine/limits/diskQuotas.ts';
import { resolveLimits } from './engine/limits/resourceLimits.ts';
import { AdminService } from './engine/admin/adminService.ts';
import { ConnectedAccountService } from './engine/oauth/connectedAccounts.ts';
import { GmailCodeReader, GmailCodeSource } from './engine/oauth/gmail.ts';
import { newSecretToken } from './base/ids.ts';
import { openAppSecrets, type SecretStore } from './secrets/index.ts';
import { jsonSchemas } from './base/jsonSchema.ts';
import { PortalService } from './engine/portalService.ts';
import { SampleService } from './engine/samples/sampleService.ts';
import { loginBrowserConfig } from './engine/profiles/loginBrowserConfig.ts';
import { ProfileService } from './engine/profiles/profileService.ts';
import { ProfileSessionManager } from './engine/profiles/profileSessions.ts';
import { SkillService } from './engine/skills/skillService.ts';
import { SessionService } from './engine/sessions/sessionService.ts';
import { ActionService } from './engine/actions/actionService.ts';
import { WorkflowService } from './engine/workflows/workflowService.ts';
import { DocumentService } from './engine/documents/documentService.ts';
import { formDataFromBundle, previewExtraction } from './engine/documents/extractJob.ts';
import { WorkerReading } from './engine/documents/workerReading.ts';
import { CredentialService } from './engine/credentials/credentialService.ts';
import { SessionBrowserPool } from './browser/sessionBrowsers.ts';
import { remoteCdpSessionBrowser, remoteSessionBrowser } from './browser/remoteCdp.ts';
import { IdleBrowsers } from './browser/idleBrowsers.ts';
import { findChromium, needsNoSandbox, systemChromiumHost } from './browser/chromiumDiscovery.ts';
import { findFfmpeg, removeUnfinishedRecordings } from './browser/recorder.ts';
import { openStore } from './store/store.ts';
import { Lifecycle } from './base/lifecycle.ts';
import { MINUTE_MS } from './base/clock.ts';
import type { AppOptions, RunningApp } from './app-types.ts';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import packageJson from '../package.json' with { type: 'json' };

export type { AppOptions, RunningApp } from './app-types.ts';

export const VERSION: string = packageJson.version;

/** Minutes with nothing running and no session open before the warm browsers close (`browsers_idle_minutes`). */
const DEFAULT_BROWSERS_IDLE_MINUTES = 5;

/** Jobs at once when neither the console nor PORTICO_JOB_CONCURRENCY says: a 2-core machine. */
const DEFAULT_JOB_CONCURRENCY = 2;

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}

/** What in the data folder could not be made private (base/paths.ts): start-up goes on and says so. */
function warnNotPrivate(items: string[], notice: (line: string) => void): void {
  if (items.length > 0)
    notice(`WARNING: could not make ${items.length} item(s) in the data folder private to this user, e.g. ${items[0]}`);
}

function firstStartNotice(keys: SeededKeys): string[] {
  return [
    "Portico first start: created organization 'default' and user 'local' in workspace 'default'.",
    `  Organization API key (org '${keys.orgId}'):  ${keys.orgApiKey}`,
    `  Account API key (user '${keys.userId}', workspace '${keys.workspaceId}'):  ${keys.accountApiKey}`,
    '  These keys are shown only this once; keep them. Create more with `npm run cli -- key create --org default`.',
  ];
}

/**
 * An agent whose modules load at its first run, not at start (docs/performance.md, "Start-up"): runs
 * that arrive while they load wait for them.
 */
function agentOnFirstRun(load: () => Promise<Agent>): Agent {
  let agent: Promise<Agent> | undefined;
  return {
    async run(context) {
      agent ??= load();
      return (await agent).run(context);
    },
  };
}

/**
 * The agents of this build, keyed by orchestrator model id: autofill (with its portal's assist model
 * for unmatched keys, when one is set), and the model-driven agent for every model id.
 */
function builtinAgents(modelDeps: ModelAgentDeps, mappings: MappingCache): AgentRegistry {
  const autofill = agentOnFirstRun(async () => {
    const [{ AutofillAgent }, { ModelKeyMapper }] = await Promise.all([
      import('./agent/autofill/index.ts'),
      import('./agent/autofill/modelKeyMapper.ts'),
    ]);
    return new AutofillAgent({
      keyMapper: (ctx) =>
        ctx.job?.assistModel
          ? new ModelKeyMapper({ llm: modelDeps.llm, cache: mappings }, ctx, ctx.job.assistModel)
          : null,
    });
  });
  const model = agentOnFirstRun(async () => new (await import('./agent/model/modelAgent.ts')).ModelAgent(modelDeps));
  return { get: (id) => (id === BUILTIN_AUTOFILL ? autofill : isOrchestratorModel(id) ? model : undefined) };
}

/**
 * Where this server answers, known once it listens. Services that put links in what they return
 * (job live-view URLs, the OAuth redirect, the samples' origin) read it per request; before
 * `listen()` there is nothing to read and asking is a bug.
 */
class ListenAddress {
  #url: string | undefined;
  #callbackOrigin: string | undefined;
  /** 0 until listening. */
  port = 0;

  set(host: string, port: number): { url: string; callbackOrigin: string } {
    const urlHost = host.includes(':') ? `[${host}]` : host;
    this.port = port;
    this.#url = `http://${urlHost}:${port}`;
    // The RFC 8252 loopback redirect: an IP literal the browser reaches this server at, on the port it listens on.
    this.#callbackOrigin = `http://${host === '::1' ? '[::1]' : host === '0.0.0.0' || host === '::' || isLoopback(host) ? '127.0.0.1' : urlHost}:${port}`;
    return { url: this.#url, callbackOrigin: this.#callbackOrigin };
  }

  url(): string {
    if (this.#url === undefined) throw new Error('the server is not listening yet');
    return this.#url;
  }

  callbackOrigin(): string {
    if (this.#callbackOrigin === undefined) throw new Error('the server is not listening yet');
    return this.#callbackOrigin;
  }
}

/** Every setting that has several sources, resolved once: options (tests, hosts) › the console's settings.json › environment › default. */
function resolveSettings(options: AppOptions, operatorSettings: OperatorSettings, config: AppOptions['config']) {
  const warmBrowser = options.warmBrowser ?? true;
  return {
    warmBrowser,
    // The console's saved value wins over PORTICO_JOB_CONCURRENCY (docs/api.md, Operator console › Settings).
    jobConcurrency:
      options.jobConcurrency ??
      operatorSettings.values.job_concurrency ??
      config.jobConcurrency ??
      DEFAULT_JOB_CONCURRENCY,
    sessionPoolSize: options.sessionPoolSize ?? (warmBrowser ? (operatorSettings.values.session_pool_size ?? 1) : 0),
    browsersIdleMs: (operatorSettings.values.browsers_idle_minutes ?? DEFAULT_BROWSERS_IDLE_MINUTES) * 60_000,
    limits: resolveLimits(operatorSettings.values, options.limits, browserCapacity(operatorSettings.values)),
  };
}

/**
 * The order things are released in at close (or when a start fails half-way): each phase is a scope,
 * and scopes release in reverse of the order made here — first the work in flight (jobs end, and their
 * end still reaches the console's open log streams), then the HTTP server (and the clients' CDP
 * connections), then sessions and browsers, then what records how the work ended, then the store.
 */
function shutdownPhases(scope: Lifecycle) {
  const storage = scope.child('storage');
  const records = scope.child('records');
  const browsers = scope.child('browsers');
  const http = scope.child('http');
  const work = scope.child('work');
  return { storage, records, browsers, http, work };
}

type Phases = ReturnType<typeof shutdownPhases>;

/** Builds every service in dependency order (no forward references), registering each release in its phase. */
async function buildServices(options: AppOptions & { logger?: Logger }, phases: Phases, address: ListenAddress) {
  const { config } = options;
  const notice = options.notice ?? ((line: string) => process.stderr.write(`${line}\n`));
  // Every secret value the app handles (credential passwords, TOTP seeds and codes) is redacted from its log, in every encoding.
  const redactor = new SecretRedactor();
  const paths = dataPaths(options.dataDir);
  // The log: stderr for `serve`, a rotating file in the data folder for the desktop app (options.logFile);
  // a logger handed in by a test writes where the test says (docs/api.md, "Service log").
  const serviceLog = options.logger
    ? undefined
    : phases.storage.add(
        openServiceLog(config.logLevel, options.logFile ? join(paths.root, 'logs', 'portico.log') : undefined),
        (log) => log.close(),
        'service log',
      );
  const logger = redactingLogger(options.logger ?? (serviceLog as { logger: Logger }).logger, redactor);
  const host = options.host ?? '127.0.0.1';
  // Nothing in the data folder is readable by other local users (docs/api.md, "Data folder").
  // The folder itself now; what is already inside it once the service listens (startApp, base/paths.ts).
  warnNotPrivate(securePrivateDataRoot(paths.root), notice);
  // What a kill -9 left there: browsers' profile copies and Playwright's folders, half-done uploads (one service per data folder).
  rmSync(paths.tmp, { recursive: true, force: true });
  // Recordings a kill -9 cut off (`*.webm.part`): never finished, never served.
  const unfinished = await removeUnfinishedRecordings(paths.artifacts);
  if (unfinished > 0) logger.info('removed unfinished recordings left by an earlier stop', { count: unfinished });
  if (!isLoopback(host)) {
    notice(
      `WARNING: binding ${host} exposes the Portico API beyond this machine; every request still needs an API key.`,
    );
    if (!options.allowedHosts?.length)
      notice(
        '  Requests must name this server in their Host header: allow the names clients use with --allow-host NAME (or PORTICO_ALLOWED_HOSTS).',
      );
  }

  const store = phases.storage.add(openStore(paths.database), (opened) => opened.close(), 'store');
  // One secret store for the whole app (tests may hand in their own), opened on first use so the
  // keychain is only probed when a secret is touched.
  let secrets: Promise<SecretStore> | undefined;
  const openSecrets = (): Promise<SecretStore> =>
    (secrets ??= options.secrets
      ? Promise.resolve(options.secrets)
      : openAppSecrets(paths.root, store.meta.installId(), config));
  const schemas = jsonSchemas;
  const operatorSettings = OperatorSettings.load(paths.root);
  const settings = resolveSettings(options, operatorSettings, config);
  // What one organization may hold: live browsers, requests a minute, disk (docs/api.md, "Limits and quotas").
  const { limits } = settings;
  // Browser hosts (docs/scale.md): the local Chromium and settings.json's browser_hosts, probed on a timer;
  // each browser goes to the least-loaded one with room. Tokens come from the keychain/vault when connecting.
  const browserHosts = phases.browsers.add(
    createBrowserHosts({
      settings: operatorSettings.values,
      secrets: openSecrets,
      onSecret: (value) => redactor.add(value),
      logger,
      ...(options.clock && { clock: options.clock }),
      ...(options.hostProbeIntervalMs !== undefined && { probeIntervalMs: options.hostProbeIntervalMs }),
    }),
    (hosts) => hosts.close(),
    'browser host probes',
  );
  const hostPlaces = placementHosts(operatorSettings.values, browserHosts);
  const browserSlots = new BrowserSlots(
    { perOrg: limits.browsersPerOrg, total: limits.browsersTotal },
    () => hostPlaces,
  );
  const documentRepo = store.documents;
  const quotas = new DiskQuotas({
    quotas: {
      skills: limits.skillsQuotaBytes,
      documents: limits.documentsQuotaBytes,
      artifacts: limits.artifactsQuotaBytes,
    },
    usage: {
      skills: (orgId) => store.skills.totalBytes(orgId),
      documents: (orgId) => documentRepo.totalBytes(orgId),
      artifactDirs: (orgId) => store.jobs.idsForOrg(orgId).map((jobId) => join(paths.artifacts, jobId)),
    },
    ...(options.clock && { clock: options.clock }),
  });
  const skills = new SkillService(store, { skillsDir: paths.skills, tmpDir: paths.tmp }, logger, quotas);
  await skills.cleanUp();
  const jobEvents = phases.records.add(new JobEvents(), (events) => events.dispose(), 'job events');

  // No browser of Portico may reach Portico's own port, by any name it answers to (docs/security.md);
  // known once listening, and every browser is launched after that.
  const blockedHostPorts = (): string[] =>
    address.port === 0
      ? []
      : [...new Set([...allowedHostNames(host), ...(options.allowedHosts ?? []), '0.0.0.0', '[::]'])].map(
          (name) => `${name}:${address.port}`,
        );
  const chromiumPath = operatorSettings.values.chromium_path;
  // With nothing running and no session open for browsers_idle_minutes, the warm browsers close (docs/decisions.md, "Idle browsers close").
  const idleBrowsers = new IdleBrowsers({
    idleMs: settings.browsersIdleMs,
    logger,
    ...(options.clock && { clock: options.clock }),
  });
  const runtime = phases.browsers.add(
    new BrowserRuntime({
      blockedHostPorts,
      remoteHosts: browserHosts,
      dataDir: paths.root,
      tempDir: join(paths.tmp, 'browser'),
      launcherTempDir: join(paths.tmp, 'playwright'),
      logger,
      spareContext: settings.warmBrowser,
      idle: idleBrowsers,
      disableSandbox: config.chromiumNoSandbox,
      ...(chromiumPath !== undefined && { executablePath: chromiumPath }),
      ...(config.chromiumPath !== undefined && { chromiumEnvPath: config.chromiumPath }),
      headlessShell: config.headlessShell,
    }),
    (browsers) => browsers.close(),
    'job browsers',
  );
  const liveViews = new LiveViewHub();
  // Session browsers: one Chromium each, a few kept warm (docs/decisions.md, "Session browsers").
  const chromiumHost = systemChromiumHost();
  const sessionPool = phases.browsers.add(
    new SessionBrowserPool(
      {
        executablePath: () =>
          findChromium(chromiumHost, {
            configuredPath: operatorSettings.values.chromium_path,
            envPath: config.chromiumPath,
          }),
        noSandbox: needsNoSandbox(chromiumHost.platform, config.chromiumNoSandbox, process.getuid?.()),
        tempDir: join(paths.tmp, 'sessions'),
        logger,
        blockedHostPorts,
        ...(options.clock && { clock: options.clock }),
      },
      settings.sessionPoolSize,
    ),
    (pool) => pool.close(),
    'session browser pool',
  );
  idleBrowsers.onIdle(() => runtime.closeIdle());
  idleBrowsers.onIdle(() => sessionPool.closeIdle());
  const sessions = phases.browsers.add(
    new SessionService({
      store,
      pool: sessionPool,
      locks: runtime.locks,
      profileDir: (profileId) => runtime.profileDir(profileId),
      liveViews,
      logger,
      browserSlots,
      ...(options.clock && { clock: options.clock }),
      idle: idleBrowsers,
      // On a remote host, served through the same CDP proxy (docs/scale.md): a `playwright` host launches a
      // browser of its own for the session; on a `cdp` host the session is a browser context of its own.
      remoteBrowser: async (hostName, screen) => {
        const remote = { tempDir: join(paths.tmp, 'sessions'), ...(options.clock && { clock: options.clock }) };
        return browserHosts.state(hostName)?.spec.kind === 'cdp'
          ? remoteCdpSessionBrowser(await browserHosts.connectCdpSocket(hostName), screen, remote)
          : remoteSessionBrowser(await browserHosts.connect(hostName), remote);
      },
      recorder: {
        ffmpegPath: () => findFfmpeg(config.ffmpegPath),
        dir: join(paths.artifacts, 'sessions'),
        recordVideoDefault: () => operatorSettings.values.record_video ?? false,
      },
    }),
    (service) => service.close(),
    'sessions',
  );
  sessions.recover();
  const profileSessions = phases.browsers.add(
    new ProfileSessionManager(store, runtime, liveViews, {
      ...loginBrowserConfig(config),
      logger,
      ...(options.clock && { clock: options.clock }),
      browserSlots,
    }),
    (manager) => manager.close(),
    'profile login windows',
  );
  // Stopped before sessions, login windows, the pool and the runtime close (a scope releases newest first).
  phases.browsers.defer(() => idleBrowsers.stop(), 'idle browser timer');
  const profiles = new ProfileService(store, runtime, profileSessions);
  // A portal's browser_session_id is checked against the live sessions (looked up per request).
  const portals = new PortalService(store, schemas, {
    isActiveInOrg: (sessionId, orgId) => sessions.isActiveInOrg(sessionId, orgId),
  });
  const credentials = new CredentialService({
    store,
    secrets: openSecrets,
    redactor,
    logger,
    ...(options.clock && { clock: options.clock }),
  });
  const llm = new LlmFactory({
    secrets: openSecrets,
    storedBaseUrl: (provider) => store.providerSettings.baseUrl(provider),
    environment: config.providers,
    ...(options.llmRetry && { retry: options.llmRetry }),
  });
  // An action the built-in interpreter cannot read goes to the default orchestrator model, when it is configured.
  const actions = new ActionService({
    sessions,
    cache: store.actionCache,
    model: {
      configured: async () =>
        (await llm.missing(DEFAULT_ORCHESTRATOR_MODEL).catch(() => 'unknown model')) === undefined
          ? DEFAULT_ORCHESTRATOR_MODEL
          : undefined,
      create: (modelId) => llm.create(modelId),
    },
  });
  // Document bundles: read one at a time off the request path; those a stop left mid-read resume (local-service.md §7).
  const documents = phases.work.add(
    new DocumentService({
      repo: documentRepo,
      paths: { documentsDir: join(paths.root, 'documents'), tmpDir: paths.tmp },
      // Files are read in a worker thread (pdf.js, OCR, …), so a heavy or hanging file never blocks the server.
      reading: new WorkerReading({
        logger,
        ...(options.documentReading?.readersModule && { readersModule: options.documentReading.readersModule }),
      }),
      logger,
      quotas,
      ...(options.clock && { clock: options.clock }),
      readTimeoutMs: limits.documentReadTimeoutMs,
    }),
    (service) => service.close(),
    'document reading',
  );
  await documents.recover();
  const documentExtract = async (orgId: string, bundleId: string, endpointName: string) => {
    const portal = portals.getRecord(orgId, endpointName);
    return previewExtraction({ documents, llm, schemas }, orgId, bundleId, {
      form_schema: portal.form_schema,
      assist_model: portal.assist_model,
    });
  };
  const agents =
    options.agents ??
    builtinAgents(
      {
        llm,
        traces: store.replayTraces,
        skillsDir: paths.skills,
        skill: (id) => {
          const record = store.skills.get(id);
          return record && { id, name: record.name, description: record.description ?? '' };
        },
      },
      store.autofillMappings,
    );
  const scheduler = phases.work.add(
    new JobScheduler(
      {
        store,
        runtime,
        events: jobEvents,
        liveViews,
        logger,
        artifactsDir: paths.artifacts,
        answerTimeoutMs: 24 * 60 * MINUTE_MS,
        ...(options.clock && { clock: options.clock }),
        sessionLease: (sessionId, orgId) => sessions.leaseFor(sessionId, orgId),
        // ffmpeg is looked up per recording, so installing it (or fixing PORTICO_FFMPEG) needs no restart.
        recorder: { ffmpegPath: () => findFfmpeg(config.ffmpegPath) },
        credentials,
        redactor,
        // A job started with document_bundle_id reads its form_data from the bundle.
        bundleFormData: (job, hooks) => formDataFromBundle({ documents, llm, schemas }, job, hooks),
      },
      agents,
      { concurrency: settings.jobConcurrency, browserSlots },
    ),
    (jobScheduler) => jobScheduler.close(),
    'running jobs',
  );
  const jobs = new JobService({
    store,
    portals,
    schemas,
    scheduler,
    artifactsDir: paths.artifacts,
    baseUrl: () => address.url(),
    sessions,
    credentials,
    unplaceable: (labels) => browserSlots.unplaceable({ labels }),
    recordVideoDefault: () => operatorSettings.values.record_video ?? false,
    documents: { get: (orgId, id) => documents.get(orgId, id) },
    artifactsQuota: quotas,
    models: {
      canRun: (model) => agents.get(model) !== undefined,
      hasKey: async (model) =>
        model === BUILTIN_AUTOFILL || (await llm.missing(model).catch(() => 'unknown model')) === undefined,
      missing: (model) => llm.missing(model),
    },
  });
  // Workflows: single actions and portal jobs in order, in one session (local-service.md §5.5). Closing
  // stops new steps at once (work phase); the runs in flight end as their jobs and sessions end, and
  // their last writes land before the store closes (records phase).
  const workflows = new WorkflowService({
    workflows: store.workflows,
    principals: store.principals,
    portals: store.portals,
    sessions,
    actions,
    jobs: {
      start: (orgId, endpointName, request) => jobs.start(orgId, endpointName, request),
      get: (jobId) => store.jobs.get(jobId),
      onDidChangeStatus: jobEvents.onDidChangeStatus,
    },
    screenshotsDir: join(paths.artifacts, 'workflows'),
    logger,
    ...(options.clock && { clock: options.clock }),
  });
  let workflowsClosed: Promise<void> = Promise.resolve();
  phases.records.defer(() => workflowsClosed, 'workflow runs in flight');
  phases.work.defer(() => {
    workflowsClosed = workflows.close();
  }, 'workflows');
  workflows.recover();
  const seeded = seedFirstStart(store);
  // Sample portals served by Portico itself (/samples/…): a first job that works offline (docs/api.md, "Samples").
  const samples = new SampleService({ store, portals });
  const webhookKeys = new WebhookKeyService(store, openSecrets);
  // Jobs that shutdown interrupts still send their final webhook: both close after the work phase.
  const webhookDispatcher = phases.records.add(
    new WebhookDispatcher(store, webhookKeys, logger, {
      userAgent: `Portico-Webhooks/${VERSION}`,
      ...options.webhookTiming,
    }),
    (dispatcher) => dispatcher.close(),
    'webhook deliveries',
  );
  phases.records.add(
    new WebhookEmitter({ store, jobs, keys: webhookKeys, dispatcher: webhookDispatcher, events: jobEvents }),
    (emitter) => emitter.dispose(),
    'webhook events',
  );
  const adminService = new AdminService({ store, secrets: openSecrets, providerEnvironment: config.providers });
  const connectedAccounts = new ConnectedAccountService({
    repo: store.oauth,
    apps: adminService.oauthApps,
    secrets: openSecrets,
    logger,
    redirectUri: () => `${address.callbackOrigin()}/oauth/callback`,
    onSecret: (value) => redactor.add(value),
    ...(options.clock && { clock: options.clock }),
    ...(options.onAccountConnected && { onAccountConnected: options.onAccountConnected }),
  });
  // Codes by mail: a credential linked to its creator's connected Google account reads them through the Gmail API.
  credentials.codeWaiter.register(
    new GmailCodeSource(
      new GmailCodeReader({
        accessToken: (id) => connectedAccounts.accessToken(id),
        ...(config.gmailApiBase !== undefined && { baseUrl: config.gmailApiBase }),
      }),
      (id) => connectedAccounts.ownerOf(id),
    ),
  );
  // The console's credential: new at every start, never stored, handed to the window or printed as a URL.
  const consoleToken = newSecretToken('ct_');
  const consoleAuth = {
    token: consoleToken,
    orgExists: (orgId: string) => store.principals.getOrg(orgId) !== undefined,
    // The console on /public acts as the first-start operator: user `local` in workspace `default` (docs/decisions.md).
    operatorAccount: () => ({
      kind: 'account' as const,
      userId: DEFAULT_USER_ID,
      workspaceId: DEFAULT_WORKSPACE_ID,
      orgId: store.principals.workspaceOrg(DEFAULT_WORKSPACE_ID) ?? 'default',
      member: store.principals.isMember(DEFAULT_WORKSPACE_ID, DEFAULT_USER_ID),
    }),
  };
  // The console's browser hosts: settings.json and the keychain/vault, as `portico host add/remove` (used from the next start).
  const hostAdmin = new HostAdmin({ settings: operatorSettings, secrets: openSecrets });
  // The local browser's version for GET /admin/hosts and /admin/settings, probed once per executable (path, mtime, size).
  const localVersions = new ChromiumVersionCache();
  const admin = {
    admin: adminService,
    log: {
      file: serviceLog?.file ?? null,
      level: config.logLevel,
      entries: (count: number) => logEntries(serviceLog?.tail(count) ?? [], redactor),
    },
    settings: operatorSettings,
    dataDir: paths.root,
    chromiumEnvPath: config.chromiumPath,
    chromiumVersion: (path: string, field: string) => localVersions.version(path, field),
    jobConcurrency: { get: () => scheduler.concurrency, set: (n: number) => scheduler.setConcurrency(n) },
    browser: runtime,
    hosts: {
      add: async ({ token, ...host }: BrowserHostAddRequest) => hostAdmin.add(host, token),
      remove: (name: string) => hostAdmin.remove(name),
      statuses: () =>
        hostStatuses(operatorSettings.values, browserHosts, browserSlots, openSecrets, async () => {
          const path = findChromium(chromiumHost, {
            configuredPath: operatorSettings.values.chromium_path,
            envPath: config.chromiumPath,
          });
          return localVersions.version(path, 'chromium');
        }),
    },
  };
  const { server, routes } = await buildServer({
    store,
    portals,
    skills,
    jobs,
    jobEvents,
    logger,
    version: VERSION,
    boundHost: host,
    ...(options.allowedHosts && { allowedHosts: options.allowedHosts }),
    rendererDir: options.rendererDir,
    cdpAllowedOrigins: () => operatorSettings.values.cdp_allowed_origins ?? [],
    liveViews,
    profiles,
    consoleAuth,
    admin,
    webhooks: { keys: webhookKeys, dispatcher: webhookDispatcher },
    sessions,
    actions,
    connectedAccounts,
    credentials,
    workflows,
    documents,
    documentExtract,
    samples: { service: samples, origin: () => address.callbackOrigin() },
    rateLimit: { requestsPerMinute: limits.requestsPerMinute, ...(options.clock && { clock: options.clock }) },
  });
  // Closing the server ends the clients' CDP connections too (api/cdpProxy.ts), before their sessions end.
  phases.http.add(server, (fastify) => fastify.close(), 'HTTP server');
  return {
    notice,
    host,
    server,
    routes,
    consoleToken,
    seeded,
    samples,
    browserHosts,
    scheduler,
    webhookDispatcher,
    sessionPool,
    runtime,
    idleBrowsers,
  };
}

type Services = Awaited<ReturnType<typeof buildServices>>;

/** Listens on the asked address; returns where the server answers. */
async function listen(
  services: Services,
  options: AppOptions,
  address: ListenAddress,
): Promise<{ url: string; port: number; callbackOrigin: string }> {
  await services.server.listen({ host: services.host, port: options.port ?? 8787 });
  const bound = services.server.server.address();
  const port = typeof bound === 'object' && bound ? bound.port : (options.port ?? 8787);
  return { port, ...address.set(services.host, port) };
}

/** The composition root shared by both hosts: builds every service, listens, then starts the work. */
export async function startApp(options: AppOptions & { logger?: Logger }): Promise<RunningApp> {
  const scope = new Lifecycle('app');
  const phases = shutdownPhases(scope);
  const address = new ListenAddress();
  try {
    const services = await buildServices(options, phases, address);
    const { url, port, callbackOrigin } = await listen(services, options, address);
    const { notice, seeded } = services;
    // First start creates the samples in `default`; every start points sample portals at this origin (the port may differ).
    if (seeded && (options.samples ?? true)) services.samples.seed(seeded.orgId, callbackOrigin);
    services.samples.repoint(callbackOrigin);
    void services.browserHosts.start();
    services.scheduler.recover();
    services.webhookDispatcher.poke();
    services.sessionPool.fill();
    services.idleBrowsers.start();
    // Everything already in the data folder loses group and other access, behind a folder that is 0700
    // already: a walk of every job's artifacts, so after `listening` rather than before (docs/performance.md).
    const tightened = tightenDataDir(options.dataDir).then((untouched) => warnNotPrivate(untouched, notice));
    phases.storage.defer(() => tightened, 'data folder permissions');
    // The jobs' shared browser is not launched at start: it opens at the first job, as after an idle close
    // (docs/decisions.md, "Nothing loads Playwright at start"), so an idle service never loads playwright-core.
    if (seeded) for (const line of firstStartNotice(seeded)) notice(line);
    if (options.announceConsole ?? true) notice(`Console: ${url}/#token=${services.consoleToken}`);
    return {
      url,
      host: services.host,
      port,
      consoleToken: services.consoleToken,
      routes: services.routes,
      close: () => scope.dispose(),
    };
  } catch (error) {
    // A start that fails half-way releases what it acquired, newest first; the start's own error is the one reported.
    await scope.dispose().catch(() => {});
    throw error;
  }
}
