import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { AuthMode, HttpMethod, ProducedBody } from '../contract/declaration.ts';
import type { ApiKeyRepository } from '../store/apiKeys.ts';
import {
  authenticate,
  consoleAsAccount,
  consoleAsOrg,
  hasConsoleToken,
  requireAccount,
  requireConsole,
  requireOrg,
  type AccountPrincipal,
  type ConsoleAuth,
  type ConsolePrincipal,
  type OrgPrincipal,
} from './auth.ts';
import { discriminatorTestSchemas, responseJsonSchema } from './responseSerializer.ts';
import { checkingResponses, parseInput, serializeOutput } from './validation.ts';
import { isDeepFrozen } from '../base/deepFreeze.ts';
import { UnsupportedMediaTypeError } from '../base/errors.ts';

/** What Fastify itself sends a JSON body as; the body arrives here already written (validation.ts serializeOutput). */
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

const isJson = (contentType: string | undefined): boolean =>
  /^application\/([\w.+-]+\+)?json\b/i.test(contentType ?? '');

type Principal<A extends AuthMode> = A extends 'org'
  ? OrgPrincipal
  : A extends 'account'
    ? AccountPrincipal
    : A extends 'console'
      ? ConsolePrincipal
      : undefined;

type Infer<S> = S extends z.ZodType ? z.output<S> : undefined;

type Awaitable<T> = T | Promise<T>;

/**
 * What a handler returns: the input of its response schema, which the table parses into the wire body,
 * or nothing when the route has no JSON body (204, or a body the handler wrote to `reply` itself).
 */
export type HandlerResult<R extends z.ZodType | undefined> = R extends z.ZodType ? z.input<R> : void;

export interface RouteContext<A extends AuthMode, P, Q, B> {
  principal: Principal<A>;
  params: Infer<P>;
  query: Infer<Q>;
  body: Infer<B>;
  request: FastifyRequest;
  reply: FastifyReply;
}

/**
 * One route: an operation's contract (validated, serialized and published in OpenAPI; the fields of
 * `contract/declaration.ts`) and its handler. Exactly one of: `response` (a JSON body the handler
 * returns), `status: 204` (no body), `produces` (a body the handler writes itself); the last two
 * handlers return nothing. The API's routes come from `contract/operations.ts` (`api/operationTable.ts`).
 */
export interface RouteSpec<
  A extends AuthMode,
  P extends z.ZodType | undefined,
  Q extends z.ZodType | undefined,
  B extends z.ZodType | undefined,
  R extends z.ZodType | undefined = undefined,
> {
  method: HttpMethod;
  /** Fastify path, e.g. `/portals/:org_id/:endpoint_name`. */
  path: string;
  /** The operation's name, published as OpenAPI `operationId`. */
  operationId?: string;
  summary: string;
  tag: string;
  auth: A;
  params?: P;
  query?: Q;
  /** JSON body schema; `multipart` documents a file upload read by the handler itself. */
  body?: B;
  multipart?: { readonly fileField: string };
  /** `route`: an account route whose handler checks workspace membership itself, to answer its own 403 (interface §7's workflow executions text). */
  membership?: 'route';
  /** Success status: 200 unless given; 204 has no body. */
  status?: number;
  /** The JSON success body: the handler's result is parsed through it (unknown keys stripped) before it is sent. */
  response?: R;
  /** A non-JSON success body, written by the handler. */
  produces?: ProducedBody;
  handler(ctx: RouteContext<A, P, Q, B>): Awaitable<NoInfer<HandlerResult<R>>>;
}

export type AnyRouteSpec = RouteSpec<
  AuthMode,
  z.ZodType | undefined,
  z.ZodType | undefined,
  z.ZodType | undefined,
  z.ZodType | undefined
>;

/** `GET /portals/:org_id`: how logs and tests name a route. */
export const routeName = (spec: Pick<AnyRouteSpec, 'method' | 'path'>): string => `${spec.method} ${spec.path}`;

function assertOneBodyKind(spec: AnyRouteSpec): void {
  const kinds = [spec.response !== undefined, spec.status === 204, spec.produces !== undefined].filter(Boolean).length;
  if (kinds !== 1)
    throw new Error(`${routeName(spec)}: declare exactly one of response (JSON), status 204 or produces`);
}

/** Collects route specs so the server registers them and OpenAPI describes the same set. */
export class RouteTable {
  readonly routes: AnyRouteSpec[] = [];

  add<
    A extends AuthMode,
    P extends z.ZodType | undefined,
    Q extends z.ZodType | undefined,
    B extends z.ZodType | undefined,
    R extends z.ZodType | undefined = undefined,
  >(spec: RouteSpec<A, P, Q, B, R>): void {
    const route = spec as unknown as AnyRouteSpec;
    assertOneBodyKind(route);
    this.routes.push(route);
  }

