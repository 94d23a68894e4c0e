import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { findCredentialsAsync } from '@napi-rs/keyring';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createSecretStore,
  KeychainSecretStore,
  NO_KEYCHAIN_DETAIL,
  openVaultStore,
  SecretsUnavailableError,
  UnavailableSecretStore,
  VAULT_FILE_NAME,
} from '../../src-main/secrets/index.ts';

const run = promisify(execFile);
const secretsModule = fileURLToPath(new URL('../../src-main/secrets/index.ts', import.meta.url));

const NO_SECRET_SERVICE = [
  'The keychain tests need a Secret Service. Run them through `npm test`, or:',
  "XDG_DATA_HOME=$(mktemp -d) dbus-run-session -- sh -c 'printf portico-test | gnome-keyring-daemon --unlock --components=secrets >/dev/null; npx vitest run test/secrets'",
].join('\n');

const testServiceName = (): string => `Portico-test-${randomBytes(6).toString('hex')}`;

async function removeAllEntries(serviceName: string): Promise<void> {
  const store = new KeychainSecretStore({ serviceName });
  for (const { account } of await findCredentialsAsync(serviceName)) await store.delete(account);
}

describe('keychain store', () => {
  const serviceName = testServiceName();
  const store = new KeychainSecretStore({ serviceName });
  let reachable = false;

  beforeAll(async () => {
    const probe = await store.probe();
    if (!probe.available) throw new Error(`${NO_SECRET_SERVICE}\n(probe: ${probe.reason})`);
    reachable = true;
  });

  afterAll(async () => {
    if (!reachable) return;
    await removeAllEntries(serviceName);
    expect(await findCredentialsAsync(serviceName)).toEqual([]);
  });

  it('returns what was set, the newer value after an overwrite, and nothing after delete', async () => {
    await store.set('provider/anthropic', 'sk-ant-first');
    expect(await store.get('provider/anthropic')).toBe('sk-ant-first');

    await store.set('provider/anthropic', 'sk-ant-second');
    expect(await store.get('provider/anthropic')).toBe('sk-ant-second');

    expect(await store.delete('provider/anthropic')).toBe(true);
    expect(await store.get('provider/anthropic')).toBeUndefined();
  });

  it('reads a name that was never set as undefined and deleting it reports false', async () => {
    expect(await store.get('credential/never-set/password')).toBeUndefined();
    expect(await store.delete('credential/never-set/password')).toBe(false);
  });

  it('keeps unicode and 4 KB values byte for byte', async () => {
    const unicode = 'pässwörd — 密码 🔑 \u{1F600} "quoted" \\ back\nslash';
    const long = randomBytes(3072).toString('base64');
    expect(long).toHaveLength(4096);

    await store.set('credential/unicode/password', unicode);
    await store.set('credential/long/totp_secret', long);

    expect(await store.get('credential/unicode/password')).toBe(unicode);
    expect(await store.get('credential/long/totp_secret')).toBe(long);
    await store.delete('credential/unicode/password');
    await store.delete('credential/long/totp_secret');
  });

  it('keeps the same name under another service name separate', async () => {
    const otherServiceName = testServiceName();
    const other = new KeychainSecretStore({ serviceName: otherServiceName });
    try {
      await store.set('webhook/org_1', 'whsec_ours');
      await other.set('webhook/org_1', 'whsec_theirs');
      expect(await store.get('webhook/org_1')).toBe('whsec_ours');
      expect(await other.get('webhook/org_1')).toBe('whsec_theirs');
    } finally {
      await removeAllEntries(otherServiceName);
      await store.delete('webhook/org_1');
    }
  });

  it('probe succeeds against a live keychain and leaves no probe entry behind', async () => {
    expect(await store.probe()).toEqual({ available: true });
    expect(await findCredentialsAsync(serviceName)).toEqual([]);
  });

  it('createSecretStore prefers the keychain even when a vault key is configured', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'portico-secrets-'));
    try {
      const chosen = await createSecretStore({ dataDir, vaultKey: 'unused', serviceName });
      expect(chosen.kind).toBe('keychain');
      expect(await readdir(dataDir)).toEqual([]);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('without a D-Bus session', () => {
  let dataDir: string;

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'portico-secrets-'));
  });

  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('the probe fails; the factory refuses secrets without a vault key, uses the vault with one, and refuses a wrong one', async () => {
    // A child process, because the keychain binding reads the bus address when it first connects.
    const script = `
      const { KeychainSecretStore, createSecretStore } = await import(${JSON.stringify(secretsModule)});
      const serviceName = ${JSON.stringify(testServiceName())};
      const dataDir = ${JSON.stringify(dataDir)};
      const probe = await new KeychainSecretStore({ serviceName }).probe();
      const bare = await createSecretStore({ dataDir, serviceName });
      const refused = await bare.set('provider/openai', 'sk-x').then(() => undefined, (e) => ({ name: e.name, status: e.status, detail: e.detail }));
      const vault = await createSecretStore({ dataDir, serviceName, vaultKey: 'correct horse' });
      await vault.set('provider/openai', 'sk-from-vault');
      const vaultValue = await vault.get('provider/openai');
      const wrongKey = await createSecretStore({ dataDir, serviceName, vaultKey: 'wrong' }).then(() => undefined, (e) => ({ status: e.status, detail: e.detail }));
      console.log(JSON.stringify({ probe, bareKind: bare.kind, refused, vaultKind: vault.kind, vaultValue, wrongKey }));
    `;
    const { stdout } = await run(process.execPath, ['--no-warnings', '--input-type=module', '--eval', script], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/portico-bus',
      },
      timeout: 30_000,
    });
    const report = JSON.parse(stdout) as Record<string, unknown>;

    expect(report.probe).toMatchObject({ available: false, reason: expect.any(String) });
    expect(report.bareKind).toBe('unavailable');
    expect(report.refused).toEqual({ name: 'SecretsUnavailableError', status: 503, detail: NO_KEYCHAIN_DETAIL });
    expect(report.vaultKind).toBe('vault');
    expect(report.vaultValue).toBe('sk-from-vault');
    expect(report.wrongKey).toMatchObject({
      status: 503,
      detail: expect.stringContaining('PORTICO_VAULT_KEY is wrong'),
    });
  });
});

