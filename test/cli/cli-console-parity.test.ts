import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../src-main/base/config.ts';
import { runCli } from '../../src-main/cli/main.ts';
import { KeychainSecretStore } from '../../src-main/secrets/index.ts';
import { openStore, type Store } from '../../src-main/store/store.ts';
import { jsonOf, startService, type TestService } from '../helpers/service.ts';

/**
 * The CLI and the console's routes are two faces of one AdminService: the same operation through
 * either leaves the same rows (and keychain entries) behind, and refuses with the same words.
 */
describe('the CLI and the console do the same thing', () => {
  // Both faces share one keychain service of their own, so the test never touches the real `Portico` entries.
  const serviceName = `Portico-parity-${randomBytes(4).toString('hex')}`;
  const env = { PORTICO_KEYCHAIN_SERVICE: serviceName };
  let svc: TestService;

  const cli = async (args: string[], stdin = '') => {
    let stdout = '';
    let stderr = '';
    const code = await runCli(['--data-dir', svc.dataDir, ...args], {
      stdout: (t) => (stdout += t),
      stderr: (t) => (stderr += t),
      readStdin: async () => stdin,
      env,
    });
    return { code, json: JSON.parse((code === 0 ? stdout : stderr).split('\n')[0] ?? '{}') as Record<string, unknown> };
  };
  const console_ = (path: string, method = 'GET', json?: unknown) =>
    svc
      .api(path, {
        key: null,
        method,
        headers: { 'x-console-token': svc.consoleToken },
        ...(json !== undefined && { json }),
      })
      .then(jsonOf);
  /** A second handle on the service's database: what is stored, whichever face stored it. */
  const withStore = <T>(read: (store: Store) => T): T => {
    const store = openStore(`${svc.dataDir}/portico.db`);
    try {
      return read(store);
    } finally {
      store.close();
    }
  };

  beforeAll(async () => {
    svc = await startService(undefined, { config: readConfig({ ...process.env, ...env }) });
  });
  afterAll(async () => {
    const keychain = new KeychainSecretStore({ serviceName });
    const installId = withStore((store) => store.meta.installId());
    for (const name of ['provider/openai', 'webhook/cli-org', 'webhook/ui-org'])
      await keychain.delete(`${installId}/${name}`).catch(() => undefined);
    await svc?.dispose();
  });

  it('an org made by `org create` and one made by the console (org, then its first key) are stored alike', async () => {
    expect((await cli(['org', 'create', 'cli-org'])).code).toBe(0);
    expect((await console_('/admin/orgs', 'POST', { org_id: 'ui-org' })).status).toBe(201);
    expect((await console_('/admin/orgs/ui-org/keys', 'POST')).status).toBe(201);
    const stored = withStore((store) =>
      ['cli-org', 'ui-org'].map((id) => ({
        name: store.principals.getOrg(id)?.name,
        keys: store.apiKeys
          .listForOrg(id)
          .map((key) => ({ kind: key.kind, revoked: key.revoked_at !== null, prefix: key.prefix.slice(0, 7) })),
      })),
    );
    expect(stored[0]).toEqual({ name: 'cli-org', keys: [{ kind: 'org', revoked: false, prefix: 'pk_org_' }] });
    expect(stored[1]).toEqual({ ...stored[0], name: 'ui-org' });
    // Taken ids are refused by both, in the same words.
    expect((await cli(['org', 'create', 'ui-org'])).json).toEqual({ detail: "Organization 'ui-org' already exists" });
    expect(await console_('/admin/orgs', 'POST', { org_id: 'cli-org' })).toEqual({
      status: 409,
      body: { detail: "Organization 'cli-org' already exists" },
    });
  });

  it('a key revoked through either face is revoked the same way, and a second revoke is a 409 in both', async () => {
    const viaCli = String((await cli(['key', 'create', '--org', 'cli-org'])).json.id);
    const viaConsole = String(((await console_('/admin/orgs/cli-org/keys', 'POST')).body as { id: string }).id);
    expect((await cli(['key', 'revoke', viaCli])).json).toEqual({ revoked: true });
    expect(await console_(`/admin/orgs/cli-org/keys/${viaConsole}/revoke`, 'POST')).toEqual({
      status: 200,
      body: { revoked: true },
    });
    withStore((store) => {
      for (const id of [viaCli, viaConsole]) expect(store.apiKeys.get(id)?.revoked_at).toEqual(expect.any(String));
    });
    expect((await cli(['key', 'revoke', viaConsole])).json).toEqual({
      detail: `Key '${viaConsole}' is already revoked`,
    });
    expect(await console_(`/admin/orgs/cli-org/keys/${viaCli}/revoke`, 'POST')).toEqual({
      status: 409,
      body: { detail: `Key '${viaCli}' is already revoked` },
    });
    // Unknown ids: the same 404 words; the console only reaches its org's keys.
    expect((await cli(['key', 'revoke', 'no-such-key'])).json).toEqual({ detail: 'API key not found' });
    expect(await console_(`/admin/orgs/ui-org/keys/${viaCli}/revoke`, 'POST')).toEqual({
      status: 404,
      body: { detail: 'API key not found' },
    });
  });

  it('a base URL set by `provider set-base-url` or by the console is one stored setting, trimmed and checked alike', async () => {
    expect((await cli(['provider', 'set-base-url', 'moonshot', ' http://127.0.0.1:9/v1 '])).json).toEqual({
      provider: 'moonshot',
      base_url: 'http://127.0.0.1:9/v1',
    });
    expect(
      (await console_('/admin/providers/openai', 'PUT', { base_url: ' http://127.0.0.1:9/v1 ' })).body,
    ).toMatchObject({ base_url: 'http://127.0.0.1:9/v1', base_url_source: 'stored' });
    expect(
      withStore((store) => [store.providerSettings.baseUrl('moonshot'), store.providerSettings.baseUrl('openai')]),
    ).toEqual(['http://127.0.0.1:9/v1', 'http://127.0.0.1:9/v1']);
    const listed = (await console_('/admin/providers')).body as {
      providers: { provider: string; base_url_source: string }[];
    };
    expect(listed.providers.find((p) => p.provider === 'moonshot')).toMatchObject({
      base_url: 'http://127.0.0.1:9/v1',
      base_url_source: 'stored',
    });
    // Not an http(s) URL: refused by both, nothing stored.
    expect(await cli(['provider', 'set-base-url', 'moonshot', 'ftp://127.0.0.1/v1'])).toEqual({
      code: 1,
      json: { detail: 'base_url: must be an absolute http(s) URL' },
    });
    expect(await console_('/admin/providers/moonshot', 'PUT', { base_url: 'ftp://127.0.0.1/v1' })).toEqual({
      status: 422,
      body: { detail: 'body.base_url: must be an absolute http(s) URL' },
    });
    expect(withStore((store) => store.providerSettings.baseUrl('moonshot'))).toBe('http://127.0.0.1:9/v1');
    // `default` and null both go back to the provider's own.
    expect((await cli(['provider', 'set-base-url', 'moonshot', 'default'])).json).toEqual({
      provider: 'moonshot',
      base_url: null,
    });
    expect((await console_('/admin/providers/openai', 'PUT', { base_url: null })).body).toMatchObject({
      base_url: 'https://api.openai.com/v1',
      base_url_source: 'default',
    });
  });

  it('a key stored by `provider set-key` is the key the console reports and removes', async () => {
    const set = await cli(['provider', 'set-key', 'openai'], 'sk-parity\n');
    if (set.code === 1 && String(set.json.detail).includes('keychain')) return; // no keychain here: covered by the secrets tests
    expect(set).toEqual({ code: 0, json: { ok: true } });
    const listed = (await console_('/admin/providers')).body as {
      secret_store: string;
      providers: { provider: string; configured: boolean }[];
    };
    expect(listed.providers.find((p) => p.provider === 'openai')?.configured).toBe(true);
    expect((await console_('/admin/providers/openai', 'DELETE')).status).toBe(204);
    expect(
      ((await console_('/admin/providers')).body as typeof listed).providers.find((p) => p.provider === 'openai')
        ?.configured,
    ).toBe(false);
  });

  it('a webhook signing key from `webhook-key generate` and from the route are the same kind of record; revoke checks the org in both', async () => {
    const viaCli = await cli(['webhook-key', 'generate', '--org', 'cli-org']);
    if (viaCli.code === 1 && String(viaCli.json.detail).includes('keychain')) return;
    expect(viaCli.json).toMatchObject({ org_id: 'cli-org', secret: expect.stringMatching(/^whsec_/) });
    const viaRoute = await console_('/webhooks/ui-org/key', 'POST');
    expect(viaRoute.body).toMatchObject({ org_id: 'ui-org', secret: expect.stringMatching(/^whsec_/) });
    for (const org of ['cli-org', 'ui-org']) {
      expect((await console_(`/webhooks/${org}/key`)).body).toMatchObject({
        org_id: org,
        configured: true,
        prefix: expect.stringMatching(/^whsec_/),
      });
    }
    expect((await cli(['webhook-key', 'revoke', '--org', 'ui-org'])).json).toEqual({ revoked: true });
    expect(await console_('/webhooks/cli-org/key', 'DELETE')).toEqual({ status: 200, body: { revoked: true } });
    expect((await cli(['webhook-key', 'revoke', '--org', 'cli-org'])).json).toEqual({
      detail: "Organization 'cli-org' has no webhook signing key",
    });
    expect(await console_('/webhooks/ui-org/key', 'DELETE')).toEqual({
      status: 409,
      body: { detail: "Organization 'ui-org' has no webhook signing key" },
    });
    expect((await cli(['webhook-key', 'revoke', '--org', 'ghost'])).json).toEqual({
      detail: "Organization 'ghost' not found",
    });
  });
});