  /** Registers every route: authenticate, validate path, query and body, handle, then serialize the body through its schema. */
  register(app: FastifyInstance, apiKeys: ApiKeyRepository, consoleAuth?: ConsoleAuth): void {
    // The branch tests of the response schemas' discriminated unions, as external schemas: Fastify hands
    // them to fast-json-stringify, so a route's first body compiles a small test per branch with Ajv
    // rather than the route's whole schema (106-190 ms for a job's status). Added now: Fastify takes
    // shared schemas only before it is ready; the serializers themselves are still compiled at first use.
    const tests = discriminatorTestSchemas(this.routes.flatMap((spec) => (spec.response ? [spec.response] : [])));
    for (const [id, schema] of tests) if (app.getSchema(id) === undefined) app.addSchema(schema);
    const testIds: ReadonlySet<string> = new Set(tests.keys());
    for (const spec of this.routes) {
      const status = spec.status ?? 200;
      // The route's JSON Schema for fast-json-stringify, made at its first response (null keeps zod: validation.ts).
      let responseSchema: object | null | undefined;
      // The JSON text of answers a service keeps and serves again (deep-frozen: JobService.status, PortalService.list),
      // kept with the answer itself: a poll of an unchanged job is a lookup, not a serialization.
      const texts = new WeakMap<object, string>();
      app.route({
        method: spec.method,
        url: spec.path,
        handler: async (request, reply) => {
          let principal: OrgPrincipal | AccountPrincipal | ConsolePrincipal | undefined;
          const orgId = (request.params as Record<string, string | undefined>).org_id ?? '';
          if (spec.auth === 'console') {
            principal = requireConsole(request, consoleAuth);
          } else if (spec.auth === 'org' && hasConsoleToken(request)) {
            // The console uses the same org routes as scripts, as the local operator of any org.
            principal = consoleAsOrg(request, consoleAuth, orgId);
          } else if (spec.auth === 'account' && hasConsoleToken(request)) {
            // On /public the console acts for the operator's default workspace only (docs/decisions.md).
            principal = consoleAsAccount(request, consoleAuth);
          } else if (spec.auth !== 'none') {
            const presented = authenticate(request, apiKeys);
            if (spec.auth === 'org') {
              principal = requireOrg(presented, orgId);
            } else {
              principal = requireAccount(presented, spec.membership === 'route');
            }
          }
          const params = spec.params ? parseInput(spec.params, request.params, 'path') : undefined;
          const query = spec.query ? parseInput(spec.query, request.query ?? {}, 'query') : undefined;
          // A multipart upload leaves no parsed body behind: it must not pass for an empty JSON object.
          const contentType = request.headers['content-type'];
          if (spec.body && (request.body !== undefined || contentType !== undefined) && !isJson(contentType)) {
            throw new UnsupportedMediaTypeError('Content-Type must be application/json');
          }
          // No body at all stands for `{}`; a JSON `null` (or any non-object) is the schema's 422.
          const body = spec.body
            ? parseInput(spec.body, request.body === undefined ? {} : request.body, 'body')
            : undefined;
          const result = await spec.handler({ principal, params, query, body, request, reply } as RouteContext<
            AuthMode,
            z.ZodType,
            z.ZodType,
            z.ZodType
          >);
          if (spec.response) {
            // Only what the schema names goes out, and a body that breaks it is a 500, never half sent.
            reply.status(status);
            // The route's JSON Schema for fast-json-stringify (null keeps zod: validation.ts), which Fastify
            // compiles at the route's first response and keeps (reply.serializeInput), so a start compiles none.
            // Tests and development check every body (validation.ts), so nothing is kept while checking.
            const keep = isDeepFrozen(result) && !checkingResponses();
            let sent = keep ? texts.get(result) : undefined;
            if (sent === undefined) {
              if (responseSchema === undefined) responseSchema = responseJsonSchema(spec.response, testIds);
              const compiled = responseSchema;
              sent = serializeOutput(
                spec.response,
                result,
                routeName(spec),
                compiled
                  ? (value) =>
                      reply.serializeInput(value as Record<string, unknown>, compiled as Record<string, unknown>)
                  : undefined,
              );
              if (keep) texts.set(result, sent);
            }
            return reply.type(JSON_CONTENT_TYPE).send(sent);
          }
          if (spec.status === 204) return reply.status(204).send();
          // The handler sent or hijacked the reply; returning it makes Fastify wait for that body.
          return reply;
        },
      });
    }
  }
}
