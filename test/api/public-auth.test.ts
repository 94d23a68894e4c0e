import { describe, expect } from 'vitest';
import { openStore } from '../../src-main/store/store.ts';
import { cli } from '../helpers/cli.ts';
import { jsonOf, type TestService } from '../helpers/service.ts';
import { test } from '../helpers/fixtures.ts';

describe('/public routes take account keys, and membership is checked on every request', () => {
  /** Every /public route of the route table, with placeholder ids: authentication comes before anything else. */
  const publicCalls = (svc: TestService) =>
    svc.app.routes
      .filter((route) => route.path.startsWith('/public/'))
      .map((route) => ({
        method: route.method,
        path: route.path.replace(/:(\w+)/g, '00000000-0000-4000-8000-000000000000'),
        auth: route.auth,
      }));

  test('every /public route is an account route', ({ svc }) => {
    const calls = publicCalls(svc);
    expect(calls.length).toBeGreaterThanOrEqual(4);
    expect(calls.filter((call) => call.auth !== 'account')).toEqual([]);
  });

  test('an org key on any /public route is 403 This endpoint requires an account API key; no key or a wrong one is 401', async ({
    svc,
  }) => {
    for (const call of publicCalls(svc)) {
      const withBody = call.method !== 'GET' && call.method !== 'DELETE' ? { json: {} } : {};
      expect(
        await jsonOf(await svc.api(call.path, { method: call.method, key: svc.orgKey, ...withBody })),
        `${call.method} ${call.path}`,
      ).toEqual({ status: 403, body: { detail: 'This endpoint requires an account API key' } });
      expect(await jsonOf(await svc.api(call.path, { method: call.method, key: null, ...withBody }))).toEqual({
        status: 401,
        body: { detail: 'Invalid API key' },
      });
      expect(
        await jsonOf(await svc.api(call.path, { method: call.method, key: 'pk_acct_nonsense', ...withBody })),
      ).toEqual({ status: 401, body: { detail: 'Invalid API key' } });
    }
  });

  test('remove-member takes effect on the very next request, on every /public route; add-member restores it', async ({
    svc,
  }) => {
    const key = String((await cli(svc.dataDir, ['user', 'create', 'mallory', '--workspace', 'crew'])).json.api_key);
    expect((await svc.send('listSessions', {}, { key })).status).toBe(200);
    expect((await cli(svc.dataDir, ['workspace', 'remove-member', 'crew', 'mallory'])).json).toEqual({ ok: true });
    for (const call of publicCalls(svc)) {
      const withBody = call.method !== 'GET' && call.method !== 'DELETE' ? { json: {} } : {};
      // Interface §7 has its own text for the workflow executions listing.
      const detail =
        call.method === 'GET' && /^\/public\/workflows\/[^/]+$/.test(call.path)
          ? "User mallory is not a member of the workflow's workspace"
          : 'Not a member of this workspace';
      expect(
        await jsonOf(await svc.api(call.path, { method: call.method, key, ...withBody })),
        `${call.method} ${call.path}`,
      ).toEqual({ status: 403, body: { detail } });
    }
    expect((await cli(svc.dataDir, ['workspace', 'add-member', 'crew', 'mallory'])).json).toEqual({ ok: true });
    expect((await svc.send('listSessions', {}, { key })).status).toBe(200);
  });

  test('an account key is never an org key: org routes refuse it', async ({ svc }) => {
    expect(await svc.send('listPortals', { params: { org_id: 'default' } }, { key: svc.accountKey })).toEqual({
      status: 403,
      body: { detail: 'This endpoint requires an organization API key' },
    });
  });

  test('user create puts a new workspace in the org given by --org (default: default); a workspace never changes org', async ({
    svc,
  }) => {
    expect((await cli(svc.dataDir, ['org', 'create', 'acme'])).code).toBe(0);
    const made = await cli(svc.dataDir, ['user', 'create', 'wile', '--workspace', 'desert', '--org', 'acme']);
    expect(made).toMatchObject({ code: 0, json: { user_id: 'wile', workspace_id: 'desert', org_id: 'acme' } });
    const plain = await cli(svc.dataDir, ['user', 'create', 'road', '--workspace', 'plains']);
    expect(plain.json).toMatchObject({ workspace_id: 'plains', org_id: 'default' });
    const moved = await cli(svc.dataDir, ['user', 'create', 'road', '--workspace', 'desert', '--org', 'default']);
    expect(moved.code).not.toBe(0);
    expect(moved.json).toEqual({ detail: "Workspace 'desert' belongs to organization 'acme'" });
    // Without --org an existing workspace keeps its own org.
    expect((await cli(svc.dataDir, ['user', 'create', 'bird', '--workspace', 'desert'])).json).toMatchObject({
      workspace_id: 'desert',
      org_id: 'acme',
    });
    const noOrg = await cli(svc.dataDir, ['user', 'create', 'road', '--workspace', 'nowhere', '--org', 'no-such-org']);
    expect(noOrg.code).not.toBe(0);
    expect(String(noOrg.json.detail)).toContain('no-such-org');
    // Nothing half-written by the refused commands.
    const store = openStore(`${svc.dataDir}/portico.db`);
    try {
      expect(store.principals.workspaceExists('nowhere')).toBe(false);
      expect(store.principals.isMember('desert', 'road')).toBe(false);
      expect(store.principals.workspaceOrg('desert')).toBe('acme');
      expect(store.principals.workspaceOrg('default')).toBe('default');
    } finally {
      store.close();
    }
  });

  test("a session's profile must belong to the workspace's org: another org's profile reads as not found", async ({
    svc,
  }) => {
    const acmeOrgKey = String((await cli(svc.dataDir, ['key', 'create', '--org', 'acme'])).json.api_key);
    const acmeUser = String(
      (await cli(svc.dataDir, ['user', 'create', 'coyote', '--workspace', 'canyon', '--org', 'acme'])).json.api_key,
    );
    const store = openStore(`${svc.dataDir}/portico.db`);
    const now = new Date().toISOString();
    try {
      store.profiles.insert({
        id: '11111111-1111-4111-8111-111111111111',
        org_id: 'default',
        name: 'mine',
        provider_profile_id: 'p1',
        created_at: now,
        updated_at: now,
      });
    } finally {
      store.close();
    }
    expect(acmeOrgKey).toMatch(/^pk_org_/);
    expect(
      await svc.send(
        'createSession',
        { body: { profile_id: '11111111-1111-4111-8111-111111111111' } },
        { key: acmeUser },
      ),
    ).toEqual({ status: 404, body: { detail: 'Profile not found' } });
    expect(((await svc.send('listSessions', {}, { key: acmeUser })).body as { total: number }).total).toBe(0);
  });
});
