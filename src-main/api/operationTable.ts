import type { z } from 'zod';
import { operations, type OperationName, type Operations } from '../contract/operations.ts';
import { RouteTable, type AnyRouteSpec, type HandlerResult, type RouteContext } from './routeTable.ts';

type Part<N extends OperationName, K extends 'params' | 'query' | 'body' | 'response'> = Operations[N] extends {
  readonly [P in K]: infer S extends z.ZodType;
}
  ? S
  : undefined;

/** What the handler of operation `N` gets: its principal (by the operation's auth), parsed params, query and body, and the request. */
export type HandlerContext<N extends OperationName> = RouteContext<
  Operations[N]['auth'],
  Part<N, 'params'>,
  Part<N, 'query'>,
  Part<N, 'body'>
>;

/**
 * The handler of operation `N`: returns its response schema's input (a JSON operation), or nothing
 * (204, or a body it wrote to the reply itself).
 */
export type Handler<N extends OperationName> = (
  ctx: HandlerContext<N>,
) => HandlerResult<Part<N, 'response'>> | Promise<HandlerResult<Part<N, 'response'>>>;

/**
 * Exactly one handler for each operation of `N`: a missing, an extra or a mistyped handler is a compile
 * error. Each `api/routes/*` file returns the `Handlers` of its operations; `api/server.ts` joins them
 * into `Handlers<OperationName>`.
 */
export type Handlers<N extends OperationName> = { [K in N]: Handler<K> };

/** The route table of every declared operation, each with its handler. */
export function operationTable(handlers: Handlers<OperationName>): RouteTable {
  const table = new RouteTable();
  for (const name of Object.keys(operations) as OperationName[]) {
    const handler = handlers[name] as unknown;
    // Only a cast (or a plain JavaScript caller) gets here without one; never register half an API.
    if (typeof handler !== 'function') throw new Error(`operation ${name} has no handler`);
    table.add({ ...operations[name], operationId: name, handler } as AnyRouteSpec);
  }
  return table;
}
