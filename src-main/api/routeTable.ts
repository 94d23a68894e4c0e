import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { ApiKeyRepository } from '../store/apiKeys.ts';
import {
  authenticate, consoleAsOrg, hasConsoleToken, requireAccount, requireConsole, requireOrg,
  type AccountPrincipal, type AuthMode, type ConsoleAuth, type ConsolePrincipal, type OrgPrincipal,
} from './auth.ts';
import { parseInput } from './validation.ts';
import { UnsupportedMediaTypeError } from '../base/errors.ts';

const isJson = (contentType: string | undefined): boolean => /^application\/([\w.+-]+\+)?json\b/i.test(contentType ?? '');

type Principal<A extends AuthMode> = A extends 'org' ? OrgPrincipal : A extends 'account' ? AccountPrincipal : A extends 'console' ? ConsolePrincipal : undefined;

type Infer<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface RouteContext<A extends AuthMode, P, Q, B> {
  principal: Principal<A>;
  params: Infer<P>;
  query: Infer<Q>;
  body: Infer<B>;
  request: FastifyRequest;
  reply: FastifyReply;
}

/** One HTTP operation: its contract (validated and published in OpenAPI) and its handler. */
export interface RouteSpec<A extends AuthMode, P extends z.ZodType | undefined, Q extends z.ZodType | undefined, B extends z.ZodType | undefined> {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** Fastify path, e.g. `/portals/:org_id/:endpoint_name`. */
  url: string;
  summary: string;
  tag: string;
  auth: A;
  params?: P;
  query?: Q;
  /** JSON body schema; `multipart` documents a file upload read by the handler itself. */
  body?: B;
  multipart?: { fileField: string };
  /** Success status and body schema (status 204 has none). */
  status?: number;
  response?: z.ZodType;
  /** Content type of a non-JSON success body. */
  produces?: string;
  handler(ctx: RouteContext<A, P, Q, B>): unknown;
}

export type AnyRouteSpec = RouteSpec<AuthMode, z.ZodType | undefined, z.ZodType | undefined, z.ZodType | undefined>;

/** Collects route specs so the server registers them and OpenAPI describes the same set. */
export class RouteTable {
  readonly routes: AnyRouteSpec[] = [];

  add<A extends AuthMode, P extends z.ZodType | undefined, Q extends z.ZodType | undefined, B extends z.ZodType | undefined>(
    spec: RouteSpec<A, P, Q, B>,
  ): void {
    this.routes.push(spec as unknown as AnyRouteSpec);
  }

  /** Registers every route: authenticate, then validate path, query and body, then handle. */
  register(app: FastifyInstance, apiKeys: ApiKeyRepository, consoleAuth?: ConsoleAuth): void {
    for (const spec of this.routes) {
      app.route({
        method: spec.method,
        url: spec.url,
        handler: async (request, reply) => {
          let principal: OrgPrincipal | AccountPrincipal | ConsolePrincipal | undefined;
          const orgId = (request.params as Record<string, string | undefined>).org_id ?? '';
          if (spec.auth === 'console') {
            principal = requireConsole(request, consoleAuth);
          } else if (spec.auth === 'org' && hasConsoleToken(request)) {
            // The console uses the same org routes as scripts, as the local operator of any org.
            principal = consoleAsOrg(request, consoleAuth, orgId);
          } else if (spec.auth !== 'none') {
            const presented = authenticate(request, apiKeys);
            if (spec.auth === 'org') {
              principal = requireOrg(presented, orgId);
            } else {
              principal = requireAccount(presented);
            }
          }
          const params = spec.params ? parseInput(spec.params, request.params, 'path') : undefined;
          const query = spec.query ? parseInput(spec.query, request.query ?? {}, 'query') : undefined;
          if (spec.body && request.body !== undefined && !isJson(request.headers['content-type'])) {
            throw new UnsupportedMediaTypeError('Content-Type must be application/json');
          }
          const body = spec.body ? parseInput(spec.body, request.body ?? {}, 'body') : undefined;
          const result = await spec.handler({ principal, params, query, body, request, reply } as RouteContext<AuthMode, z.ZodType, z.ZodType, z.ZodType>);
          if (reply.sent) return reply;
          if (spec.status) reply.status(spec.status);
          return spec.status === 204 ? reply.send() : result;
        },
      });
    }
  }
}
