import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConnectedAccountService,
  NeedsReconnectError,
  REFRESH_BEFORE_EXPIRY_MS,
  s256Challenge,
  STATE_TTL_MS,
  tokensSecretName,
} from '../../src-main/engine/oauth/connectedAccounts.ts';
import { OAuthAppRegistry } from '../../src-main/engine/oauth/oauthApps.ts';
import { createLogger } from '../../src-main/base/logger.ts';
import { OAuthRepository } from '../../src-main/store/oauth.ts';
import { openStore, type Store } from '../../src-main/store/store.ts';
import { FakeClock } from '../helpers/fakeClock.ts';
import { memorySecrets } from '../helpers/memorySecrets.ts';
import { makeDataDir } from '../helpers/service.ts';
import { authorize, connectThrough, startTestProvider, type TestProvider } from './helpers/oauthProvider.ts';

const CLIENT_ID = 'portico-engine-test';
const CLIENT_SECRET = 'client-secret-engine-7f3a';

describe('connected accounts: PKCE exchange, single-use state, one refresh at a time, revoked grants', () => {
  let provider: TestProvider;
  let dir: string;
  let store: Store;
  let clock: FakeClock;
  const secrets = memorySecrets();
  let accounts: ConnectedAccountService;
  const logLines: string[] = [];

  beforeAll(async () => {
    provider = await startTestProvider({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, email: 'ada@example.com' });
    dir = await makeDataDir();
    store = openStore(join(dir, 'portico.db'));
    clock = new FakeClock();
    const repo = new OAuthRepository(store.db);
    const apps = new OAuthAppRegistry(repo, async () => secrets, clock);
    await apps.add({
      id: 'acme',
      authorize_url: provider.authorizeUrl,
      token_url: provider.tokenUrl,
      userinfo_url: provider.userinfoUrl,
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      scopes: 'openid email',
    });
    accounts = new ConnectedAccountService({
      repo,
      apps,
      secrets: async () => secrets,
      redirectUri: () => 'http://127.0.0.1:48123/oauth/callback',
      clock,
      logger: createLogger('debug', (line) => void logLines.push(line)),
    });
  });
  afterAll(async () => {
    await provider.stop();
    store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('connects with the code and its S256 verifier, names the account from userinfo and keeps the tokens in the secret store', async () => {
    const started = await accounts.start({ userId: 'local', workspaceId: 'default' }, { oauth_app_id: 'acme' });
    const asked = new URL(started.authorization_url).searchParams;
    expect(asked.get('code_challenge_method')).toBe('S256');
    expect(asked.get('state')).toBe(started.state);
    expect(asked.get('redirect_uri')).toBe('http://127.0.0.1:48123/oauth/callback');
    expect(asked.get('scope')).toBe('openid email');
    expect(started.state.length).toBeGreaterThanOrEqual(43);

    const back = await authorize(started.authorization_url);
    const outcome = await accounts.complete(Object.fromEntries(back.searchParams));
    expect(outcome).toMatchObject({ status: 200, title: 'Connected' });
    const exchange = provider.tokenRequests.at(-1) ?? {};
    expect(exchange.grant_type).toBe('authorization_code');
    expect(s256Challenge(exchange.code_verifier ?? '')).toBe(asked.get('code_challenge'));

    const [account] = accounts.list('local');
    expect(account).toMatchObject({
      user_id: 'local',
      oauth_app_id: 'acme',
      oauth_user_name: 'ada@example.com',
      status: 'connected',
      scopes: ['openid', 'email'],
    });
    const stored = JSON.parse((await secrets.get(tokensSecretName(account?.id ?? ''))) ?? '{}') as Record<
      string,
      unknown
    >;
    expect(typeof stored.access_token).toBe('string');
    expect(typeof stored.refresh_token).toBe('string');
    expect(accounts.list('someone-else')).toEqual([]);
  });

  it('the provider refuses a wrong verifier and a missing one (so a connect that works proves the verifier was right)', async () => {
    const started = await accounts.start({ userId: 'local', workspaceId: 'default' }, { oauth_app_id: 'acme' });
    const code = (await authorize(started.authorization_url)).searchParams.get('code') ?? '';
    const post = (body: Record<string, string>) =>
      fetch(provider.tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(body),
      });
    const common = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: 'http://127.0.0.1:48123/oauth/callback',
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
    };
    const wrong = await post({ ...common, code_verifier: 'x'.repeat(64) });
    expect(wrong.status).toBe(400);
    const second = await accounts.start({ userId: 'local', workspaceId: 'default' }, { oauth_app_id: 'acme' });
    const code2 = (await authorize(second.authorization_url)).searchParams.get('code') ?? '';
    const none = await post({ ...common, code: code2 });
    expect(none.status).toBe(400);
    expect(await none.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('a state works once, an unknown one never, and one older than 10 minutes is refused as expired', async () => {
    const started = await accounts.start({ userId: 'local', workspaceId: 'default' }, { oauth_app_id: 'acme' });
    const query = Object.fromEntries((await authorize(started.authorization_url)).searchParams);
    expect((await accounts.complete(query)).status).toBe(200);
    expect(await accounts.complete(query)).toMatchObject({ status: 400, title: 'Unknown sign-in request' });
    expect(await accounts.complete({ state: 'made-up', code: 'whatever' })).toMatchObject({
      status: 400,
      title: 'Unknown sign-in request',
    });
    expect(await accounts.complete({ code: 'whatever' })).toMatchObject({ status: 400 });

    const late = await accounts.start({ userId: 'local', workspaceId: 'default' }, { oauth_app_id: 'acme' });
    const lateQuery = Object.fromEntries((await authorize(late.authorization_url)).searchParams);
    const exchangesBefore = provider.tokenRequests.length;
    clock.advance(STATE_TTL_MS + 1);
    expect(await accounts.complete(lateQuery)).toMatchObject({ status: 400, title: 'Sign-in request expired' });
    expect(provider.tokenRequests.length).toBe(exchangesBefore);
  });

  it('error=access_denied from the provider is a 403 page and connects nothing', async () => {
    provider.setDecision('deny');
    try {
      const before = accounts.list('local').length;
      const started = await accounts.start({ userId: 'local', workspaceId: 'default' }, { oauth_app_id: 'acme' });
      const back = await authorize(started.authorization_url);
      expect(back.searchParams.get('error')).toBe('access_denied');
      expect(await accounts.complete(Object.fromEntries(back.searchParams))).toMatchObject({
        status: 403,
        title: 'Access denied',
      });
      expect(accounts.list('local').length).toBe(before);
    } finally {
      provider.setDecision('allow');
    }
  });

  it('concurrent callers near expiry share ONE refresh of a rotating refresh token; the old refresh token is dead afterwards', async () => {
    provider.setExpiresIn(3600);
    expect((await connectThrough(accounts, 'acme', 'grace')).status).toBe(200);
    const [account] = accounts.list('grace');
    const id = account?.id ?? '';
    const first = await accounts.accessToken(id);
    const oldRefresh = (JSON.parse((await secrets.get(tokensSecretName(id))) ?? '{}') as { refresh_token: string })
      .refresh_token;
    expect(await accounts.accessToken(id)).toBe(first);
    const refreshesBefore = provider.refreshCount();

    clock.advance(3600_000 - REFRESH_BEFORE_EXPIRY_MS + 1000);
    const tokens = await Promise.all(Array.from({ length: 8 }, () => accounts.accessToken(id)));
    expect(new Set(tokens).size).toBe(1);
    expect(tokens[0]).not.toBe(first);
    expect(provider.refreshCount() - refreshesBefore).toBe(1);

    // The provider really rotates: the refresh token used above is refused now.
    const replay = await fetch(provider.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: oldRefresh,
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
      }),
    });
    expect(await replay.json()).toMatchObject({ error: 'invalid_grant' });

    clock.advance(3600_000);
    const again = await Promise.all(Array.from({ length: 5 }, () => accounts.accessToken(id)));
    expect(new Set(again).size).toBe(1);
    expect(provider.refreshCount() - refreshesBefore).toBe(2);
    expect(accounts.get('grace', id).status).toBe('connected');
  });

  it('a revoked grant (invalid_grant) marks the account needs_reconnect, forgets its tokens, and a new connect restores the same account', async () => {
    const [account] = accounts.list('grace');
    const id = account?.id ?? '';
    provider.revokeAll();
    clock.advance(3600_000);
    const results = await Promise.allSettled([accounts.accessToken(id), accounts.accessToken(id)]);
    for (const result of results)
      expect(result.status === 'rejected' && result.reason instanceof NeedsReconnectError).toBe(true);
    expect(accounts.get('grace', id)).toMatchObject({ status: 'needs_reconnect' });
    expect(await secrets.get(tokensSecretName(id))).toBeUndefined();

    expect((await connectThrough(accounts, 'acme', 'grace')).status).toBe(200);
    expect(accounts.list('grace')).toEqual([expect.objectContaining({ id, status: 'connected' })]);
    expect(typeof (await accounts.accessToken(id))).toBe('string');
  });

  it('removing an account is for its owner only and forgets its tokens', async () => {
    const [account] = accounts.list('grace');
    const id = account?.id ?? '';
    await expect(accounts.remove('local', id)).rejects.toMatchObject({
      status: 404,
      detail: 'Connected account not found',
    });
    await accounts.remove('grace', id);
    expect(accounts.list('grace')).toEqual([]);
    // What was logged along the way (connects, refreshes, a revoked grant) names accounts, never a token or the client secret.
    expect(logLines.join('\n')).toContain('oauth access token refreshed');
    for (const secret of [CLIENT_SECRET, ...provider.issuedTokens()]) expect(logLines.join('\n')).not.toContain(secret);
    expect(await secrets.get(tokensSecretName(id))).toBeUndefined();
    await expect(accounts.accessToken(id)).rejects.toMatchObject({ status: 404 });
  });
});
