import { readFileSync } from 'node:fs';
import { describe, expect } from 'vitest';
import { generateRoutes, routesPath } from '../../scripts/build-routes.ts';
import { routeName } from '../../src-main/api/routeTable.ts';
import { createApiClient, operationPath, type OperationRequest } from '../../src-main/contract/client.ts';
import { operationRoutes } from '../../src-main/contract/generated/operationRoutes.ts';
import { operations, type OperationName } from '../../src-main/contract/operations.ts';

import { test } from '../helpers/fixtures.ts';

const names = Object.keys(operations) as OperationName[];

describe("the console's route map is generated from the declarations", () => {
  test('the committed generated/operationRoutes.ts is what a fresh build gives (run npm run build:routes)', () => {
    expect(readFileSync(routesPath, 'utf8')).toBe(generateRoutes());
  });

  test('names every declared operation as METHOD /path', () => {
    expect(Object.keys(operationRoutes)).toEqual(names);
    for (const name of names) expect(operationRoutes[name]).toBe(`${operations[name].method} ${operations[name].path}`);
  });
});

describe('the server registers each declared operation, and the client reaches it', () => {
  test("registers exactly the declared operations, each under its name with the declaration's very schema objects", ({
    svc,
  }) => {
    const routes = svc.app.routes;
    expect(routes.map((route) => route.operationId)).toEqual(names);
    const problems: string[] = [];
    for (const route of routes) {
      const declared: {
        path: string;
        method: string;
        params?: unknown;
        query?: unknown;
        body?: unknown;
        response?: unknown;
      } = operations[route.operationId as OperationName];
      if (routeName(route) !== `${declared.method} ${declared.path}`)
        problems.push(`${route.operationId}: registered as ${routeName(route)}`);
      for (const part of ['params', 'query', 'body', 'response'] as const) {
        if (declared[part] !== route[part])
          problems.push(`${route.operationId}: its ${part} schema is not the declared one`);
      }
    }
    expect(problems).toEqual([]);
    expect(new Set(routes.map(routeName)).size).toBe(routes.length);
  });

  test('every path parameter of a path template is a field of its params schema, and the other way round', () => {
    const problems: string[] = [];
    for (const name of names) {
      const declared: { path: string; params?: { shape?: Record<string, unknown> } } = operations[name];
      const inPath = [...declared.path.matchAll(/:(\w+)/g)].map(([, key = '']) => key).sort();
      const inSchema = Object.keys(declared.params?.shape ?? {}).sort();
      if (inPath.join() !== inSchema.join())
        problems.push(`${name}: path ${inPath.join()} vs params ${inSchema.join()}`);
    }
    expect(problems).toEqual([]);
  });

  test('builds paths from the route template, encoding each parameter, and appends only given query values', () => {
    expect(
      operationPath('getJobStatus', {
        params: { org_id: 'a b/c', endpoint_name: 'sign?up' },
        query: { job_id: 'j#1' },
      }),
    ).toBe('/task/a%20b%2Fc/sign%3Fup/status?job_id=j%231');
    expect(
      operationPath('listJobs', {
        params: { org_id: 'o' },
        query: { status: 'failed', limit: 5, endpoint_name: undefined },
      }),
    ).toBe('/jobs/o?status=failed&limit=5');
    expect(operationPath('listOrgs')).toBe('/admin/orgs');
    // A missing path parameter is a bug in the caller, never a request to `/portals/undefined`.
    expect(() => operationPath('getPortal', { params: { org_id: 'o', endpoint_name: '' } })).toThrow(
      /endpoint_name is missing/,
    );
  });

  test('round-trips real requests through the service: bodies, parameters and typed results', async ({ svc }) => {
    const sent: OperationRequest[] = [];
    const client = createApiClient(async (request) => {
      sent.push(request);
      const response = await fetch(`${svc.url}${request.path}`, {
        method: request.method,
        headers: {
          'x-console-token': svc.consoleToken,
          ...(request.body !== undefined && { 'content-type': 'application/json' }),
        },
        ...(request.body !== undefined && { body: JSON.stringify(request.body) }),
      });
      if (!response.ok) throw new Error(`${response.status} ${await response.text()}`);
      return response.status === 204 ? undefined : response.json();
    });
    const org = await client.call('createOrg', { body: { org_id: 'client-org', name: 'Client org' } });
    expect(org).toMatchObject({ id: 'client-org', name: 'Client org' });
    const portal = await client.call('createPortal', {
      params: { org_id: 'client-org' },
      body: {
        endpoint_name: 'client-portal',
        start_url: 'http://127.0.0.1:9/form',
        task: 'script:visit',
        form_schema: { type: 'object', properties: {} },
      },
    });
    expect(portal.endpoint_name).toBe('client-portal');
    const fetched = await client.call('getPortal', {
      params: { org_id: 'client-org', endpoint_name: 'client-portal' },
    });
    expect(fetched.start_url).toBe('http://127.0.0.1:9/form');
    await client.call('deletePortal', { params: { org_id: 'client-org', endpoint_name: 'client-portal' } });
    expect(await client.call('listPortals', { params: { org_id: 'client-org' } })).toEqual([]);
    const { orgs } = await client.call('listOrgs');
    expect(orgs.map((o) => o.id)).toContain('client-org');
    expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /admin/orgs',
      'POST /portals/client-org',
      'GET /portals/client-org/client-portal',
      'DELETE /portals/client-org/client-portal',
      'GET /portals/client-org',
      'GET /admin/orgs',
    ]);
  });
});
