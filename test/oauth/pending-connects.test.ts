import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src-main/base/logger.ts';
import type { ConnectedAccount } from '../../src-main/contract/oauth.ts';
import {
  ConnectedAccountService,
  STATE_TTL_MS,
  stateHash,
  verifierSecretName,
} from '../../src-main/engine/oauth/connectedAccounts.ts';
import { OAuthAppRegistry } from '../../src-main/engine/oauth/oauthApps.ts';
import { NO_KEYCHAIN_DETAIL, UnavailableSecretStore } from '../../src-main/secrets/index.ts';
import { OAuthRepository } from '../../src-main/store/oauth.ts';
import { openStore, type Store } from '../../src-main/store/store.ts';
import { FakeClock } from '../helpers/fakeClock.ts';
import { memorySecrets } from '../helpers/memorySecrets.ts';
import { makeDataDir } from '../helpers/service.ts';
import { authorize, startTestProvider, type TestProvider } from './helpers/oauthProvider.ts';

const CLIENT_ID = 'portico-pending-test';
const CLIENT_SECRET = 'client-secret-pending-5d1e';
const actor = { userId: 'local', workspaceId: 'default' };

/** The bytes of every file in the data folder (the SQLite file and its WAL). */
async function dataBytes(dir: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  for (const name of await readdir(dir)) parts.push(await readFile(join(dir, name)));
  return Buffer.concat(parts);
}

