// tier: unit
import { describe, expect, it } from 'vitest';
import { operationTable, type Handler, type Handlers } from '../../src-main/api/operationTable.ts';
import { operations, type OperationName, type OperationsTagged } from '../../src-main/contract/operations.ts';

const portal = { endpoint_name: 'p', start_url: 'http://127.0.0.1:9/', task: 't' };

/**
 * Type-level specification, checked by `tsc` (npm test type-checks the tests), never run: the handler
 * map of a group of operations must name each of them once, with the types of its declaration. Each
 * `@ts-expect-error` fails the typecheck if the line below it ever compiles.
 */
// biome-ignore lint/suspicious/noExportsInTest: a type-level spec that tsc checks and nothing runs; the export marks it as deliberately uncalled
export function handlerMapTypeErrors(list: () => never[]): void {
  const complete: Handlers<OperationsTagged<'portals'>> = {
    createPortal: ({ params, body }) => ({ ...portal, ...body, org_id: params.org_id }) as never,
    listPortals: () => list(),
    getPortal: () => portal as never,
    updatePortal: () => portal as never,
    deletePortal: () => undefined,
  };
  // @ts-expect-error a missing handler: deletePortal is declared, so the map must have it
  const missing: Handlers<OperationsTagged<'portals'>> = {
    createPortal: complete.createPortal,
    listPortals: complete.listPortals,
    getPortal: complete.getPortal,
    updatePortal: complete.updatePortal,
  };
  const extra: Handlers<OperationsTagged<'portals'>> = {
    ...complete,
    // @ts-expect-error an extra handler: no operation of the group is called archivePortal
    archivePortal: () => undefined,
  };
  // @ts-expect-error a mistyped result: listPortals answers a PortalList (an array), not an object
  const wrongResult: Handler<'listPortals'> = () => ({ portals: [] });
  // @ts-expect-error a 204 operation returns no body
  const bodyOn204: Handler<'deletePortal'> = () => ({ deleted: true });
  // @ts-expect-error a handler reads only the declared path parameters: getPortal has no skill_id
  const wrongParam: Handler<'getPortal'> = ({ params }) => params.skill_id;
  // @ts-expect-error the principal follows the declared auth: an org operation has no workspace
  const wrongPrincipal: Handler<'listPortals'> = ({ principal }) => principal.workspaceId;
  // @ts-expect-error the whole API: a map without the portal handlers is not Handlers<OperationName>
  const api: Handlers<OperationName> = { ...({} as Handlers<Exclude<OperationName, OperationsTagged<'portals'>>>) };
  void [missing, extra, wrongResult, bodyOn204, wrongParam, wrongPrincipal, api];
}

describe('the handler map', () => {
  it('every declared operation belongs to exactly one tag, and the tags are the route groups', () => {
    const tags = [...new Set(Object.values(operations).map((op) => op.tag))].sort();
    expect(tags).toEqual([
      'admin',
      'connected-accounts',
      'credentials',
      'documents',
      'jobs',
      'live view',
      'meta',
      'portals',
      'profiles',
      'samples',
      'sessions',
      'single-actions',
      'skills',
      'webhooks',
      'workflows',
    ]);
  });

  it('a map that lacks a handler at run time (a cast, or plain JavaScript) is refused before anything registers', () => {
    const handlers = Object.fromEntries(
      Object.keys(operations).map((name) => [name, () => undefined]),
    ) as unknown as Record<string, unknown>;
    expect(operationTable(handlers as unknown as Handlers<OperationName>).routes).toHaveLength(
      Object.keys(operations).length,
    );
    delete handlers.deletePortal;
    expect(() => operationTable(handlers as unknown as Handlers<OperationName>)).toThrow(
      'operation deletePortal has no handler',
    );
  });
});
