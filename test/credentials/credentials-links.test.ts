import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeychainSecretStore, scopedSecretStore, type SecretStore } from '../../src-main/secrets/index.ts';
import { cli } from '../helpers/cli.ts';
import { jsonOf, startService, type TestService } from '../helpers/service.ts';
import { authorize, startTestProvider, type TestProvider } from '../oauth/helpers/oauthProvider.ts';

const CLIENT_ID = 'portico-links-test';
const CLIENT_SECRET = 'client-secret-links-5d1e';
const PASSWORD = 'Linked-Pass-4411';

describe("a credential links only the caller's connected account and a phone number of its workspace (real keychain, real OAuth round trip)", () => {
  let svc: TestService;
  let provider: TestProvider;
  let bobKey: string;
  let eveKey: string;
  /** Every secret name the app wrote to the keychain, in order. */
  const written: string[] = [];

  const create = (json: Record<string, unknown>, key = svc.accountKey) =>
    svc.request('createCredential', { body: json }, { key });
  const count = async (): Promise<number> =>
    ((await svc.send('listCredentials', {}, { key: svc.accountKey })).body as unknown[]).length;
  /** Connects an account of the key's user through the provider and the loopback callback; returns its id. */
  const connect = async (key: string): Promise<string> => {
    const started = await svc.send('connectAccount', { body: { oauth_app_id: 'mail' } }, { key });
    expect(started.status).toBe(200);
    expect(
      (await fetch(await authorize((started.body as { authorization_url: string }).authorization_url))).status,
    ).toBe(200);
    const list = (await svc.send('listConnectedAccounts', {}, { key })).body as Array<{ id: string }>;
    return list.at(-1)!.id;
  };
  /** Creating with `link` answers 404 `detail` and writes nothing: no credential row, no keychain entry. */
  const refused = async (link: Record<string, unknown>, detail: string): Promise<void> => {
    const rows = await count();
    const secrets = written.length;
    expect(
      await jsonOf(
        await create({
          service_name: 'Refused',
          username_or_email: 'ada',
          password: PASSWORD,
          totp_secret: 'JBSWY3DPEHPK3PXP',
          ...link,
        }),
      ),
    ).toEqual({ status: 404, body: { detail } });
    expect(await count()).toBe(rows);
    expect(written.slice(secrets)).toEqual([]);
  };

  beforeAll(async () => {
    provider = await startTestProvider({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, email: 'ada@example.com' });
    const keychain = scopedSecretStore(new KeychainSecretStore(), `test-credential-links-${Date.now()}`);
    const recording: SecretStore = {
      kind: keychain.kind,
      get: (name) => keychain.get(name),
      delete: (name) => keychain.delete(name),
      set: async (name, value) => {
        written.push(name);
        await keychain.set(name, value);
      },
    };
    svc = await startService(undefined, { secrets: recording });
    bobKey = String((await cli(svc.dataDir, ['user', 'create', 'bob', '--workspace', 'default'])).json.api_key);
    eveKey = String((await cli(svc.dataDir, ['user', 'create', 'eve', '--workspace', 'elsewhere'])).json.api_key);
    const added = await svc.request(
      'addOAuthApp',
      {
        body: {
          id: 'mail',
          authorize_url: provider.authorizeUrl,
          token_url: provider.tokenUrl,
          userinfo_url: provider.userinfoUrl,
          client_id: CLIENT_ID,
          client_secret: CLIENT_SECRET,
          scopes: ['openid', 'email'],
        },
      },
      { key: null, headers: { 'x-console-token': svc.consoleToken } },
    );
    expect(added.status).toBe(201);
  });
  afterAll(async () => {
    await svc?.dispose();
    await provider?.stop();
  });

  it("the caller's own connected account is linked (has_gmail_oauth)", async () => {
    const mine = await connect(svc.accountKey);
    const made = await jsonOf(
      await create({
        service_name: 'Mail codes',
        username_or_email: 'ada',
        password: PASSWORD,
        gmail_oauth_account_id: mine,
      }),
    );
    expect(made).toMatchObject({ status: 200, body: { has_gmail_oauth: true, has_password: true } });
    expect(written.at(-1)).toBe(`credential/${(made.body as { id: string }).id}/password`);
  });

  it('an unknown gmail_oauth_account_id answers 404 Connected account not found; nothing is written', async () => {
    await refused({ gmail_oauth_account_id: randomUUID() }, 'Connected account not found');
  });

  it("another user's connected account (same workspace) answers 404 and is not linked; that user may link it", async () => {
    const bobs = await connect(bobKey);
    await refused({ gmail_oauth_account_id: bobs }, 'Connected account not found');
    expect(
      await jsonOf(await create({ service_name: 'Bob mail', gmail_oauth_account_id: bobs }, bobKey)),
    ).toMatchObject({ status: 200, body: { has_gmail_oauth: true, user_id: 'bob' } });
  });

  it("an unknown phone number, or another workspace's, answers 404 Phone number not found; nothing is written", async () => {
    await refused({ phone_number_id: randomUUID() }, 'Phone number not found');
    const foreign = await svc.send('createPhoneNumber', { body: { phone_number: '+4930123456' } }, { key: eveKey });
    expect(foreign.status).toBe(200);
    await refused({ phone_number_id: (foreign.body as { id: string }).id }, 'Phone number not found');
    // Both links checked: a good phone does not let a foreign mail account through.
    const phone = await svc.send(
      'createPhoneNumber',
      { body: { phone_number: '+15550001111' } },
      { key: svc.accountKey },
    );
    await refused(
      { phone_number_id: (phone.body as { id: string }).id, gmail_oauth_account_id: randomUUID() },
      'Connected account not found',
    );
    expect(
      await jsonOf(await create({ service_name: 'SMS', phone_number_id: (phone.body as { id: string }).id })),
    ).toMatchObject({ status: 200, body: { has_phone_number: true } });
  });

  it('a malformed or oversized link id answers 422 {detail}; nothing is written', async () => {
    const rows = await count();
    const secrets = written.length;
    for (const bad of ['../../etc/passwd', 'x'.repeat(10_000), "1' OR '1'='1"]) {
      for (const field of ['gmail_oauth_account_id', 'phone_number_id']) {
        const res = await jsonOf(await create({ service_name: 'Bad', password: PASSWORD, [field]: bad }));
        expect(res.status).toBe(422);
        expect(typeof (res.body as { detail: unknown }).detail).toBe('string');
      }
    }
    expect(await count()).toBe(rows);
    expect(written.slice(secrets)).toEqual([]);
  });
});
