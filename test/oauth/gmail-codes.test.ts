import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../src-main/base/config.ts';
import { ConnectedAccountService } from '../../src-main/engine/oauth/connectedAccounts.ts';
import { extractCode, extractMagicLink, GmailCodeReader, GmailCodeSource } from '../../src-main/engine/oauth/gmail.ts';
import { OAuthAppRegistry } from '../../src-main/engine/oauth/oauthApps.ts';
import { OAuthRepository } from '../../src-main/store/oauth.ts';
import { openStore, type Store } from '../../src-main/store/store.ts';
import { FakeClock } from '../helpers/fakeClock.ts';
import { memorySecrets } from '../helpers/memorySecrets.ts';
import { makeDataDir } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';
import { startGmailStandIn, type GmailStandIn } from './helpers/gmailStandIn.ts';
import { connectThrough, startTestProvider, type TestProvider } from './helpers/oauthProvider.ts';

describe('codes by mail: the Gmail reader through a connected Google account', () => {
  let provider: TestProvider;
  let gmail: GmailStandIn;
  let dir: string;
  let store: Store;
  const clock = new FakeClock();
  let accounts: ConnectedAccountService;
  let reader: GmailCodeReader;
  let accountId: string;
  const t0 = clock.now().getTime();

  beforeAll(async () => {
    provider = await startTestProvider({
      clientId: 'gmail-test',
      clientSecret: 'gmail-test-secret',
      email: 'ada@gmail.example',
    });
    gmail = await startGmailStandIn((token) => provider.isLiveAccessToken(token));
    dir = await makeDataDir();
    store = openStore(join(dir, 'portico.db'));
    const secrets = memorySecrets();
    const repo = new OAuthRepository(store.db);
    const apps = new OAuthAppRegistry(repo, async () => secrets, clock);
    // The google preset with its endpoints pointed at the local provider.
    await apps.add({
      id: 'google',
      client_id: 'gmail-test',
      client_secret: 'gmail-test-secret',
      authorize_url: provider.authorizeUrl,
      token_url: provider.tokenUrl,
      userinfo_url: provider.userinfoUrl,
    });
    accounts = new ConnectedAccountService({
      repo,
      apps,
      secrets: async () => secrets,
      redirectUri: () => 'http://127.0.0.1:48124/oauth/callback',
      clock,
    });
    expect((await connectThrough(accounts, 'google')).status).toBe(200);
    accountId = accounts.list('local')[0]?.id ?? '';
    const base = readConfig({ PORTICO_GMAIL_API_BASE: gmail.baseUrl }).gmailApiBase;
    reader = new GmailCodeReader({
      accessToken: (id) => accounts.accessToken(id),
      ...(base !== undefined && { baseUrl: base }),
      clock,
      pollMs: 5000,
    });
  });
  afterAll(async () => {
    await gmail.stop();
    await provider.stop();
    store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('PORTICO_GMAIL_API_BASE must be an http(s) URL', () => {
    expect(() => readConfig({ PORTICO_GMAIL_API_BASE: 'not a url' })).toThrow(/PORTICO_GMAIL_API_BASE/);
    expect(readConfig({}).gmailApiBase).toBeUndefined();
  });

  it('lists with a query, gets the newest match in full, decodes the multipart base64url body and reads the code', async () => {
    gmail.add({
      id: 'm1',
      receivedAt: new Date(t0 - 60_000),
      subject: 'Old code',
      plain: 'Your verification code is 111111',
    });
    gmail.add({
      id: 'm2',
      receivedAt: new Date(t0 + 1000),
      subject: 'Your code',
      plain: 'Hello Ada,\r\n\r\nYour verification code is 482 913.\r\nIt expires in 10 minutes. Ref 2026.',
      html: '<p>Your verification code is <b>482913</b></p>',
    });
    const found = await reader.newest(accountId, { since: new Date(t0) });
    expect(found).toMatchObject({ code: '482913', message_id: 'm2', received_at: new Date(t0 + 1000).toISOString() });
    const calls = gmail.requests.slice(-2);
    expect(calls[0]?.path).toMatch(/^\/gmail\/v1\/users\/me\/messages\?/);
    expect(calls[0]?.q).toContain(`after:${Math.floor(t0 / 1000)}`);
    expect(calls[1]?.path).toBe('/gmail/v1/users/me/messages/m2?format=full');
    expect(provider.isLiveAccessToken(calls[1]?.token ?? '')).toBe(true);
  });

  it('reads a magic link from an HTML-only mail, ignoring unsubscribe links', async () => {
    gmail.add({
      id: 'm3',
      receivedAt: new Date(t0 + 2000),
      subject: 'Sign in',
      html: '<html><body><a href="https://example.com/unsubscribe?u=1">Unsubscribe</a><p>Click to sign in:</p><a href="https://example.com/auth/magic?token=abc&amp;u=ada">Sign in to Example</a></body></html>',
    });
    expect(await reader.newest(accountId, { since: new Date(t0 + 1500) })).toEqual({
      link: 'https://example.com/auth/magic?token=abc&u=ada',
      message_id: 'm3',
      received_at: new Date(t0 + 2000).toISOString(),
    });
  });

  it('nothing since the given instant: undefined', async () => {
    expect(await reader.newest(accountId, { since: new Date(t0 + 3_600_000) })).toBeUndefined();
  });

  it('the code source for credentials waits (injected clock) until a mail with a code arrives, and refreshes the token on the way', async () => {
    const source = new GmailCodeSource(reader, (id) => accounts.ownerOf(id));
    expect(
      await source.next(
        { gmail_oauth_account_id: null, created_by: 'local' },
        new Date(t0).toISOString(),
        new AbortController().signal,
      ),
    ).toBeUndefined();
    // Another user's credential naming this account never opens its mailbox.
    const listsAtStart = gmail.requests.length;
    expect(
      await source.next(
        { gmail_oauth_account_id: accountId, created_by: 'mallory' },
        new Date(t0).toISOString(),
        new AbortController().signal,
      ),
    ).toBeUndefined();
    expect(gmail.requests.length).toBe(listsAtStart);
    const since = new Date(t0 + 10_000);
    const listsBefore = gmail.requests.length;
    const waiting = source.next(
      { gmail_oauth_account_id: accountId, created_by: 'local' },
      since.toISOString(),
      new AbortController().signal,
    );
    await until(() => gmail.requests.length > listsBefore && clock.pending().length > 0, 'the first poll');
    // The access token is near its end by the next poll: the reader's call refreshes it first.
    const refreshes = provider.refreshCount();
    clock.advance(3600_000);
    gmail.add({ id: 'm4', receivedAt: clock.now(), subject: 'Code', plain: 'Use 90210 to finish signing in' });
    await until(
      async () => clock.pending().length > 0 || gmail.requests.some((r) => r.path.includes('m4')),
      'the poll after the clock moved',
    );
    clock.advance(5000);
    expect(await waiting).toBe('90210');
    expect(provider.refreshCount()).toBeGreaterThan(refreshes);
  });

  it('an aborted wait stops polling', async () => {
    const stop = new AbortController();
    const waiting = reader.waitFor(accountId, new Date(t0 + 10 * 3600_000), stop.signal);
    await until(() => clock.pending().length > 0, 'the wait to sleep');
    stop.abort(new Error('another source won'));
    await expect(waiting).rejects.toThrow('another source won');
    expect(clock.pending()).toEqual([]);
  });

  it('code and link extraction', () => {
    expect(extractCode('Your Example security code: 12-34-56')).toBe('123456');
    expect(extractCode('Order 2026-11-23 shipped; code 7781')).toBe('7781');
    expect(extractCode('no digits here')).toBeUndefined();
    expect(extractMagicLink('Confirm: https://example.com/verify?t=x1\nhttps://example.com/privacy', '')).toBe(
      'https://example.com/verify?t=x1',
    );
    expect(extractMagicLink('', '<a href="javascript:alert(1)">Sign in</a>')).toBeUndefined();
  });
});
