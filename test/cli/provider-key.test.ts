import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src-main/cli/main.ts';
import { KeychainSecretStore } from '../../src-main/secrets/index.ts';
import { makeDataDir } from '../helpers/service.ts';

/** `provider set-key` keeps the key in the real OS keychain (gnome-keyring under dbus-run-session in tests). */
describe('portico provider set-key', () => {
  const serviceName = `Portico-test-${randomBytes(4).toString('hex')}`;
  const keychain = new KeychainSecretStore({ serviceName });
  let dataDir: string;

  const run = async (args: string[], stdin: string) => {
    let stdout = '';
    let stderr = '';
    const code = await runCli(['--data-dir', dataDir, ...args], {
      stdout: (t) => (stdout += t),
      stderr: (t) => (stderr += t),
      readStdin: async () => stdin,
      env: { PORTICO_KEYCHAIN_SERVICE: serviceName },
    });
    return { code, stdout, stderr };
  };

  beforeAll(async () => {
    dataDir = await makeDataDir();
  });
  const installId = async (): Promise<string> => {
    const { openStore } = await import('../../src-main/store/store.ts');
    const store = openStore(`${dataDir}/portico.db`);
    try {
      return store.meta.installId();
    } finally {
      store.close();
    }
  };

  afterAll(async () => {
    await keychain.delete(`${await installId()}/provider/anthropic`);
    await rm(dataDir, { recursive: true, force: true });
  });

  it('stores the key read from stdin in the keychain, never in the database or the output', async () => {
    const secret = `sk-ant-test-${randomBytes(12).toString('hex')}`;
    const res = await run(['provider', 'set-key', 'anthropic'], `${secret}\n`);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({ ok: true });
    expect(res.stdout + res.stderr).not.toContain(secret);
    // Entries are scoped to the data dir's install id, so two data dirs never share keys.
    expect(await keychain.get(`${await installId()}/provider/anthropic`)).toBe(secret);
    expect(await keychain.get('provider/anthropic')).toBeUndefined();
    const { readFile } = await import('node:fs/promises');
    const db = await readFile(`${dataDir}/portico.db`);
    expect(db.includes(Buffer.from(secret))).toBe(false);
  });

  it('an unknown provider or an empty key is a usage error', async () => {
    expect((await run(['provider', 'set-key', 'acme-ai'], 'k')).code).toBe(2);
    const empty = await run(['provider', 'set-key', 'openai'], '  \n');
    expect(empty.code).toBe(2);
    expect(JSON.parse(empty.stderr).detail).toMatch(/standard input/);
  });
});