describe('vault store', () => {
  let dataDir: string;
  let vaultPath: string;

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'portico-vault-'));
    vaultPath = join(dataDir, VAULT_FILE_NAME);
  });

  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('round-trips, overwrites and deletes, and a new instance with the same key reads the same secrets', async () => {
    const first = await openVaultStore({ dataDir, vaultKey: 'correct horse battery staple' });
    expect(first.kind).toBe('vault');
    expect(await first.get('provider/anthropic')).toBeUndefined();

    await first.set('provider/anthropic', 'sk-ant-1');
    await first.set('provider/anthropic', 'sk-ant-2');
    await first.set('webhook/org_1', 'whsec_1');
    await first.set('credential/c1/password', 'pässwörd 🔑');
    expect(await first.delete('webhook/org_1')).toBe(true);
    expect(await first.delete('webhook/org_1')).toBe(false);

    const reopened = await openVaultStore({ dataDir, vaultKey: 'correct horse battery staple' });
    expect(await reopened.get('provider/anthropic')).toBe('sk-ant-2');
    expect(await reopened.get('credential/c1/password')).toBe('pässwörd 🔑');
    expect(await reopened.get('webhook/org_1')).toBeUndefined();
  });

  it('refuses a wrong key with a clear error instead of reading as empty, and leaves the file intact', async () => {
    const vault = await openVaultStore({ dataDir, vaultKey: 'right key' });
    await vault.set('provider/openai', 'sk-openai');
    const before = await readFile(vaultPath);

    const opening = openVaultStore({ dataDir, vaultKey: 'wrong key' });
    await expect(opening).rejects.toBeInstanceOf(SecretsUnavailableError);
    await expect(opening).rejects.toMatchObject({
      status: 503,
      detail: expect.stringContaining('PORTICO_VAULT_KEY is wrong'),
    });

    expect(await readFile(vaultPath)).toEqual(before);
    expect(await (await openVaultStore({ dataDir, vaultKey: 'right key' })).get('provider/openai')).toBe('sk-openai');
  });

  it('refuses a file whose ciphertext was altered', async () => {
    const vault = await openVaultStore({ dataDir, vaultKey: 'k' });
    await vault.set('provider/openai', 'sk-openai');
    const envelope = JSON.parse(await readFile(vaultPath, 'utf8')) as { ciphertext: string };
    const bytes = Buffer.from(envelope.ciphertext, 'base64');
    bytes[0] = (bytes[0] ?? 0) ^ 0xff;
    await writeFile(vaultPath, JSON.stringify({ ...envelope, ciphertext: bytes.toString('base64') }));

    await expect(vault.get('provider/openai')).rejects.toMatchObject({
      status: 503,
      detail: expect.stringContaining('altered'),
    });
  });

  it('an envelope that breaks its schema is refused naming the file and the field; a newer version says so', async () => {
    const vault = await openVaultStore({ dataDir, vaultKey: 'k' });
    await vault.set('provider/openai', 'sk-openai');
    const envelope = JSON.parse(await readFile(vaultPath, 'utf8')) as { kdf: Record<string, unknown>; version: number };
    await writeFile(vaultPath, JSON.stringify({ ...envelope, kdf: { ...envelope.kdf, N: 3000 } }));
    await expect(vault.get('provider/openai')).rejects.toMatchObject({
      status: 503,
      detail: `The secrets vault ${vaultPath} is damaged or not a Portico vault: kdf.N: must be a power of two`,
    });
    const { iv: _dropped, ...withoutIv } = { ...envelope, iv: '' };
    await writeFile(vaultPath, JSON.stringify(withoutIv));
    await expect(vault.get('provider/openai')).rejects.toMatchObject({
      status: 503,
      detail: expect.stringMatching(/not a Portico vault: iv: is required$/),
    });
    await writeFile(vaultPath, JSON.stringify({ ...envelope, version: 2 }));
    await expect(vault.get('provider/openai')).rejects.toMatchObject({
      status: 503,
      detail: `The secrets vault ${vaultPath} has version 2, which this Portico cannot read`,
    });
  });

  it('never writes a secret or its name in plaintext, and keeps the file private with no temp files left', async () => {
    const vault = await openVaultStore({ dataDir, vaultKey: 'k' });
    const value = 'sk-plaintext-marker-7f3a9c';
    await vault.set('credential/cred_marker_42/password', value);
    await vault.set('provider/anthropic', value);

    const raw = await readFile(vaultPath);
    for (const needle of [
      value,
      'cred_marker_42',
      'provider/anthropic',
      Buffer.from(value).toString('base64').slice(0, 16),
    ]) {
      expect(raw.includes(needle)).toBe(false);
    }
    if (process.platform !== 'win32') expect((await stat(vaultPath)).mode & 0o777).toBe(0o600);
    expect(await readdir(dataDir)).toEqual([VAULT_FILE_NAME]);
  });

  it('does not lose a write made by another instance (another process) in between', async () => {
    const service = await openVaultStore({ dataDir, vaultKey: 'k' });
    const cli = await openVaultStore({ dataDir, vaultKey: 'k' });
    await service.set('provider/anthropic', 'from-service');
    await cli.set('provider/openai', 'from-cli');
    await service.set('webhook/org_1', 'from-service-again');

    expect(await cli.get('provider/anthropic')).toBe('from-service');
    expect(await service.get('provider/openai')).toBe('from-cli');
    expect(await cli.get('webhook/org_1')).toBe('from-service-again');
  });

  it('keeps every one of many concurrent writes', async () => {
    const vault = await openVaultStore({ dataDir, vaultKey: 'k' });
    await Promise.all(Array.from({ length: 20 }, (_, i) => vault.set(`credential/c${i}/password`, `pw-${i}`)));
    const reopened = await openVaultStore({ dataDir, vaultKey: 'k' });
    for (let i = 0; i < 20; i++) expect(await reopened.get(`credential/c${i}/password`)).toBe(`pw-${i}`);
  });
});

describe('unavailable store', () => {
  it('refuses to store a secret with the exact 503 detail, reads nothing and deletes nothing', async () => {
    const store = new UnavailableSecretStore();
    const setting = store.set('provider/anthropic', 'sk-ant');
    await expect(setting).rejects.toBeInstanceOf(SecretsUnavailableError);
    await expect(setting).rejects.toMatchObject({
      status: 503,
      detail:
        'No OS keychain is available to store secrets; set PORTICO_VAULT_KEY to use an encrypted file vault instead',
    });
    expect(await store.get('provider/anthropic')).toBeUndefined();
    expect(await store.delete('provider/anthropic')).toBe(false);
  });
});

describe('secret names', () => {
  it('rejects empty names and names with control characters or surrounding spaces', async () => {
    const store = new UnavailableSecretStore();
    for (const name of ['', ' provider/x', 'provider/x\n', 'a\u0000b']) {
      await expect(store.get(name)).rejects.toBeInstanceOf(TypeError);
    }
  });
});
