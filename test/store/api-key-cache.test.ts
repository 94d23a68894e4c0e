import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src-main/store/store.ts';

// Who a key speaks for is cached by the key's hash (store/apiKeys.ts); these check that nothing it
// depends on can change without the next request seeing it, whichever connection changed it.
describe('API key cache', () => {
  let dir: string;
  let store: Store;
  /** A second connection to the same file: what the CLI is, in its own process. */
  let other: Store;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'key-cache-'));
    store = openStore(join(dir, 'portico.db'));
    store.principals.createOrg('default');
    store.principals.ensureUser('local');
    store.principals.ensureWorkspace('ws', 'default');
    store.principals.addMember('ws', 'local');
    other = openStore(join(dir, 'portico.db'));
  });
  afterEach(async () => {
    other.close();
    store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('a live key is read once and then served from the cache; an unknown key is never cached', () => {
    const { apiKey, info } = store.apiKeys.issueOrgKey('default');
    expect(store.apiKeys.authenticate(apiKey)).toEqual({ kind: 'org', keyId: info.id, orgId: 'default' });
    expect(store.apiKeys.cachedCount).toBe(1);
    expect(store.apiKeys.authenticate(apiKey)).toEqual({ kind: 'org', keyId: info.id, orgId: 'default' });
    expect(store.apiKeys.authenticate('pk_org_unknown')).toBeUndefined();
    expect(store.apiKeys.cachedCount).toBe(1);
    // What a caller gets is its own copy: changing it does not change the next answer.
    const principal = store.apiKeys.authenticate(apiKey) as { orgId: string };
    principal.orgId = 'rival';
    expect(store.apiKeys.authenticate(apiKey)).toMatchObject({ orgId: 'default' });
  });

  it('a key revoked through this connection fails on the very next request', () => {
    const { apiKey, info } = store.apiKeys.issueOrgKey('default');
    const kept = store.apiKeys.issueOrgKey('default');
    expect(store.apiKeys.authenticate(apiKey)).toBeDefined();
    expect(store.apiKeys.authenticate(kept.apiKey)).toBeDefined();
    expect(store.apiKeys.revoke(info.id)).toBe(true);
    expect(store.apiKeys.authenticate(apiKey)).toBeUndefined();
    expect(store.apiKeys.authenticate(kept.apiKey)).toMatchObject({ keyId: kept.info.id });
  });

  it('a key revoked by another connection (the CLI) fails on the very next request', () => {
    const { apiKey, info } = store.apiKeys.issueOrgKey('default');
    expect(store.apiKeys.authenticate(apiKey)).toBeDefined();
    expect(store.apiKeys.cachedCount).toBe(1);
    expect(other.apiKeys.revoke(info.id)).toBe(true);
    expect(store.apiKeys.authenticate(apiKey)).toBeUndefined();
  });

  it('an account key follows its membership at once, removed here or by another connection', () => {
    const { apiKey } = store.apiKeys.issueAccountKey('local', 'ws');
    expect(store.apiKeys.authenticate(apiKey)).toMatchObject({ kind: 'account', member: true, orgId: 'default' });
    store.principals.removeMember('ws', 'local');
    expect(store.apiKeys.authenticate(apiKey)).toMatchObject({ member: false });
    store.principals.addMember('ws', 'local');
    expect(store.apiKeys.authenticate(apiKey)).toMatchObject({ member: true });
    other.principals.removeMember('ws', 'local');
    expect(store.apiKeys.authenticate(apiKey)).toMatchObject({ member: false });
  });

  it('the store generation moves with a write on either connection, and only then', () => {
    const before = store.generation();
    expect(store.generation()).toBe(before);
    store.apiKeys.issueOrgKey('default');
    const afterOwnWrite = store.generation();
    expect(afterOwnWrite).not.toBe(before);
    other.principals.createOrg('rival');
    expect(store.generation()).not.toBe(afterOwnWrite);
  });
});
