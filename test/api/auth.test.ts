import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations } from '../../src-main/contract/operations.ts';
import { cli } from '../helpers/cli.ts';
import { jsonOf, startService, type TestService } from '../helpers/service.ts';

describe('API keys and organization isolation', () => {
  let svc: TestService;
  let otherKey: string;

  beforeAll(async () => {
    svc = await startService();
    otherKey = String((await cli(svc.dataDir, ['org', 'create', 'rival'])).json.api_key);
    await svc.api('/portals/rival', {
      method: 'POST',
      key: otherKey,
      json: { endpoint_name: 'secret-portal', start_url: 'https://r.test', task: 'hidden' },
    });
  });
  afterAll(() => svc.dispose());

  it('a request without a key is 401 Invalid API key', async () => {
    expect(await jsonOf(await svc.api('/portals/default', { key: null }))).toEqual({
      status: 401,
      body: { detail: 'Invalid API key' },
    });
  });

  it('an unknown key is 401 Invalid API key', async () => {
    expect(await jsonOf(await svc.api('/portals/default', { key: 'pk_org_nonsense' }))).toEqual({
      status: 401,
      body: { detail: 'Invalid API key' },
    });
  });

  it('a revoked key stops working, another key of the org keeps working', async () => {
    const created = await cli(svc.dataDir, ['key', 'create', '--org', 'default']);
    expect(created.code).toBe(0);
    const key = String(created.json.api_key);
    expect((await svc.api('/portals/default', { key })).status).toBe(200);
    expect((await cli(svc.dataDir, ['key', 'revoke', String(created.json.id)])).json).toEqual({ revoked: true });
    expect(await jsonOf(await svc.api('/portals/default', { key }))).toEqual({
      status: 401,
      body: { detail: 'Invalid API key' },
    });
    expect((await svc.api('/portals/default')).status).toBe(200);
  });

  it("a key revoked from the console (in the service's own process) fails on the very next request, though it was cached", async () => {
    const created = await cli(svc.dataDir, ['key', 'create', '--org', 'default']);
    const key = String(created.json.api_key);
    for (let i = 0; i < 3; i += 1) expect((await svc.api('/portals/default', { key })).status).toBe(200);
    const revoked = await svc.api(`/admin/orgs/default/keys/${String(created.json.id)}/revoke`, {
      method: 'POST',
      key: null,
      headers: { 'x-console-token': svc.app.consoleToken },
    });
    expect(revoked.status).toBe(200);
    expect(await jsonOf(await svc.api('/portals/default', { key }))).toEqual({
      status: 401,
      body: { detail: 'Invalid API key' },
    });
  });

  // The full matrix (every route × every wrong key) is test/hostile/cross-org.test.ts.
  it('an org only lists its own portals', async () => {
    const names = ((await jsonOf(await svc.api('/portals/default'))).body as { endpoint_name: string }[]).map(
      (p) => p.endpoint_name,
    );
    expect(names).not.toContain('secret-portal');
  });

  it('an account key is refused on organization routes', async () => {
    expect(await jsonOf(await svc.api('/portals/default', { key: svc.accountKey }))).toEqual({
      status: 403,
      body: { detail: 'This endpoint requires an organization API key' },
    });
  });

  it('keys are stored hashed, never in the clear', async () => {
    const { openStore } = await import('../../src-main/store/store.ts');
    const store = openStore(`${svc.dataDir}/portico.db`);
    const rows = store.db
      .prepare<[], { key_hash: string; prefix: string }>('SELECT key_hash, prefix FROM api_keys')
      .all();
    store.close();
    expect(rows.length).toBeGreaterThan(1);
    for (const row of rows) {
      expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(row.key_hash).not.toContain(svc.orgKey);
      expect(svc.orgKey.startsWith(row.prefix) || !row.prefix.startsWith('pk_org_') || row.prefix.length < 20).toBe(
        true,
      );
    }
  });
});