describe('pending OAuth connects: persisted across a restart, verifier in the secret store, expiring, single use; the connected hook', () => {
  let provider: TestProvider;
  let dir: string;
  let store: Store;
  const clock = new FakeClock();
  const secrets = memorySecrets();
  const connected: ConnectedAccount[] = [];
  let accounts: ConnectedAccountService;

  /** One "process": a store opened on the data folder and a service over it (the secret store outlives it, as the keychain does). */
  const boot = async (): Promise<void> => {
    store = openStore(join(dir, 'portico.db'));
    const repo = new OAuthRepository(store.db);
    const apps = new OAuthAppRegistry(repo, async () => secrets, clock);
    accounts = new ConnectedAccountService({
      repo,
      apps,
      secrets: async () => secrets,
      clock,
      redirectUri: () => 'http://127.0.0.1:48125/oauth/callback',
      logger: createLogger('error', () => undefined),
      onAccountConnected: (account) => void connected.push(account),
    });
  };

  beforeAll(async () => {
    provider = await startTestProvider({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, email: 'ada@example.com' });
    dir = await makeDataDir();
    await boot();
    const apps = new OAuthAppRegistry(new OAuthRepository(store.db), async () => secrets, clock);
    await apps.add({
      id: 'acme',
      authorize_url: provider.authorizeUrl,
      token_url: provider.tokenUrl,
      userinfo_url: provider.userinfoUrl,
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      scopes: 'openid email',
    });
  });
  afterAll(async () => {
    await provider.stop();
    store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('a connect started before a restart completes after it; SQLite never holds the state or the verifier', async () => {
    const started = await accounts.start(actor, { oauth_app_id: 'acme' });
    const verifier = await secrets.get(verifierSecretName(stateHash(started.state)));
    expect(verifier).toMatch(/^[A-Za-z0-9_-]{43,128}$/);
    expect(accounts.pendingCount()).toBe(1);
    store.close();
    const bytes = await dataBytes(dir);
    expect(bytes.includes(Buffer.from(verifier ?? '-'))).toBe(false);
    expect(bytes.includes(Buffer.from(started.state))).toBe(false);

    await boot();
    const back = await authorize(started.authorization_url);
    expect(await accounts.complete(Object.fromEntries(back.searchParams))).toMatchObject({
      status: 200,
      title: 'Connected',
    });
    // The exchange used the verifier kept across the restart (the provider checks it against the challenge).
    expect(provider.tokenRequests.at(-1)?.code_verifier).toBe(verifier);
    expect(accounts.list('local')).toEqual([
      expect.objectContaining({ oauth_user_name: 'ada@example.com', status: 'connected' }),
    ]);
    expect(accounts.pendingCount()).toBe(0);
    expect(await secrets.get(verifierSecretName(stateHash(started.state)))).toBeUndefined();
  });

  it('the hook fired once for that connect, with the account; never for a failed, replayed, unknown or expired callback', async () => {
    expect(connected).toHaveLength(1);
    expect(connected[0]).toMatchObject({ oauth_app_id: 'acme', oauth_user_name: 'ada@example.com' });

    provider.setDecision('deny');
    try {
      const denied = await accounts.start(actor, { oauth_app_id: 'acme' });
      expect(
        (await accounts.complete(Object.fromEntries((await authorize(denied.authorization_url)).searchParams))).status,
      ).toBe(403);
    } finally {
      provider.setDecision('allow');
    }
    const started = await accounts.start(actor, { oauth_app_id: 'acme' });
    const query = Object.fromEntries((await authorize(started.authorization_url)).searchParams);
    expect(await accounts.complete({ ...query, code: 'forged-code' })).toMatchObject({
      status: 502,
      title: 'Could not connect the account',
    });
    // That state is used up: the real code cannot follow it.
    expect((await accounts.complete(query)).title).toBe('Unknown sign-in request');
    expect((await accounts.complete({ state: 'made-up', code: 'x' })).status).toBe(400);
    expect(connected).toHaveLength(1);
  });

  it('two callbacks with the same state at once: one connects, the other is refused, one exchange', async () => {
    const started = await accounts.start(actor, { oauth_app_id: 'acme' });
    const query = Object.fromEntries((await authorize(started.authorization_url)).searchParams);
    const exchanges = provider.tokenRequests.length;
    const outcomes = await Promise.all([accounts.complete(query), accounts.complete(query)]);
    expect(outcomes.map((o) => o.status).sort()).toEqual([200, 400]);
    expect(provider.tokenRequests.length).toBe(exchanges + 1);
    expect(connected).toHaveLength(2);
  });

  it('a connect expires on the injected clock across a restart: refused, nothing exchanged, its verifier deleted', async () => {
    const started = await accounts.start(actor, { oauth_app_id: 'acme' });
    const query = Object.fromEntries((await authorize(started.authorization_url)).searchParams);
    store.close();
    clock.advance(STATE_TTL_MS + 1);
    await boot();
    const exchanges = provider.tokenRequests.length;
    expect(await accounts.complete(query)).toMatchObject({ status: 400, title: 'Sign-in request expired' });
    expect(provider.tokenRequests.length).toBe(exchanges);
    expect(await secrets.get(verifierSecretName(stateHash(started.state)))).toBeUndefined();
    expect(connected).toHaveLength(2);
  });

  it('expired connects nobody came back for are swept (row and verifier) when the next one starts', async () => {
    const abandoned = await accounts.start(actor, { oauth_app_id: 'acme' });
    expect(accounts.pendingCount()).toBe(1);
    clock.advance(STATE_TTL_MS + 1);
    const fresh = await accounts.start(actor, { oauth_app_id: 'acme' });
    expect(accounts.pendingCount()).toBe(1);
    expect(await secrets.get(verifierSecretName(stateHash(abandoned.state)))).toBeUndefined();
    expect(await secrets.get(verifierSecretName(stateHash(fresh.state)))).toBeDefined();
  });

  it('a secret store that refuses the verifier leaves no pending row (the route answers its error)', async () => {
    const before = accounts.pendingCount();
    const refusing = new ConnectedAccountService({
      repo: new OAuthRepository(store.db),
      apps: new OAuthAppRegistry(new OAuthRepository(store.db), async () => secrets, clock),
      clock,
      secrets: async () => ({
        ...secrets,
        kind: 'keychain',
        set: async () => {
          throw new Error('keychain locked');
        },
      }),
      redirectUri: () => 'http://127.0.0.1:48125/oauth/callback',
    });
    await expect(refusing.start(actor, { oauth_app_id: 'acme' })).rejects.toThrow('keychain locked');
    expect(accounts.pendingCount()).toBe(before);
  });

  it('with no keychain or vault configured a connect is refused up front (503 naming PORTICO_VAULT_KEY), not lost at the callback', async () => {
    const before = accounts.pendingCount();
    const none = new ConnectedAccountService({
      repo: new OAuthRepository(store.db),
      apps: new OAuthAppRegistry(new OAuthRepository(store.db), async () => secrets, clock),
      clock,
      secrets: async () => new UnavailableSecretStore(),
      redirectUri: () => 'http://127.0.0.1:48125/oauth/callback',
    });
    await expect(none.start(actor, { oauth_app_id: 'acme' })).rejects.toMatchObject({
      status: 503,
      detail: NO_KEYCHAIN_DETAIL,
    });
    expect(accounts.pendingCount()).toBe(before);
  });
});
