import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppOptions } from '../../src-main/app.ts';
import { createLogger, secretEncodings, type Logger } from '../../src-main/base/logger.ts';
import { KeychainSecretStore, scopedSecretStore, type SecretStore } from '../../src-main/secrets/index.ts';
import { openStore } from '../../src-main/store/store.ts';
import { cli } from '../helpers/cli.ts';
import { filesUnder } from '../helpers/files.ts';
import { jsonOf, startService, testConfig, type TestService } from '../helpers/service.ts';

const PASSWORD = 'Tr0ub4dor&3 "quoted" \\ päss';
const TOTP_SEED = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

async function dataFolderHolds(dir: string, needle: string): Promise<string[]> {
  const bytes = Buffer.from(needle, 'utf8');
  const hits: string[] = [];
  for (const file of await filesUnder(dir)) if ((await readFile(file)).includes(bytes)) hits.push(file);
  return hits;
}

describe('/public/credentials: metadata in SQLite, secrets in the keychain', () => {
  let svc: TestService;
  let keychain: SecretStore;
  let otherKey: string;

  const create = (json: unknown, key = svc.accountKey) => svc.request('createCredential', { body: json }, { key });
  const list = async (key = svc.accountKey) =>
    (await svc.send('listCredentials', {}, { key })).body as Array<Record<string, unknown>>;

  beforeAll(async () => {
    svc = await startService();
    const peek = openStore(join(svc.dataDir, 'portico.db'));
    const installId = peek.meta.installId();
    peek.close();
    const config = testConfig();
    keychain = scopedSecretStore(
      new KeychainSecretStore(config.keychainService !== undefined ? { serviceName: config.keychainService } : {}),
      installId,
    );
    otherKey = String((await cli(svc.dataDir, ['user', 'create', 'eve', '--workspace', 'elsewhere'])).json.api_key);
  });
  afterAll(async () => {
    await svc?.dispose();
  });

  it('create stores the password and TOTP seed in the keychain only: the data folder (SQLite, WAL, logs) never holds their bytes', async () => {
    const made = await jsonOf(
      await create({
        service_name: 'Bank',
        username_or_email: 'ada@example.com',
        password: PASSWORD,
        totp_secret: 'jbsw y3dp ehpk 3pxp jbsw y3dp ehpk 3pxp',
        service_url: 'https://bank.example.com/login',
      }),
    );
    expect(made.status).toBe(200);
    const body = made.body as Record<string, unknown>;
    expect(body).toMatchObject({
      service_name: 'Bank',
      username_or_email: 'ada@example.com',
      user_id: 'local',
      service_url: 'https://bank.example.com/login',
      has_password: true,
      has_totp: true,
      has_gmail_oauth: false,
      has_phone_number: false,
    });
    expect(JSON.stringify(body)).not.toContain(PASSWORD);
    expect(JSON.stringify(body)).not.toContain(TOTP_SEED);
    const id = String(body.id);

    expect(await keychain.get(`credential/${id}/password`)).toBe(PASSWORD);
    expect(await keychain.get(`credential/${id}/totp`)).toBe(TOTP_SEED);
    expect(await dataFolderHolds(svc.dataDir, PASSWORD)).toEqual([]);
    expect(await dataFolderHolds(svc.dataDir, TOTP_SEED)).toEqual([]);
    expect(await dataFolderHolds(svc.dataDir, 'Tr0ub4dor')).toEqual([]);

    const got = await svc.send('getCredential', { params: { credential_id: id } }, { key: svc.accountKey });
    expect(got).toMatchObject({ status: 200, body: { id, has_password: true, has_totp: true } });
    expect(JSON.stringify(got.body)).not.toContain(PASSWORD);
    expect(await list()).toContainEqual({
      id,
      user_id: 'local',
      service_name: 'Bank',
      username_or_email: 'ada@example.com',
    });
  });

  it('delete removes the metadata and the secrets; the credential then reads 404', async () => {
    const id = String(
      (
        (await jsonOf(await create({ service_name: 'Shop', username_or_email: 'ada', password: 'shop-pass-1234' })))
          .body as { id: string }
      ).id,
    );
    expect(await keychain.get(`credential/${id}/password`)).toBe('shop-pass-1234');
    expect(
      (await svc.request('deleteCredential', { params: { credential_id: id } }, { key: svc.accountKey })).status,
    ).toBe(204);
    expect(await keychain.get(`credential/${id}/password`)).toBeUndefined();
    expect(await svc.send('getCredential', { params: { credential_id: id } }, { key: svc.accountKey })).toEqual({
      status: 404,
      body: { detail: 'Credential not found' },
    });
    expect((await list()).map((c) => c.id)).not.toContain(id);
  });

  it('a list item without a username leaves username_or_email out; any combination of methods is accepted', async () => {
    const phone = await svc.send(
      'createPhoneNumber',
      { body: { phone_number: '+15551234567', label: 'work phone' } },
      { key: svc.accountKey },
    );
    expect(phone).toMatchObject({ status: 200, body: { phone_number: '+15551234567', label: 'work phone' } });
    const phoneId = String((phone.body as { id: string }).id);
    const made = await jsonOf(await create({ service_name: 'SMS only', phone_number_id: phoneId }));
    expect(made).toMatchObject({
      status: 200,
      body: { has_password: false, has_totp: false, has_phone_number: true, username_or_email: null },
    });
    const item = (await list()).find((c) => c.id === (made.body as { id: string }).id);
    expect(item).toEqual({ id: (made.body as { id: string }).id, user_id: 'local', service_name: 'SMS only' });
  });

  it("another workspace's credential reads 404 and cannot be deleted; its list does not show ours", async () => {
    const id = String(
      ((await jsonOf(await create({ service_name: 'Private', password: 'private-pass-99' }))).body as { id: string })
        .id,
    );
    expect(await svc.send('getCredential', { params: { credential_id: id } }, { key: otherKey })).toEqual({
      status: 404,
      body: { detail: 'Credential not found' },
    });
    expect(await svc.send('deleteCredential', { params: { credential_id: id } }, { key: otherKey })).toEqual({
      status: 404,
      body: { detail: 'Credential not found' },
    });
    expect(await keychain.get(`credential/${id}/password`)).toBe('private-pass-99');
    expect(await list(otherKey)).toEqual([]);
    // A phone number of another workspace cannot be linked.
    const foreignPhone = String(
      (
        (await svc.send('createPhoneNumber', { body: { phone_number: '+4930123456' } }, { key: otherKey })).body as {
          id: string;
        }
      ).id,
    );
    const before = (await list()).length;
    expect(await jsonOf(await create({ service_name: 'X', phone_number_id: foreignPhone }))).toEqual({
      status: 404,
      body: { detail: 'Phone number not found' },
    });
    expect((await list()).length).toBe(before);
  });

  it('a user removed from the workspace gets 403 Not a member of this workspace; an org key gets 403', async () => {
    const key = String((await cli(svc.dataDir, ['user', 'create', 'leaver', '--workspace', 'default'])).json.api_key);
    expect((await create({ service_name: 'Before' }, key)).status).toBe(200);
    await cli(svc.dataDir, ['workspace', 'remove-member', 'default', 'leaver']);
    expect(await jsonOf(await create({ service_name: 'After', password: 'after-pass-1' }, key))).toEqual({
      status: 403,
      body: { detail: 'Not a member of this workspace' },
    });
    expect(await svc.send('listCredentials', {}, { key })).toEqual({
      status: 403,
      body: { detail: 'Not a member of this workspace' },
    });
    expect((await create({ service_name: 'Org' }, svc.orgKey)).status).toBe(403);
    expect((await list()).map((c) => c.service_name)).not.toContain('After');
  });

  it('bad input is a 4xx {detail} and stores nothing: unknown field, bad TOTP key, oversized or control-character values, malformed JSON', async () => {
    const before = (await list()).length;
    const bad: unknown[] = [
      {},
      { service_name: 'X', totp_secret: 'not base32!' },
      { service_name: 'X', password: 'p'.repeat(1025) },
      { service_name: 'X'.repeat(201) },
      { service_name: 'X\u0000Y' },
      { service_name: 'X', secret_question: 'what' },
      { service_name: 'X', service_url: 'javascript:alert(1)' },
      { service_name: 'X', phone_number_id: '../../etc/passwd' },
    ];
    for (const json of bad) {
      const res = await jsonOf(await create(json));
      expect(res.status, JSON.stringify(json).slice(0, 80)).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(typeof (res.body as { detail: unknown }).detail).toBe('string');
    }
    const malformed = await svc.api('/public/credentials', {
      method: 'POST',
      key: svc.accountKey,
      headers: { 'content-type': 'application/json' },
      body: '{"service_name": "X", "password": ',
    });
    expect(malformed.status).toBe(400);
    expect((await list()).length).toBe(before);
    expect(
      (await svc.send('getCredential', { params: { credential_id: '../../etc' } }, { key: svc.accountKey })).status,
    ).toBe(404);
  });
});

