import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonOf, startService, type TestService } from '../helpers/service.ts';

describe('operator console auth and /admin routes', () => {
  let svc: TestService;
  const asConsole = (token: string, json?: unknown): RequestInit & { key: null; json?: unknown } => ({
    key: null,
    headers: { 'x-console-token': token },
    ...(json !== undefined && { json }),
  });

  beforeAll(async () => {
    svc = await startService();
  });
  afterAll(async () => {
    await svc?.dispose();
  });

  it('admin routes need the console token: none or a wrong one is 401, an API key is not enough', async () => {
    expect(await svc.send('listOrgs', {}, { key: null })).toEqual({
      status: 401,
      body: { detail: 'Invalid console token' },
    });
    expect(await jsonOf(await svc.api('/admin/orgs', asConsole('ct_wrong')))).toEqual({
      status: 401,
      body: { detail: 'Invalid console token' },
    });
    expect((await svc.send('listOrgs')).status).toBe(401);
    const orgs = await jsonOf(await svc.api('/admin/orgs', asConsole(svc.consoleToken)));
    expect(orgs).toMatchObject({ status: 200, body: { orgs: [{ id: 'default', name: 'Default organization' }] } });
  });

  it('the console token acts on any existing org through the public org routes', async () => {
    const created = await svc.api('/portals/default', {
      ...asConsole(svc.consoleToken, { endpoint_name: 'by-console', start_url: 'http://127.0.0.1:9/', task: 't' }),
      method: 'POST',
    });
    expect(created.status).toBe(200);
    expect((await svc.send('getPortal', { params: { org_id: 'default', endpoint_name: 'by-console' } })).status).toBe(
      200,
    );
    expect(await jsonOf(await svc.api('/portals/nowhere', asConsole(svc.consoleToken)))).toEqual({
      status: 404,
      body: { detail: "Organization 'nowhere' not found" },
    });
    expect(await jsonOf(await svc.api('/portals/default', asConsole('ct_nope')))).toEqual({
      status: 401,
      body: { detail: 'Invalid console token' },
    });
  });

  it('an org API key is shown once at creation, listed without its secret, and stops working when revoked', async () => {
    const created = await jsonOf(
      await svc.api('/admin/orgs/default/keys', { ...asConsole(svc.consoleToken), method: 'POST' }),
    );
    expect(created.status).toBe(201);
    const key = created.body as { id: string; api_key: string; prefix: string };
    expect(key.api_key).toMatch(/^pk_org_/);
    expect((await svc.send('listPortals', { params: { org_id: 'default' } }, { key: key.api_key })).status).toBe(200);
    const listed = await jsonOf(await svc.api('/admin/orgs/default/keys', asConsole(svc.consoleToken)));
    expect(JSON.stringify(listed.body)).not.toContain(key.api_key);
    expect((listed.body as { keys: { id: string }[] }).keys.map((k) => k.id)).toContain(key.id);
    const revoked = await jsonOf(
      await svc.api(`/admin/orgs/default/keys/${key.id}/revoke`, { ...asConsole(svc.consoleToken), method: 'POST' }),
    );
    expect(revoked).toEqual({ status: 200, body: { revoked: true } });
    expect((await svc.send('listPortals', { params: { org_id: 'default' } }, { key: key.api_key })).status).toBe(401);
    expect(
      (await svc.api('/admin/orgs/other/keys/nope/revoke', { ...asConsole(svc.consoleToken), method: 'POST' })).status,
    ).toBe(404);
  });

  it("an org's account keys are listed with their workspace and user, and one is revoked by its id (not through another org)", async () => {
    const { cli } = await import('../helpers/cli.ts');
    expect((await cli(svc.dataDir, ['org', 'create', 'keyed'])).code).toBe(0);
    const made = await cli(svc.dataDir, ['user', 'create', 'dora', '--workspace', 'keyed-ws', '--org', 'keyed']);
    const accountKey = String(made.json.api_key);
    expect((await svc.send('listSessions', {}, { key: accountKey })).status).toBe(200);
    const listed = await jsonOf(await svc.api('/admin/orgs/keyed/keys', asConsole(svc.consoleToken)));
    const keys = (listed.body as { keys: Record<string, unknown>[] }).keys;
    const account = keys.find((key) => key.kind === 'account');
    expect(account).toMatchObject({
      org_id: 'keyed',
      workspace_id: 'keyed-ws',
      user_id: 'dora',
      revoked_at: null,
      prefix: accountKey.slice(0, 14),
    });
    expect(JSON.stringify(listed.body)).not.toContain(accountKey);
    const id = String(account?.id);
    // The default org neither lists nor revokes it.
    const defaults = (await jsonOf(await svc.api('/admin/orgs/default/keys', asConsole(svc.consoleToken)))).body as {
      keys: { id: string }[];
    };
    expect(defaults.keys.map((key) => key.id)).not.toContain(id);
    expect(
      await jsonOf(
        await svc.api(`/admin/orgs/default/keys/${id}/revoke`, { ...asConsole(svc.consoleToken), method: 'POST' }),
      ),
    ).toEqual({ status: 404, body: { detail: 'API key not found' } });
    expect(
      await jsonOf(
        await svc.api(`/admin/orgs/keyed/keys/${id}/revoke`, { ...asConsole(svc.consoleToken), method: 'POST' }),
      ),
    ).toEqual({ status: 200, body: { revoked: true } });
    expect(await svc.send('listSessions', {}, { key: accountKey })).toEqual({
      status: 401,
      body: { detail: 'Invalid API key' },
    });
  });

  it('settings show the data folder; concurrency changes; a Chromium path is checked by running it', async () => {
    const settings = await jsonOf(await svc.api('/admin/settings', asConsole(svc.consoleToken)));
    expect(settings).toMatchObject({ status: 200, body: { data_dir: svc.dataDir, job_concurrency: 2 } });
    const bad = await jsonOf(
      await svc.api('/admin/settings', {
        ...asConsole(svc.consoleToken, { chromium_path: '/nonexistent/chrome' }),
        method: 'PATCH',
      }),
    );
    expect(bad).toEqual({
      status: 422,
      body: { detail: 'body.chromium_path: /nonexistent/chrome does not exist or is not an executable file' },
    });
    const changed = await jsonOf(
      await svc.api('/admin/settings', {
        ...asConsole(svc.consoleToken, { job_concurrency: 3, chromium_path: '/usr/bin/chromium' }),
        method: 'PATCH',
      }),
    );
    expect(changed).toMatchObject({
      status: 200,
      body: {
        job_concurrency: 3,
        chromium: { configured_path: '/usr/bin/chromium', resolved_path: '/usr/bin/chromium', error: null },
      },
    });
    expect((changed.body as { chromium: { version: string } }).chromium.version).toMatch(/\d+\.\d+/);
  });

  it('a provider key is stored, reported as configured, tested and deleted', async () => {
    const put = await jsonOf(
      await svc.api('/admin/providers/anthropic', {
        ...asConsole(svc.consoleToken, { api_key: 'sk-test-123' }),
        method: 'PUT',
      }),
    );
    if (put.status === 503) return; // no keychain on this machine: covered by the secrets tests
    expect(put).toEqual({
      status: 200,
      body: {
        provider: 'anthropic',
        configured: true,
        base_url: 'https://api.anthropic.com',
        base_url_source: 'default',
      },
    });
    const list = await jsonOf(await svc.api('/admin/providers', asConsole(svc.consoleToken)));
    expect((list.body as { providers: { provider: string; configured: boolean }[] }).providers).toContainEqual(
      expect.objectContaining({ provider: 'anthropic', configured: true }),
    );
    // Never the real provider from a test: a local port nothing listens on (admin-providers.test.ts covers the rest).
    expect(
      (
        await svc.api('/admin/providers/anthropic', {
          ...asConsole(svc.consoleToken, { base_url: 'http://127.0.0.1:9' }),
          method: 'PUT',
        })
      ).status,
    ).toBe(200);
    const test = await jsonOf(
      await svc.api('/admin/providers/anthropic/test', { ...asConsole(svc.consoleToken), method: 'POST' }),
    );
    expect(
      (
        await svc.api('/admin/providers/anthropic', {
          ...asConsole(svc.consoleToken, { base_url: null }),
          method: 'PUT',
        })
      ).status,
    ).toBe(200);
    expect(test).toMatchObject({
      status: 200,
      body: {
        provider: 'anthropic',
        status: 'failed',
        detail: expect.stringMatching(/^Could not reach http:\/\/127\.0\.0\.1:9: /),
      },
    });
    expect(
      (await svc.api('/admin/providers/anthropic', { ...asConsole(svc.consoleToken), method: 'DELETE' })).status,
    ).toBe(204);
    const after = await jsonOf(await svc.api('/admin/providers', asConsole(svc.consoleToken)));
    expect((after.body as { providers: { provider: string; configured: boolean }[] }).providers).toContainEqual(
      expect.objectContaining({ provider: 'anthropic', configured: false }),
    );
  });
});
