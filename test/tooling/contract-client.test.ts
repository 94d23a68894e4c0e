import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeName } from '../../src-main/api/routeTable.ts';
import { createApiClient, operationPath, type OperationRequest } from '../../src-main/contract/client.ts';
import { operationRoutes, type OperationName } from '../../src-main/contract/operationRoutes.ts';
import { operations } from '../../src-main/contract/operations.ts';
import { startService, type TestService } from '../helpers/service.ts';

const names = Object.keys(operationRoutes) as OperationName[];

describe('the console client is the route table, by operation', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startService();
  });
  afterAll(async () => {
    await svc?.dispose();
  });

  it('every client operation is a registered route, validated with the very same schema objects', () => {
    const byName = new Map(svc.app.routes.map((route) => [routeName(route), route]));
    const problems: string[] = [];
    for (const name of names) {
      const route = byName.get(operationRoutes[name]);
      if (!route) {
        problems.push(`${name}: no route ${operationRoutes[name]}`);
        continue;
      }
      const schemas: { params?: unknown; query?: unknown; body?: unknown; response?: unknown } = operations[name];
      for (const part of ['params', 'query', 'body', 'response'] as const) {
        if (schemas[part] !== route[part]) problems.push(`${name}: its ${part} schema is not the one ${operationRoutes[name]} uses`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('every route the console can reach has a client operation (the live view\'s token pages, the provider\'s /oauth/callback redirect and the /public API for scripts aside)', () => {
    const covered = new Set<string>(Object.values(operationRoutes));
    const missing = svc.app.routes.map(routeName).filter((name) => !/ \/(live|public|oauth)\//.test(name) && !covered.has(name));
    expect(missing).toEqual([]);
    expect(names.length).toBeGreaterThan(35);
  });

  it('builds paths from the route template, encoding each parameter, and appends only given query values', () => {
    expect(operationPath('getJobStatus', { params: { org_id: 'a b/c', endpoint_name: 'sign?up' }, query: { job_id: 'j#1' } }))
      .toBe('/task/a%20b%2Fc/sign%3Fup/status?job_id=j%231');
    expect(operationPath('listJobs', { params: { org_id: 'o' }, query: { status: 'failed', limit: 5, endpoint_name: undefined } })).toBe('/jobs/o?status=failed&limit=5');
    expect(operationPath('listOrgs')).toBe('/admin/orgs');
    // A missing path parameter is a bug in the caller, never a request to `/portals/undefined`.
    expect(() => operationPath('getPortal', { params: { org_id: 'o', endpoint_name: '' } })).toThrow(/endpoint_name is missing/);
  });

  it('round-trips real requests through the service: bodies, parameters and typed results', async () => {
    const sent: OperationRequest[] = [];
    const client = createApiClient(async (request) => {
      sent.push(request);
      const response = await fetch(`${svc.url}${request.path}`, {
        method: request.method,
        headers: { 'x-console-token': svc.consoleToken, ...(request.body !== undefined && { 'content-type': 'application/json' }) },
        ...(request.body !== undefined && { body: JSON.stringify(request.body) }),
      });
      if (!response.ok) throw new Error(`${response.status} ${await response.text()}`);
      return response.status === 204 ? undefined : response.json();
    });
    const org = await client.call('createOrg', { body: { org_id: 'client-org', name: 'Client org' } });
    expect(org).toMatchObject({ id: 'client-org', name: 'Client org' });
    const portal = await client.call('createPortal', {
      params: { org_id: 'client-org' },
      body: { endpoint_name: 'client-portal', start_url: 'http://127.0.0.1:9/form', task: 'script:visit', form_schema: { type: 'object', properties: {} } },
    });
    expect(portal.endpoint_name).toBe('client-portal');
    const fetched = await client.call('getPortal', { params: { org_id: 'client-org', endpoint_name: 'client-portal' } });
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
