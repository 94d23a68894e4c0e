import { createRequire } from 'node:module';
import multipart from '@fastify/multipart';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyServerOptions,
} from 'fastify';
import { pinoOf, type Logger } from '../base/logger.ts';
import type { JobEvents } from '../engine/jobs/jobEvents.ts';
import type { JobService } from '../engine/jobs/jobService.ts';
import type { LiveViewHub } from '../engine/liveViewHub.ts';
import type { ProfileService } from '../engine/profiles/profileService.ts';
import type { SessionService } from '../engine/sessions/sessionService.ts';
import type { ActionService } from '../engine/actions/actionService.ts';
import type { ConnectedAccountService } from '../engine/oauth/connectedAccounts.ts';
import type { WorkflowService } from '../engine/workflows/workflowService.ts';
import type { CredentialService } from '../engine/credentials/credentialService.ts';
import type { PortalService } from '../engine/portalService.ts';
import type { DocumentService } from '../engine/documents/documentService.ts';
import type { SkillService } from '../engine/skills/skillService.ts';
import type { Store } from '../store/store.ts';
import type { ConsoleAuth } from './auth.ts';
import { installCdpProxy } from './cdpProxy.ts';
import { installConsole } from './consoleStatic.ts';
import { frameworkErrorOptions, installErrorHandler } from './errorHandler.ts';
import { installJsonBodyParser } from './validation.ts';
import { installMcpEndpoint } from './mcp.ts';
import { hostChecker, installHostGuard } from './hostGuard.ts';
import { installRateLimit, type RateLimitOptions } from './rateLimit.ts';
import type { OperationName } from '../contract/operations.ts';
import { operationTable, type Handlers } from './operationTable.ts';
import type { AnyRouteSpec } from './routeTable.ts';
import { adminHandlers, type AdminDeps } from './routes/admin.ts';
import { healthHandlers } from './routes/health.ts';
import { jobHandlers } from './routes/jobs.ts';
import { webhookHandlers } from './routes/webhooks.ts';
import type { WebhookDispatcher } from '../webhooks/webhookDispatcher.ts';
import type { WebhookKeyService } from '../webhooks/webhookKeys.ts';
import { liveViewHandlers } from './routes/liveView.ts';
import { portalHandlers } from './routes/portals.ts';
import { profileHandlers } from './routes/profiles.ts';
import { sessionHandlers } from './routes/sessions.ts';
import { credentialHandlers } from './routes/credentials.ts';
import { singleActionHandlers } from './routes/singleActions.ts';
import { skillHandlers } from './routes/skills.ts';
import { documentHandlers } from './routes/documents.ts';
import type { ExtractionPreviewer } from './routes/documentExtract.ts';
import { connectedAccountHandlers } from './routes/connectedAccounts.ts';
import { workflowHandlers } from './routes/workflows.ts';
import { sampleHandlers } from './routes/samples.ts';
import { installSamplesSite } from './samplesSite.ts';
import { SAMPLE_SITE_HOSTNAME } from '../engine/samples/sampleCatalog.ts';
import type { SampleService } from '../engine/samples/sampleService.ts';

export interface ApiDeps {
  store: Store;
  portals: PortalService;
  skills: SkillService;
  jobs: JobService;
  jobEvents: JobEvents;
  logger: Logger;
  version: string;
  /** The address the server binds; Host headers must name it or loopback. */
  boundHost: string;
  /** Extra Host names to accept (for an operator binding 0.0.0.0). */
  allowedHosts?: readonly string[];
  /** Browser origins trusted to open a `cdp_url` (settings `cdp_allowed_origins`); default none. */
  cdpAllowedOrigins?: () => readonly string[];
  /** The built console; served at `/`. */
  rendererDir: string;
  /** Live-view pages (`/live/<token>`) of job and profile-login browsers. */
  liveViews: LiveViewHub;
  /** Browser profiles and their login sessions (§4.3). */
  profiles: ProfileService;
  /** The operator console's token: requests carrying it act as the console. */
  consoleAuth: ConsoleAuth;
  /** `/admin/*` routes (console token only). */
  admin: AdminDeps;
  /** Signing keys and the delivery log (local-service.md §4). */
  webhooks: { keys: WebhookKeyService; dispatcher: WebhookDispatcher };
  /** `/public/sessions` and their CDP URLs (local-service.md §5.2). */
  sessions: SessionService;
  /** `/public/single-actions` (local-service.md §5.3). */
  actions: ActionService;
  /** `/public/connected-accounts` and the loopback `/oauth/callback` (local-service.md §5.4). */
  connectedAccounts: ConnectedAccountService;
  /** `/public/workflows` and their executions (local-service.md §5.5). */
  workflows: WorkflowService;
  /** `/public/credentials`, phone numbers and pushed codes (local-service.md §5.4). */
  credentials: CredentialService;
  /** `/documents/{org_id}` bundles (local-service.md §7). */
  documents: DocumentService;
  /** `POST /documents/{org_id}/{id}/extract` (local-service.md §7). */
  documentExtract: ExtractionPreviewer;
  /** The sample portals and the sample site at `/samples/…` (docs/api.md, "Samples"); `origin` is the service's own URL once it listens. */
  samples: { service: SampleService; origin(): string };
  /** Requests a minute per API key (docs/api.md, "Limits and quotas"); absent: unlimited. */
  rateLimit?: RateLimitOptions;
}

/** The HTTP API, not yet listening, and the operations it serves. */
export interface ApiServer {
  server: FastifyInstance;
  routes: readonly AnyRouteSpec[];
}

