import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectedAccount } from '../../src-main/contract/oauth.ts';
import { filesUnder } from '../helpers/files.ts';
import { jsonOf, makeDataDir, startService, type TestService } from '../helpers/service.ts';
import { authorize, startTestProvider, type TestProvider } from './helpers/oauthProvider.ts';

const CLIENT_ID = 'portico-restart-test';
const CLIENT_SECRET = 'client-secret-restart-0b7d';

describe('a connect survives a restart of the app between "Connect" and the provider sending the browser back', () => {
  let provider: TestProvider;
  let svc: TestService | undefined;

  beforeAll(async () => {
    provider = await startTestProvider({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, email: 'ada@example.com' });
  });
  afterAll(async () => {
    await svc?.dispose();
    await provider.stop();
  });

  it('start connect, restart on the same data folder and port, complete the callback against oauth2-mock-server → connected; the desktop hook fires once', async () => {
    const dataDir = await makeDataDir();
    const first = await startService(dataDir);
    svc = first;
    const added = await first.api('/admin/oauth-apps', {
      method: 'POST',
      key: null,
      headers: { 'x-console-token': first.consoleToken },
      json: {
        id: 'acme',
        authorize_url: provider.authorizeUrl,
        token_url: provider.tokenUrl,
        userinfo_url: provider.userinfoUrl,
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        scopes: ['openid', 'email'],
      },
    });
    expect(added.status).toBe(201);
    const started = await jsonOf(
      await first.api('/public/connected-accounts', {
        method: 'POST',
        key: first.accountKey,
        json: { oauth_app_id: 'acme' },
      }),
    );
    expect(started.status).toBe(200);
    const { authorization_url: authorizationUrl } = started.body as { authorization_url: string };
    const port = first.app.port;
    await first.stop();

    const connected: ConnectedAccount[] = [];
    const second = await startService(dataDir, { port, onAccountConnected: (account) => void connected.push(account) });
    svc = second;
    // The user finishes signing in at the provider only now; it sends the browser back to the (restarted) loopback server.
    const back = await authorize(authorizationUrl);
    expect(back.origin).toBe(second.url);
    const page = await fetch(back);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('You can close this tab');
    expect(connected).toEqual([
      expect.objectContaining({ oauth_app_id: 'acme', oauth_user_name: 'ada@example.com', status: 'connected' }),
    ]);

    // The account key printed at first start still works after the restart; the account is listed.
    const list = await jsonOf(await second.api('/public/connected-accounts', { key: first.accountKey }));
    expect(list).toMatchObject({
      status: 200,
      body: [{ oauth_app_id: 'acme', oauth_user_name: 'ada@example.com', status: 'connected' }],
    });

    // The verifier that made the exchange work was kept in the keychain, never in the data folder (SQLite, WAL, settings).
    const verifier = provider.tokenRequests.at(-1)?.code_verifier ?? '';
    expect(verifier.length).toBeGreaterThanOrEqual(43);
    for (const file of await filesUnder(dataDir))
      expect((await readFile(file)).includes(Buffer.from(verifier)), file).toBe(false);

    // Single use survives the restart too: the same return is refused and the hook does not fire again.
    const again = await fetch(back);
    expect(again.status).toBe(400);
    expect(connected).toHaveLength(1);
  });
});
