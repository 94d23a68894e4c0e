import { spawnSync } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.ts';
import { makeDataDir } from '../helpers/service.ts';

const CLI_MAIN = fileURLToPath(new URL('../../src-main/cli/main.ts', import.meta.url));

describe('admin CLI', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await makeDataDir();
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('org create prints the org and its first key; the same id again fails', async () => {
    const created = await cli(dataDir, ['org', 'create', 'acme']);
    expect(created.code).toBe(0);
    expect(Object.keys(created.json).sort()).toEqual(['api_key', 'org_id']);
    expect(created.json.org_id).toBe('acme');
    expect(String(created.json.api_key)).toMatch(/^pk_org_[A-Za-z0-9_-]{43}$/);
    const again = await cli(dataDir, ['org', 'create', 'acme']);
    expect(again.code).toBe(1);
    expect(again.json).toEqual({ detail: "Organization 'acme' already exists" });
    expect(again.stdout).toBe('');
  });

  it('key create, list and revoke round-trip without ever listing a secret', async () => {
    const made = await cli(dataDir, ['key', 'create', '--org', 'acme']);
    expect(made.code).toBe(0);
    const listed = await cli(dataDir, ['key', 'list', '--org', 'acme']);
    const keys = listed.json.keys as Record<string, unknown>[];
    expect(keys).toHaveLength(2);
    expect(JSON.stringify(listed.json)).not.toContain(String(made.json.api_key));
    expect(keys.find((k) => k.id === made.json.id)).toMatchObject({ kind: 'org', org_id: 'acme', revoked_at: null });
    expect((await cli(dataDir, ['key', 'revoke', String(made.json.id)])).json).toEqual({ revoked: true });
    const after = (await cli(dataDir, ['key', 'list', '--org', 'acme'])).json.keys as Record<string, unknown>[];
    expect(after.find((k) => k.id === made.json.id)?.revoked_at).toEqual(expect.any(String));
    expect((await cli(dataDir, ['key', 'revoke', String(made.json.id)])).json).toEqual({
      detail: `Key '${String(made.json.id)}' is already revoked`,
    });
    expect((await cli(dataDir, ['key', 'revoke', 'nope'])).code).toBe(1);
  });

  it('key commands for an unknown org fail with a detail', async () => {
    const res = await cli(dataDir, ['key', 'create', '--org', 'ghost']);
    expect(res.code).toBe(1);
    expect(res.json).toEqual({ detail: "Organization 'ghost' not found" });
  });

  it('user create makes the user, the workspace and the membership, and prints an account key', async () => {
    const res = await cli(dataDir, ['user', 'create', 'alice', '--workspace', 'team']);
    expect(res.code).toBe(0);
    expect(res.json).toMatchObject({ user_id: 'alice', workspace_id: 'team' });
    expect(String(res.json.api_key)).toMatch(/^pk_acct_/);
    const { openStore } = await import('../../src-main/store/store.ts');
    const store = openStore(`${dataDir}/portico.db`);
    expect(store.principals.isMember('team', 'alice')).toBe(true);
    expect(store.apiKeys.authenticate(String(res.json.api_key))).toMatchObject({
      kind: 'account',
      userId: 'alice',
      workspaceId: 'team',
    });
    store.close();
  });

  it("key list shows the account keys of the org's workspaces with their workspace and user; key revoke takes that id", async () => {
    await cli(dataDir, ['org', 'create', 'keyed']);
    await cli(dataDir, ['org', 'create', 'unkeyed']);
    const made = await cli(dataDir, ['user', 'create', 'carol', '--workspace', 'keyed-ws', '--org', 'keyed']);
    expect(made.code).toBe(0);
    const listed = (await cli(dataDir, ['key', 'list', '--org', 'keyed'])).json.keys as Record<string, unknown>[];
    const account = listed.filter((key) => key.kind === 'account');
    expect(account).toEqual([
      expect.objectContaining({
        kind: 'account',
        org_id: 'keyed',
        workspace_id: 'keyed-ws',
        user_id: 'carol',
        revoked_at: null,
        prefix: String(made.json.api_key).slice(0, 14),
      }),
    ]);
    expect(JSON.stringify(listed)).not.toContain(String(made.json.api_key));
    // Another org's list does not show it.
    const other = (await cli(dataDir, ['key', 'list', '--org', 'unkeyed'])).json.keys as Record<string, unknown>[];
    expect(other.map((key) => key.id)).not.toContain(account[0]?.id);
    expect((await cli(dataDir, ['key', 'revoke', String(account[0]?.id)])).json).toEqual({ revoked: true });
    const { openStore } = await import('../../src-main/store/store.ts');
    const store = openStore(`${dataDir}/portico.db`);
    expect(store.apiKeys.authenticate(String(made.json.api_key))).toBeUndefined();
    store.close();
    const after = (await cli(dataDir, ['key', 'list', '--org', 'keyed'])).json.keys as Record<string, unknown>[];
    expect(after.find((key) => key.id === account[0]?.id)?.revoked_at).toEqual(expect.any(String));
  });

  it('workspace add-member and remove-member', async () => {
    await cli(dataDir, ['user', 'create', 'bob', '--workspace', 'solo']);
    expect((await cli(dataDir, ['workspace', 'add-member', 'team', 'bob'])).json).toEqual({ ok: true });
    expect((await cli(dataDir, ['workspace', 'remove-member', 'team', 'bob'])).json).toEqual({ ok: true });
    const again = await cli(dataDir, ['workspace', 'remove-member', 'team', 'bob']);
    expect(again.code).toBe(1);
    expect(again.json).toEqual({ detail: "User 'bob' is not a member of workspace 'team'" });
    expect((await cli(dataDir, ['workspace', 'add-member', 'nowhere', 'bob'])).json).toEqual({
      detail: "Workspace 'nowhere' not found",
    });
  });

  it('usage errors exit 2 with the usage in the detail', async () => {
    for (const args of [
      ['frobnicate'],
      ['org', 'create'],
      ['org', 'create', 'bad id'],
      ['key', 'list'],
      ['--bogus-flag'],
    ]) {
      const res = await cli(dataDir, args);
      expect(res.code, args.join(' ')).toBe(2);
      expect(String(res.json.detail), args.join(' ')).toMatch(/usage: portico/);
    }
  });

  it('runs as a real process: JSON on stdout, exit 0; failure JSON on stderr, non-zero', () => {
    const ok = spawnSync(process.execPath, [CLI_MAIN, '--data-dir', dataDir, 'org', 'create', 'proc-org'], {
      encoding: 'utf8',
    });
    expect(ok.status).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ org_id: 'proc-org' });
    const bad = spawnSync(process.execPath, [CLI_MAIN, '--data-dir', dataDir, 'org', 'create', 'proc-org'], {
      encoding: 'utf8',
    });
    expect(bad.status).not.toBe(0);
    expect(bad.stdout).toBe('');
    expect(JSON.parse(bad.stderr)).toEqual({ detail: "Organization 'proc-org' already exists" });
  });

  it('PORTICO_DATA_DIR is used when --data-dir is absent', () => {
    const res = spawnSync(process.execPath, [CLI_MAIN, 'key', 'list', '--org', 'acme'], {
      encoding: 'utf8',
      env: { ...process.env, PORTICO_DATA_DIR: dataDir },
    });
    expect(res.status).toBe(0);
    expect((JSON.parse(res.stdout) as { keys: unknown[] }).keys.length).toBeGreaterThan(0);
  });
});