describe('HTTP surface', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startService();
  });
  afterAll(() => svc.dispose());

  it('GET /health answers without a key', async () => {
    expect(await jsonOf(await svc.api('/health', { key: null }))).toEqual({
      status: 200,
      body: { status: 'ok', version: expect.any(String) },
    });
  });

  it('a foreign Host header is refused (DNS-rebinding guard)', async () => {
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${svc.url}/health`, { headers: { host: 'attacker.example' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(403);
  });

  it('the Host header is parsed strictly: a loopback name followed by anything but :digits is refused', async () => {
    const { request } = await import('node:http');
    const answer = (host: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(`${svc.url}/health`, { headers: { host } }, (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => {
            body += chunk.toString();
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        req.end();
      });
    for (const host of [
      '127.0.0.1:1@evil.example',
      'localhost:evil',
      'localhost:80:80',
      'localhost:',
      'localhost.evil.example',
      '127.0.0.1 evil',
      '[::1]evil',
      'localhost:123456',
    ]) {
      const refused = await answer(host);
      expect(refused.status, host).toBe(403);
      expect(Object.keys(JSON.parse(refused.body) as object), host).toEqual(['detail']);
    }
    const port = new URL(svc.url).port;
    for (const host of [`127.0.0.1:${port}`, `LOCALHOST:${port}`, 'localhost', `[::1]:${port}`]) {
      expect((await answer(host)).status, host).toBe(200);
    }
  });

  it('a name allowed with allowedHosts (serve --allow-host) is accepted; others still are not', async () => {
    const { startApp } = await import('../../src-main/app.ts');
    const { makeDataDir, RENDERER_DIR, testConfig } = await import('../helpers/service.ts');
    const dir = await makeDataDir();
    const app = await startApp({
      config: testConfig(),
      dataDir: dir,
      port: 0,
      rendererDir: RENDERER_DIR,
      notice: () => undefined,
      warmBrowser: false,
      allowedHosts: ['portico.lan'],
    });
    try {
      const { request } = await import('node:http');
      const statusFor = (host: string) =>
        new Promise<number>((resolve, reject) => {
          const req = request(`${app.url}/health`, { headers: { host } }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          });
          req.on('error', reject);
          req.end();
        });
      expect(await statusFor(`portico.lan:${app.port}`)).toBe(200);
      expect(await statusFor('other.lan')).toBe(403);
    } finally {
      await app.close();
      const { rm } = await import('node:fs/promises');
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('localhost and 127.0.0.1 are both accepted as Host', async () => {
    const port = new URL(svc.url).port;
    expect((await fetch(`http://localhost:${port}/health`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
  });

  it('unknown routes are 404 with a detail', async () => {
    const res = await jsonOf(await svc.api('/no/such/route'));
    expect(res.status).toBe(404);
    expect(typeof (res.body as { detail: unknown }).detail).toBe('string');
  });

  it('a JSON route refuses other content types with 415', async () => {
    const res = await svc.api('/portals/default', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'hello',
    });
    expect(await jsonOf(res)).toEqual({ status: 415, body: { detail: 'Content-Type must be application/json' } });
  });

  it('GET /openapi.json describes every route with schemas from the contract', async () => {
    const doc = (await jsonOf(await svc.api('/openapi.json', { key: null }))).body as {
      openapi: string;
      paths: Record<
        string,
        Record<
          string,
          { requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> } }
        >
      >;
    };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/portals/{org_id}',
        '/portals/{org_id}/{endpoint_name}',
        '/skills/{org_id}',
        '/skills/{org_id}/{skill_id}',
        '/health',
      ]),
    );
    expect(Object.keys(doc.paths['/portals/{org_id}/{endpoint_name}'] ?? {}).sort()).toEqual([
      'delete',
      'get',
      'patch',
    ]);
    const createBody = doc.paths['/portals/{org_id}']?.post?.requestBody?.content['application/json']?.schema;
    expect(Object.keys(createBody?.properties ?? {})).toEqual(
      expect.arrayContaining([
        'endpoint_name',
        'start_url',
        'task',
        'form_schema',
        'output_schema',
        'skill_ids',
        'webhook_url',
        'assist_model',
      ]),
    );
    expect(doc.paths['/skills/{org_id}']?.post?.requestBody?.content['multipart/form-data']).toBeDefined();
  });

  it('GET /openapi.json names every operation (unique operationId, the declared name) and stays a valid OpenAPI 3.1 document', async () => {
    type Parameter = { name: string; in: string; required?: boolean; schema: object };
    type Operation = {
      operationId?: string;
      parameters: Parameter[];
      responses: Record<string, { content?: Record<string, { schema: object }> }>;
      requestBody?: { content: Record<string, { schema: object }> };
    };
    const doc = (await jsonOf(await svc.api('/openapi.json', { key: null }))).body as {
      openapi: string;
      info: { title: string; version: string };
      paths: Record<string, Record<string, Operation>>;
    };
    expect(doc.info.title).toBe('Portico');
    const ids: string[] = [];
    const schemas: object[] = [];
    for (const [path, methods] of Object.entries(doc.paths)) {
      // OpenAPI: a templated path names each parameter once, and every `{name}` is a required path parameter.
      const templated = [...path.matchAll(/\{(\w+)\}/g)].map(([, name = '']) => name).sort();
      for (const [method, operation] of Object.entries(methods)) {
        expect(['get', 'put', 'post', 'delete', 'patch']).toContain(method);
        ids.push(operation.operationId ?? `(none: ${method} ${path})`);
        const inPath = operation.parameters.filter((p) => p.in === 'path');
        expect(inPath.map((p) => p.name).sort(), `${method} ${path}`).toEqual(templated);
        expect(
          inPath.every((p) => p.required === true),
          `${method} ${path}`,
        ).toBe(true);
        expect(new Set(operation.parameters.map((p) => `${p.in}:${p.name}`)).size).toBe(operation.parameters.length);
        expect(Object.keys(operation.responses).length).toBeGreaterThan(0);
        schemas.push(...operation.parameters.map((p) => p.schema));
        for (const media of [
          ...Object.values(operation.responses).flatMap((r) => Object.values(r.content ?? {})),
          ...Object.values(operation.requestBody?.content ?? {}),
        ])
          schemas.push(media.schema);
      }
    }
    // operationIds: unique, usable as method names by generated clients, and exactly the declared operations.
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    expect(ids.every((id) => /^[a-z][A-Za-z0-9]*$/.test(id))).toBe(true);
    expect(ids.sort()).toEqual(Object.keys(operations).sort());
    // Every schema is valid JSON Schema 2020-12 (OpenAPI 3.1's dialect).
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    const invalid = schemas.filter((schema) => !ajv.validateSchema(schema));
    expect(invalid).toEqual([]);
  });

  it('GET /openapi.json publishes a success body schema for every route but the 204s', async () => {
    const doc = (await jsonOf(await svc.api('/openapi.json', { key: null }))).body as {
      paths: Record<
        string,
        Record<string, { responses: Record<string, { content?: Record<string, { schema?: object }> }> }>
      >;
    };
    for (const route of svc.app.routes) {
      const status = String(route.status ?? 200);
      const success = doc.paths[route.path.replace(/:(\w+)/g, '{$1}')]?.[route.method.toLowerCase()]?.responses[status];
      const contentType = route.response ? 'application/json' : route.produces?.type;
      if (status === '204') expect(success?.content, `${route.method} ${route.path}`).toBeUndefined();
      else expect(success?.content?.[contentType ?? '']?.schema, `${route.method} ${route.path}`).toBeDefined();
    }
    const status = doc.paths['/task/{org_id}/{endpoint_name}/status']?.get?.responses['200']?.content?.[
      'application/json'
    ]?.schema as { required?: string[] };
    expect(status.required).toEqual(expect.arrayContaining(['job_id', 'portal_id', 'status', 'events', 'log_url']));
  });
});
