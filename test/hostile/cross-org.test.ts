import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { routeName, type AnyRouteSpec } from '../../src-main/api/routeTable.ts';
import { openStore } from '../../src-main/store/store.ts';
import { cli } from '../helpers/cli.ts';
import { buildRawZip } from '../helpers/rawZip.ts';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { jsonOf, startService, waitForJob, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';

/**
 * The isolation matrix, generated from the route table: every route, called with every key that must
 * not reach it — another org's key, account keys on org routes and org keys on account routes, revoked
 * keys, another workspace's account key on this workspace's resources — is refused with 401, 403 or
 * 404 and the interface's exact text where it fixes one, and no answer carries the victim's data.
 */

const PLACEHOLDER_UUID = '00000000-0000-4000-8000-000000000000';
const INVALID_KEY = { status: 401, body: { detail: 'Invalid API key' } };
const ORG_KEY_REQUIRED = { status: 403, body: { detail: 'This endpoint requires an organization API key' } };
const ACCOUNT_KEY_REQUIRED = { status: 403, body: { detail: 'This endpoint requires an account API key' } };
const WRONG_ORG = (orgId: string) => ({
  status: 403,
  body: { detail: `API key does not belong to organization '${orgId}'` },
});

/** What the victim (org `default`, workspace `default`) stores; none of it may reach another tenant. */
const VICTIM_TEXT = [
  'the victim task text',
  'victim-bank',
  'victim@example.test',
  'victim-secret-1',
  '+15550001111',
  'victim-flow',
  'victim-skill',
  'victim-form-value',
];

const bodyCarrying = (route: AnyRouteSpec): boolean => route.method !== 'GET' && route.method !== 'DELETE';
const resourceParams = (route: AnyRouteSpec): string[] =>
  [...route.path.matchAll(/:(\w+)/g)].map(([, name = '']) => name).filter((name) => name !== 'org_id');
/** Whether a route names a job in its query (`?job_id=`): a resource id as much as a path parameter. */
const takesJobId = (route: AnyRouteSpec): boolean =>
  route.query instanceof z.ZodObject && 'job_id' in route.query.shape;
const requiresJobId = (route: AnyRouteSpec): boolean =>
  route.query instanceof z.ZodObject && !route.query.safeParse({}).success;

describe('cross-org and cross-workspace matrix (every route of the route table)', () => {
  let svc: TestService;
  let hooks: PageServer;
  /** Path values by parameter name: the victim's real resources where it has them. */
  const ids: Record<string, string> = { provider: 'anthropic', index: '0', token: 'no-such-token' };
  const keys: Record<'rivalOrg' | 'rivalAccount' | 'crewAccount' | 'revokedOrg' | 'revokedAccount', string> = {
    rivalOrg: '',
    rivalAccount: '',
    crewAccount: '',
    revokedOrg: '',
    revokedAccount: '',
  };
  const victimIds: string[] = [];

  beforeAll(async () => {
    svc = await startService();
    keys.rivalOrg = String((await cli(svc.dataDir, ['org', 'create', 'rival'])).json.api_key);
    keys.rivalAccount = String(
      (await cli(svc.dataDir, ['user', 'create', 'eve', '--workspace', 'rivals', '--org', 'rival'])).json.api_key,
    );
    // Same org, another workspace: workspaces are isolated from each other too.
    keys.crewAccount = String(
      (await cli(svc.dataDir, ['user', 'create', 'mallory', '--workspace', 'crew'])).json.api_key,
    );
    const orgKey = await cli(svc.dataDir, ['key', 'create', '--org', 'default']);
    keys.revokedOrg = String(orgKey.json.api_key);
    expect((await cli(svc.dataDir, ['key', 'revoke', String(orgKey.json.id)])).json).toEqual({ revoked: true });
    keys.revokedAccount = String(
      (await cli(svc.dataDir, ['user', 'create', 'gone', '--workspace', 'default'])).json.api_key,
    );

    const store = openStore(`${svc.dataDir}/portico.db`);
    try {
      const row = store.db
        .prepare<[string], { id: string }>("SELECT id FROM api_keys WHERE user_id = ? AND kind = 'account'")
        .get('gone');
      expect(store.apiKeys.revoke(String(row?.id))).toBe(true);
      const now = new Date().toISOString();
      ids.profile_id = '11111111-1111-4111-8111-111111111111';
      store.profiles.insert({
        id: ids.profile_id,
        org_id: 'default',
        name: 'victim-profile',
        provider_profile_id: 'p1',
        created_at: now,
        updated_at: now,
      });
    } finally {
      store.close();
    }

    const made = async (path: string, init: Parameters<TestService['api']>[1]): Promise<Record<string, unknown>> => {
      const { status, body } = await jsonOf(await svc.api(path, init));
      expect(status, `${path}: ${JSON.stringify(body)}`).toBeLessThan(300);
      return body as Record<string, unknown>;
    };
    // Both orgs have a portal of the same name: a job id must not cross from one to the other.
    hooks = await startPageServer({ '/hook': () => ({ type: 'application/json', body: '{}' }) });
    await made('/webhooks/default/key', { method: 'POST' });
    await made('/portals/default', {
      method: 'POST',
      json: {
        endpoint_name: 'shared-name',
        start_url: 'http://127.0.0.1:9/',
        task: 'the victim task text',
        webhook_url: `${hooks.url}/hook`,
      },
    });
    await made('/portals/rival', {
      method: 'POST',
      key: keys.rivalOrg,
      json: { endpoint_name: 'shared-name', start_url: 'http://127.0.0.1:9/', task: 'rival task' },
    });
    ids.endpoint_name = 'shared-name';
    // A real job (its browser fails fast on an unsafe port) and its webhook delivery.
    ids.job_id = String(
      (
        await made('/jobs/default/shared-name/start', {
          method: 'POST',
          json: { form_data: { secret: 'victim-form-value' } },
        })
      ).job_id,
    );
    await waitForJob(svc, 'shared-name', ids.job_id, ['failed']);
    ids.delivery_id = await until(async () => {
      const { deliveries } = (await (await svc.api(`/webhooks/default/deliveries?job_id=${ids.job_id}`)).json()) as {
        deliveries: { id: string; status: string }[];
      };
      return deliveries.find((delivery) => delivery.status === 'succeeded')?.id;
    }, "the victim job's webhook to be delivered");
    const form = new FormData();
    form.append(
      'file',
      new Blob([
        new Uint8Array(
          buildRawZip([
            { name: 'SKILL.md', data: Buffer.from('---\nname: victim-skill\ndescription: private\n---\n') },
          ]),
        ),
      ]),
      'victim-skill.zip',
    );
    ids.skill_id = String((await made('/skills/default?folder=private', { method: 'POST', body: form })).id);
    const documents = new FormData();
    documents.append('files', new Blob(['Name: Victim\n'], { type: 'text/plain' }), 'victim.txt');
    ids.document_bundle_id = String(
      (await made('/documents/default', { method: 'POST', body: documents })).document_bundle_id,
    );
    ids.credential_id = String(
      (
        await made('/public/credentials', {
          method: 'POST',
          key: svc.accountKey,
          json: { service_name: 'victim-bank', username_or_email: 'victim@example.test', password: 'victim-secret-1' },
        })
      ).id,
    );
    ids.phone_number_id = String(
      (
        await made('/public/phone-numbers', {
          method: 'POST',
          key: svc.accountKey,
          json: { phone_number: '+15550001111', label: 'victim' },
        })
      ).id,
    );
    ids.workflow_id = String(
      (
        await made('/public/workflows', {
          method: 'POST',
          key: svc.accountKey,
          json: { name: 'victim-flow', steps: [{ action: 'go to http://127.0.0.1:9/' }] },
        })
      ).id,
    );
    victimIds.push(
      ids.job_id,
      ids.delivery_id,
      ids.skill_id,
      ids.document_bundle_id,
      ids.profile_id,
      ids.credential_id,
      ids.phone_number_id,
      ids.workflow_id,
    );
  });
  afterAll(async () => {
    await svc?.dispose();
    await hooks?.close();
  });

  const pathFor = (route: AnyRouteSpec, orgId: string): string =>
    route.path.replace(/:(\w+)/g, (_, name: string) => (name === 'org_id' ? orgId : (ids[name] ?? PLACEHOLDER_UUID))) +
    (takesJobId(route) ? `?job_id=${ids.job_id}` : '');
  /** One call; a body that is not JSON comes back as its text (a leak shows either way). */
  const call = async (
    route: AnyRouteSpec,
    path: string,
    key: string | null,
  ): Promise<{ status: number; body: unknown }> => {
    const response = await svc.api(path, { method: route.method, key, ...(bodyCarrying(route) ? { json: {} } : {}) });
    const text = await response.text();
    try {
      return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined };
    } catch {
      return { status: response.status, body: text };
    }
  };
  const routesOf = (auth: AnyRouteSpec['auth']) => svc.app.routes.filter((route) => route.auth === auth);

  it("org routes: another org's key is 403 naming the org asked for, whether it exists or not; account keys 403; revoked, unknown or no key 401", async () => {
    const routes = routesOf('org');
    expect(routes.length).toBeGreaterThan(20);
    const problems: string[] = [];
    const expectAnswer = (where: string, got: unknown, want: unknown) => {
      if (JSON.stringify(got) !== JSON.stringify(want)) problems.push(`${where}: ${JSON.stringify(got)}`);
    };
    for (const route of routes) {
      for (const orgId of ['default', 'no-such-org']) {
        const path = pathFor(route, orgId);
        expectAnswer(`${route.method} ${path} rival org key`, await call(route, path, keys.rivalOrg), WRONG_ORG(orgId));
      }
      const path = pathFor(route, 'default');
      expectAnswer(`${route.method} ${path} account key`, await call(route, path, svc.accountKey), ORG_KEY_REQUIRED);
      expectAnswer(
        `${route.method} ${path} other org's account key`,
        await call(route, path, keys.rivalAccount),
        ORG_KEY_REQUIRED,
      );
      for (const [label, key] of [
        ['revoked org key', keys.revokedOrg],
        ['revoked account key', keys.revokedAccount],
        ['no key', null],
        ['unknown key', 'pk_org_nonsense'],
      ] as const) {
        expectAnswer(`${route.method} ${path} ${label}`, await call(route, path, key), INVALID_KEY);
      }
    }
    expect(problems).toEqual([]);
  });

  it("org routes under the rival's own org_id: the victim's resource ids are not found there, and its lists hold none of the victim's data", async () => {
    const problems: string[] = [];
    for (const route of routesOf('org')) {
      const path = pathFor(route, 'rival');
      // The endpoint name is the rival's own portal too; a job id (required, not a list filter) is the victim's.
      const named =
        resourceParams(route).some((name) => name !== 'endpoint_name') || (takesJobId(route) && requiresJobId(route));
      // A create or change route without a victim's id would act on the rival's own things: nothing to isolate.
      if (!named && route.method !== 'GET') continue;
      const { status, body } = await call(route, path, keys.rivalOrg);
      const text = JSON.stringify(body) ?? '';
      if (named && (status < 400 || status >= 500))
        problems.push(`${route.method} ${path}: ${status} ${text.slice(0, 200)}`);
      for (const secret of [...VICTIM_TEXT, ...victimIds]) {
        if (text.includes(secret) && !path.includes(secret)) problems.push(`${route.method} ${path} shows '${secret}'`);
      }
    }
    expect(problems).toEqual([]);
    // The named ones answer the plain not-found of their resource.
    expect(
      await jsonOf(await svc.api(`/task/rival/shared-name/status?job_id=${ids.job_id}`, { key: keys.rivalOrg })),
    ).toEqual({ status: 404, body: { detail: 'Job not found' } });
    expect(
      (
        await jsonOf(
          await svc.api(`/webhooks/rival/deliveries/${ids.delivery_id}/redeliver`, {
            method: 'POST',
            key: keys.rivalOrg,
          }),
        )
      ).status,
    ).toBe(404);
    expect((await jsonOf(await svc.api(`/skills/rival/${ids.skill_id}/skill-md`, { key: keys.rivalOrg }))).status).toBe(
      404,
    );
    expect(
      (await jsonOf(await svc.api(`/documents/rival/${ids.document_bundle_id}`, { key: keys.rivalOrg }))).status,
    ).toBe(404);
    expect(
      (await jsonOf(await svc.api(`/profiles/rival/${ids.profile_id}`, { method: 'DELETE', key: keys.rivalOrg })))
        .status,
    ).toBe(404);
    // Nothing of the victim's was deleted by the attempts.
    expect((await jsonOf(await svc.api(`/portals/default/${ids.endpoint_name}`))).body).toMatchObject({
      task: 'the victim task text',
    });
    expect((await jsonOf(await svc.api(`/task/default/shared-name/status?job_id=${ids.job_id}`))).body).toMatchObject({
      status: 'failed',
    });
    expect((await svc.api(`/skills/default/${ids.skill_id}/skill-md`)).status).toBe(200);
    expect((await jsonOf(await svc.api(`/documents/default/${ids.document_bundle_id}`))).status).toBe(200);
    expect(
      ((await jsonOf(await svc.api('/profiles/default'))).body as { id: string }[]).map((profile) => profile.id),
    ).toContain(ids.profile_id);
  });

  it('account (/public) routes: org keys are 403; revoked, unknown or no key 401', async () => {
    const routes = routesOf('account');
    expect(routes.length).toBeGreaterThan(15);
    const problems: string[] = [];
    for (const route of routes) {
      const path = pathFor(route, 'default');
      for (const [label, key, want] of [
        ['org key', svc.orgKey, ACCOUNT_KEY_REQUIRED],
        ['rival org key', keys.rivalOrg, ACCOUNT_KEY_REQUIRED],
        ['revoked account key', keys.revokedAccount, INVALID_KEY],
        ['revoked org key', keys.revokedOrg, INVALID_KEY],
        ['no key', null, INVALID_KEY],
        ['unknown key', 'pk_acct_nonsense', INVALID_KEY],
      ] as const) {
        const got = await call(route, path, key);
        if (JSON.stringify(got) !== JSON.stringify(want))
          problems.push(`${route.method} ${path} ${label}: ${JSON.stringify(got)}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("another workspace's account key (same org or another) never reaches this workspace's credentials, phone numbers or workflows", async () => {
    const problems: string[] = [];
    for (const [label, key, user] of [
      ['rival org account', keys.rivalAccount, 'eve'],
      ['same org, other workspace', keys.crewAccount, 'mallory'],
    ] as const) {
      for (const route of routesOf('account')) {
        const path = pathFor(route, 'default');
        const named = resourceParams(route).length > 0;
        if (!named && route.method !== 'GET') continue;
        const { status, body } = await call(route, path, key);
        const text = JSON.stringify(body) ?? '';
        if (named) {
          // Interface §7 fixes the text of the workflow executions listing; every other resource reads as absent.
          const want =
            routeName(route) === 'GET /public/workflows/:workflow_id'
              ? { status: 403, body: { detail: `User ${user} is not a member of the workflow's workspace` } }
              : undefined;
          if (want ? JSON.stringify({ status, body }) !== JSON.stringify(want) : status !== 404)
            problems.push(`${label} ${route.method} ${path}: ${status} ${text.slice(0, 200)}`);
        }
        for (const secret of [...VICTIM_TEXT, ...victimIds]) {
          if (text.includes(secret) && !path.includes(secret))
            problems.push(`${label} ${route.method} ${path} shows '${secret}'`);
        }
      }
    }
    expect(problems).toEqual([]);
    // The victim still has all of it.
    expect(
      (await jsonOf(await svc.api(`/public/credentials/${ids.credential_id}`, { key: svc.accountKey }))).status,
    ).toBe(200);
    expect((await jsonOf(await svc.api(`/public/workflows/${ids.workflow_id}`, { key: svc.accountKey }))).status).toBe(
      200,
    );
  });

  it('operator (/admin) routes take the console token only: every API key is 401 Invalid console token', async () => {
    const routes = routesOf('console');
    expect(routes.length).toBeGreaterThan(5);
    const problems: string[] = [];
    for (const route of routes) {
      const path = pathFor(route, 'default');
      for (const key of [svc.orgKey, svc.accountKey, keys.rivalOrg, null]) {
        const got = await call(route, path, key);
        if (JSON.stringify(got) !== JSON.stringify({ status: 401, body: { detail: 'Invalid console token' } }))
          problems.push(`${route.method} ${path}: ${JSON.stringify(got)}`);
      }
    }
    expect(problems).toEqual([]);
  });
});