/** One handler per declared operation (contract/operations.ts): leaving one out does not compile. */
function handlersOf(deps: ApiDeps): Handlers<OperationName> {
  return {
    ...healthHandlers(deps.version),
    ...portalHandlers(deps.portals),
    ...skillHandlers(deps.skills),
    ...jobHandlers(deps.jobs, deps.jobEvents, deps.store),
    ...webhookHandlers(deps.store, deps.webhooks.keys, deps.webhooks.dispatcher),
    ...adminHandlers(deps.admin),
    ...profileHandlers(deps.profiles),
    ...liveViewHandlers(deps.liveViews, {
      logger: deps.logger,
      onInput: (token) => deps.profiles.sessions.noteInput(token),
    }),
    ...sessionHandlers(deps.sessions),
    ...singleActionHandlers(deps.actions),
    ...connectedAccountHandlers(deps.connectedAccounts),
    ...workflowHandlers(deps.workflows),
    ...credentialHandlers(deps.credentials),
    ...documentHandlers(deps.documents, deps.documentExtract),
    ...sampleHandlers(deps.samples.service, deps.samples.origin),
  };
}

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
/** The shape of both of Fastify's compiler factories (its types name each package's own). */
type CompilerFactory = (externalSchemas: unknown, options: unknown) => (route: unknown) => unknown;

/** `load()`'s factory, called with the same arguments, but only when the first schema is compiled. */
function factoryOnFirstCompile(load: () => CompilerFactory): CompilerFactory {
  return (externalSchemas, options) => {
    let compile: ((route: unknown) => unknown) | undefined;
    return (route) => {
      compile ??= load()(externalSchemas, options);
      return compile(route);
    };
  };
}

/**
 * Fastify's own schema compilers, loaded at their first compile rather than in Fastify's constructor,
 * which requires both (~70 modules with Ajv, before the service can listen; docs/performance.md,
 * "Start-up"): the packages Fastify would load, resolved from Fastify, with the same arguments.
 * Routes validate with zod (validation.ts), so the validator compiler is never used; the serializer
 * compiles at a route's first response (routeTable.ts, `reply.serializeInput`).
 */
function compilersOnFirstUse(): CompilersFactory {
  const fromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'));
  const selector = (name: string) => () => (fromFastify(name) as () => CompilerFactory)();
  return {
    buildValidator: factoryOnFirstCompile(selector('@fastify/ajv-compiler')),
    buildSerializer: factoryOnFirstCompile(selector('@fastify/fast-json-stringify-compiler')),
  } as CompilersFactory;
}

/** Builds the HTTP API (not yet listening): one route table, from the contract's operations, feeds routing and OpenAPI alike. */
export async function buildServer(deps: ApiDeps): Promise<ApiServer> {
  // requireHostHeader off: Node would answer a Host-less HTTP/1.1 request with an empty 400; the host guard answers it with {detail}.
  // Fastify logs through the service's own pino (redacted, base/logger.ts): its start line and what it
  // reports itself. No line per request, and no child logger per request either (request.log is this one).
  const pino: FastifyBaseLogger | undefined = pinoOf(deps.logger);
  const app = Fastify({
    ...(pino
      ? {
          loggerInstance: pino,
          logController: new LogController({ disableRequestLogging: true }),
          childLoggerFactory: (logger: FastifyBaseLogger) => logger,
        }
      : { logger: false }),
    bodyLimit: 10 * 1024 * 1024,
    forceCloseConnections: true,
    http: { requireHostHeader: false },
    schemaController: { compilersFactory: compilersOnFirstUse() },
    ...frameworkErrorOptions,
  });
  installErrorHandler(app, deps.logger);
  installJsonBodyParser(app);
  installHostGuard(app, deps.boundHost, deps.allowedHosts, [
    { hostname: SAMPLE_SITE_HOSTNAME, pathPrefix: '/samples/' },
  ]);
  await app.register(multipart, { throwFileSizeLimit: true });
  // Before the routes and after the host guard (a refused Host is not counted): rateLimit.ts.
  if (deps.rateLimit) installRateLimit(app, deps.rateLimit);

  const routes = operationTable(handlersOf(deps));
  const cdpProxy = installCdpProxy(app.server, (token) => deps.sessions.cdpTarget(token), {
    hostProblem: hostChecker(deps.boundHost, deps.allowedHosts),
    allowedOrigins: deps.cdpAllowedOrigins ?? (() => []),
  });
  // Closing the server ends the clients' CDP connections (the sessions themselves end later, in their own turn).
  app.addHook('preClose', (done) => {
    cdpProxy.disconnectAll();
    done();
  });
  installSamplesSite(app, deps.samples.service);
  routes.register(app, deps.store.apiKeys, deps.consoleAuth);
  // MCP over Streamable HTTP: JSON-RPC for assistants, beside the route table (docs/decisions.md).
  installMcpEndpoint(app, { apiKeys: deps.store.apiKeys, logger: deps.logger, version: deps.version });

  // Built at its first request, not at start (~15 ms of zod-to-JSON-Schema conversions; docs/performance.md).
  let openApi: Promise<unknown> | undefined;
  app.get(
    '/openapi.json',
    () => (openApi ??= import('./openapi.ts').then(({ buildOpenApi }) => buildOpenApi(routes.routes, deps.version))),
  );
  installConsole(app, deps.rendererDir);
  return { server: app, routes: routes.routes };
}
