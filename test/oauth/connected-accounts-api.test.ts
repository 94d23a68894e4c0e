import { readFile, stat } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchTestBrowser } from '../helpers/chromium.ts';
import { cli } from '../helpers/cli.ts';
import { filesUnder } from '../helpers/files.ts';
import { jsonOf, startService, type TestService } from '../helpers/service.ts';
import { authorize, startTestProvider, type TestProvider } from './helpers/oauthProvider.ts';

const CLIENT_ID = 'portico-api-test';
const CLIENT_SECRET = 'client-secret-api-91c2e';

/** Every file under `dir` (below 64 MiB), for "no secret on disk" checks. */
const allFiles = (dir: string): Promise<string[]> =>
  filesUnder(dir, { keep: async (path) => (await stat(path)).size < 64 * 1024 * 1024 });

describe('connected accounts over HTTP: /public/connected-accounts and the loopback /oauth/callback', () => {
  let svc: TestService;
  let provider: TestProvider;
  let otherKey: string;
  const consoleHeaders = () => ({ 'x-console-token': svc.consoleToken });

  beforeAll(async () => {
    provider = await startTestProvider({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, email: 'ada@example.com' });
    svc = await startService();
    otherKey = String((await cli(svc.dataDir, ['user', 'create', 'bob', '--workspace', 'default'])).json.api_key);
  });
  afterAll(async () => {
    await svc.dispose();
    await provider.stop();
  });

  it('the console adds an OAuth app; the client secret is never returned', async () => {
    const added = await svc.send(
      'addOAuthApp',
      {
        body: {
          id: 'acme',
          authorize_url: provider.authorizeUrl,
          token_url: provider.tokenUrl,
          userinfo_url: provider.userinfoUrl,
          client_id: CLIENT_ID,
          client_secret: CLIENT_SECRET,
          scopes: ['openid', 'email'],
        },
      },
      { key: null, headers: consoleHeaders() },
    );
    expect(added).toMatchObject({
      status: 201,
      body: { id: 'acme', client_id: CLIENT_ID, has_client_secret: true, scopes: ['openid', 'email'] },
    });
    const listed = await (await svc.request('listOAuthApps', {}, { key: null, headers: consoleHeaders() })).text();
    expect(listed).toContain('"acme"');
    expect(listed).not.toContain(CLIENT_SECRET);
    expect((await svc.request('listOAuthApps', {}, { key: svc.accountKey })).status).toBe(401);
  });

  it('connect → provider → /oauth/callback shows "connected, you can close this tab"; the list has the account (§2.7 fields), never a token', async () => {
    const started = await svc.send('connectAccount', { body: { oauth_app_id: 'acme' } }, { key: svc.accountKey });
    expect(started.status).toBe(200);
    const { authorization_url: authorizationUrl, state } = started.body as { authorization_url: string; state: string };
    const asked = new URL(authorizationUrl);
    expect(asked.origin + asked.pathname).toBe(provider.authorizeUrl);
    expect(asked.searchParams.get('redirect_uri')).toBe(`http://127.0.0.1:${svc.app.port}/oauth/callback`);
    expect(asked.searchParams.get('code_challenge_method')).toBe('S256');
    expect(asked.searchParams.get('state')).toBe(state);

    const back = await authorize(authorizationUrl);
    expect(back.origin).toBe(`http://127.0.0.1:${svc.app.port}`);
    const page = await fetch(back);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toContain('Connected');
    expect(html).toContain('You can close this tab');
    expect(html).toContain('ada@example.com');

    const again = await fetch(back);
    expect(again.status).toBe(400);
    expect(await again.text()).toContain('unknown or was already used');

    const list = await svc.send('listConnectedAccounts', {}, { key: svc.accountKey });
    expect(list.status).toBe(200);
    const accounts = list.body as Record<string, unknown>[];
    expect(accounts).toHaveLength(1);
    expect(accounts[0]).toMatchObject({
      user_id: 'local',
      oauth_app_id: 'acme',
      oauth_user_name: 'ada@example.com',
      status: 'connected',
    });
    expect(Object.keys(accounts[0] ?? {}).sort()).toEqual([
      'created_at',
      'id',
      'oauth_app_id',
      'oauth_user_name',
      'scopes',
      'status',
      'updated_at',
      'user_id',
    ]);
  });

  it('in a real browser: the authorization URL leads through the provider back to the page saying connected', async () => {
    const chromium = await launchTestBrowser();
    try {
      const context = await chromium.newContext();
      const tab = await context.newPage();
      const { authorization_url: authorizationUrl } = (await (
        await svc.request('connectAccount', { body: { oauth_app_id: 'acme' } }, { key: svc.accountKey })
      ).json()) as { authorization_url: string };
      const landed = await tab.goto(authorizationUrl);
      expect(landed?.status()).toBe(200);
      expect(new URL(tab.url()).pathname).toBe('/oauth/callback');
      expect(await tab.locator('h1').textContent()).toBe('Connected');
      expect(await tab.locator('p').textContent()).toContain('You can close this tab');
    } finally {
      await chromium.close();
    }
    // The same provider user again: still one account.
    expect(
      (await (await svc.request('listConnectedAccounts', {}, { key: svc.accountKey })).json()) as unknown[],
    ).toHaveLength(1);
  });

  it('another user sees none of these accounts and cannot delete them (404)', async () => {
    expect(await svc.send('listConnectedAccounts', {}, { key: otherKey })).toEqual({ status: 200, body: [] });
    const [account] = (await (await svc.request('listConnectedAccounts', {}, { key: svc.accountKey })).json()) as {
      id: string;
    }[];
    expect(
      await svc.send('deleteConnectedAccount', { params: { account_id: account!.id } }, { key: otherKey }),
    ).toEqual({ status: 404, body: { detail: 'Connected account not found' } });
  });

  it('bad requests get a {"detail"} 4xx and start nothing', async () => {
    const post = (json: unknown) => svc.request('connectAccount', { body: json }, { key: svc.accountKey });
    expect(await jsonOf(await post({ oauth_app_id: 'nope' }))).toEqual({
      status: 404,
      body: { detail: "OAuth app 'nope' not found" },
    });
    for (const body of [
      {},
      { oauth_app_id: '../etc' },
      { oauth_app_id: 'acme', scopes: ['has space'] },
      { oauth_app_id: 'acme', extra: 1 },
      { oauth_app_id: 'x'.repeat(10_000) },
    ]) {
      const answer = await jsonOf(await post(body));
      expect(answer.status, JSON.stringify(body).slice(0, 60)).toBe(422);
      expect(typeof (answer.body as { detail: unknown }).detail).toBe('string');
    }
    expect(
      (await svc.request('deleteConnectedAccount', { params: { account_id: 'not-a-uuid' } }, { key: svc.accountKey }))
        .status,
    ).toBe(422);
  });

  it('the callback answers hostile or broken returns with a clear HTML page and the right status', async () => {
    const callback = (query: string) => fetch(`${svc.url}/oauth/callback${query}`);
    for (const query of [
      '',
      '?code=abc',
      '?state=forged&code=abc',
      `?state=${'a'.repeat(5000)}&code=abc`,
      '?state=a&state=b&code=c',
      '?state=<script>alert(1)</script>',
    ]) {
      const page = await callback(query);
      expect(page.status, query.slice(0, 40)).toBe(400);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await page.text();
      expect(html).toContain('Start connecting the account again');
      expect(html).not.toContain('<script>');
    }
    provider.setDecision('deny');
    try {
      const started = (await (
        await svc.request('connectAccount', { body: { oauth_app_id: 'acme' } }, { key: svc.accountKey })
      ).json()) as { authorization_url: string };
      const back = await authorize(started.authorization_url);
      const page = await fetch(back);
      expect(page.status).toBe(403);
      expect(await page.text()).toContain('Access was denied at the provider');
    } finally {
      provider.setDecision('allow');
    }
  });

  it('no token or client secret is in the data folder (SQLite included)', async () => {
    const secrets = [CLIENT_SECRET, ...provider.issuedTokens()];
    expect(secrets.length).toBeGreaterThan(2);
    for (const file of await allFiles(svc.dataDir)) {
      const bytes = await readFile(file);
      for (const secret of secrets)
        expect(bytes.includes(Buffer.from(secret)), `${secret.slice(0, 12)}… in ${file}`).toBe(false);
    }
  });

  it('DELETE forgets the account; the list is empty again', async () => {
    const [account] = (await (await svc.request('listConnectedAccounts', {}, { key: svc.accountKey })).json()) as {
      id: string;
    }[];
    expect(
      await svc.send('deleteOAuthApp', { params: { oauth_app_id: 'acme' } }, { key: null, headers: consoleHeaders() }),
    ).toEqual({ status: 409, body: { detail: "OAuth app 'acme' has 1 connected account(s); remove them first" } });
    expect(
      (await svc.request('deleteConnectedAccount', { params: { account_id: account!.id } }, { key: svc.accountKey }))
        .status,
    ).toBe(204);
    expect(await svc.send('listConnectedAccounts', {}, { key: svc.accountKey })).toEqual({ status: 200, body: [] });
    expect(
      (await svc.request('deleteConnectedAccount', { params: { account_id: account!.id } }, { key: svc.accountKey }))
        .status,
    ).toBe(404);
  });

  it('an OAuth app without connected accounts can be removed, once', async () => {
    const removed = await svc.request(
      'deleteOAuthApp',
      { params: { oauth_app_id: 'acme' } },
      { key: null, headers: consoleHeaders() },
    );
    expect(removed.status).toBe(204);
    expect(
      await svc.send('deleteOAuthApp', { params: { oauth_app_id: 'acme' } }, { key: null, headers: consoleHeaders() }),
    ).toEqual({ status: 404, body: { detail: "OAuth app 'acme' not found" } });
  });
});