describe('a keychain that refuses the write leaves nothing half-written', () => {
  let svc: TestService;
  const refusing: SecretStore = {
    kind: 'keychain',
    // Like a careless keychain binding, its error repeats the value it was given.
    set: async (_name, value) => {
      throw new Error(
        `the keychain is locked; could not store ${JSON.stringify(value)} (${Buffer.from(value).toString('base64')}, ${encodeURIComponent(value)})`,
      );
    },
    get: async () => undefined,
    delete: async () => false,
  };

  const logLines: string[] = [];

  beforeAll(async () => {
    const options: Partial<AppOptions> & { logger: Logger } = {
      secrets: refusing,
      logger: createLogger('debug', (line) => void logLines.push(line)),
    };
    svc = await startService(undefined, options);
  });
  afterAll(async () => {
    await svc?.dispose();
  });

  it('create answers 500 Failed to create credential and no metadata row appears; the error logged never shows the password in any encoding', async () => {
    const res = await svc.send(
      'createCredential',
      { body: { service_name: 'Bank', password: 'never-stored-123' } },
      { key: svc.accountKey },
    );
    expect(res).toEqual({ status: 500, body: { detail: 'Failed to create credential' } });
    const log = logLines.join('');
    expect(log).toContain('the keychain is locked; could not store');
    for (const form of secretEncodings('never-stored-123')) expect(log).not.toContain(form);
    expect(log).toContain('[redacted]');
    expect((await svc.send('listCredentials', {}, { key: svc.accountKey })).body).toEqual([]);
    expect(await dataFolderHolds(svc.dataDir, 'never-stored-123')).toEqual([]);
  });
});
