import type { z } from 'zod';
import type { HttpMethod } from './declaration.ts';
import { operationRoutes } from './generated/operationRoutes.ts';
import type { OperationName, Operations } from './operations.ts';

export type { HttpMethod } from './declaration.ts';
export type { OperationName } from './operations.ts';

/** The empty object type: `NoFields extends T` holds when every field of T is optional. */
type NoFields = Record<never, never>;

type SchemaOf<N extends OperationName, Part extends 'params' | 'query' | 'body' | 'response'> = Operations[N] extends {
  readonly [P in Part]: infer S extends z.ZodType;
}
  ? S
  : undefined;

/** A part the caller sends: required unless every field of it is optional; absent when the operation has none. */
type Arg<Key extends string, S> = S extends z.ZodType
  ? NoFields extends z.input<S>
    ? { [K in Key]?: z.input<S> }
    : { [K in Key]: z.input<S> }
  : { [K in Key]?: never };

/** What a call of operation `N` takes: its path parameters, query and JSON body, typed by the route's own schemas. */
export type OperationArgs<N extends OperationName> = Arg<'params', SchemaOf<N, 'params'>> &
  Arg<'query', SchemaOf<N, 'query'>> &
  Arg<'body', SchemaOf<N, 'body'>>;

/** The JSON body operation `N` answers with (what the route serialized through its schema); undefined when it has none. */
export type OperationResponse<N extends OperationName> =
  SchemaOf<N, 'response'> extends infer R extends z.ZodType ? z.output<R> : undefined;

/** The arguments as a rest tuple: optional when the operation needs nothing the caller must give. */
export type ArgsTuple<N extends OperationName> =
  NoFields extends OperationArgs<N> ? [args?: OperationArgs<N>] : [args: OperationArgs<N>];

/** One request as the transport sends it: `path` includes the query string. */
export interface OperationRequest {
  method: HttpMethod;
  path: string;
  /** The JSON body, when the operation has one. */
  body?: unknown;
}

function splitRoute(name: OperationName): { method: HttpMethod; url: string } {
  const route = operationRoutes[name];
  const space = route.indexOf(' ');
  return { method: route.slice(0, space) as HttpMethod, url: route.slice(space + 1) };
}

const queryValue = (value: unknown): string =>
  typeof value === 'string'
    ? value
    : typeof value === 'number' || typeof value === 'boolean'
      ? String(value)
      : JSON.stringify(value);

/**
 * The path (and query string) of operation `N`: `:name` segments filled from `params`, each encoded, and
 * defined query values appended. For bodies the caller reads itself: files, streams, text, uploads.
 */
export function operationPath<N extends OperationName>(name: N, ...[args]: ArgsTuple<N>): string {
  const { url } = splitRoute(name);
  const params = (args?.params ?? {}) as Record<string, unknown>;
  const path = url.replace(/:(\w+)/g, (_whole, key: string) => {
    const value = params[key];
    if (value === undefined || value === null || value === '')
      throw new Error(`${name}: path parameter ${key} is missing`);
    return encodeURIComponent(queryValue(value));
  });
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries((args?.query ?? {}) as Record<string, unknown>)) {
    if (value !== undefined && value !== null) query.append(key, queryValue(value));
  }
  const search = query.toString();
  return search === '' ? path : `${path}?${search}`;
}

/** The method of operation `N`. */
export const operationMethod = (name: OperationName): HttpMethod => splitRoute(name).method;

/** Sends one request and resolves its parsed JSON body (undefined when there is none), or throws. */
export type Transport = (request: OperationRequest) => Promise<unknown>;

export interface ApiClient {
  /** Calls operation `N`; the result is typed by the route's response schema. */
  call<N extends OperationName>(name: N, ...args: ArgsTuple<N>): Promise<OperationResponse<N>>;
}

/** A client whose paths, parameters, bodies and results all come from the contract's operations. */
export function createApiClient(transport: Transport): ApiClient {
  return {
    async call<N extends OperationName>(name: N, ...args: ArgsTuple<N>): Promise<OperationResponse<N>> {
      const path = operationPath(name, ...args);
      const request: OperationRequest = { method: operationMethod(name), path };
      const body = args[0]?.body;
      if (body !== undefined) request.body = body;
      return (await transport(request)) as OperationResponse<N>;
    },
  };
}

/** The JSON body operation `N` takes, as a caller writes it (defaults may be left out). */
export type OperationBody<N extends OperationName> =
  SchemaOf<N, 'body'> extends infer S extends z.ZodType ? z.input<S> : never;
