import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, test as base } from '../helpers/fixtures.ts';
import { jsonOf } from '../helpers/service.ts';

/** `other`: a second connection to the service's SQLite file (closed before the service stops). */
const test = base.extend('other', { scope: 'file' }, async ({ svc }, { onCleanup }) => {
  const other = new Database(join(svc.dataDir, 'portico.db'));
  other.pragma('busy_timeout = 5000');
  other.pragma('foreign_keys = OFF');
  other.pragma('legacy_alter_table = ON');
  onCleanup(() => {
    other.close();
  });
  return other;
});

/**
 * Interface §7: a list that cannot be read answers 500 with the exact `detail`. The failure is real:
 * a second connection to the service's SQLite file takes the table away (as a damaged or foreign
 * database would), the service's own query fails, and the route must say so in the spec's words.
 */
describe('listing credentials and connected accounts when the database cannot be read', () => {
  /** Hides `table` from the running service for the length of `fn`, then puts it back. */
  const withoutTable = async (other: Database.Database, table: string, fn: () => Promise<void>): Promise<void> => {
    other.exec(`ALTER TABLE ${table} RENAME TO ${table}_hidden`);
    try {
      await fn();
    } finally {
      other.exec(`ALTER TABLE ${table}_hidden RENAME TO ${table}`);
    }
  };

  test('GET /public/credentials → 500 {"detail": "Failed to retrieve credentials"}, and works again once the table is back', async ({
    svc,
    other,
  }) => {
    const created = await svc.request(
      'createCredential',
      { body: { service_name: 'Acme', username_or_email: 'ada@example.com' } },
      { key: svc.accountKey },
    );
    expect(created.status).toBe(200);
    await withoutTable(other, 'credentials', async () => {
      const answer = await svc.request('listCredentials', {}, { key: svc.accountKey });
      expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await jsonOf(answer)).toEqual({ status: 500, body: { detail: 'Failed to retrieve credentials' } });
    });
    expect(await svc.send('listCredentials', {}, { key: svc.accountKey })).toMatchObject({
      status: 200,
      body: [{ service_name: 'Acme', username_or_email: 'ada@example.com' }],
    });
  });

  test('GET /public/connected-accounts → 500 {"detail": "Failed to retrieve connected accounts"}, and works again once the table is back', async ({
    svc,
    other,
  }) => {
    await withoutTable(other, 'connected_accounts', async () => {
      expect(await svc.send('listConnectedAccounts', {}, { key: svc.accountKey })).toEqual({
        status: 500,
        body: { detail: 'Failed to retrieve connected accounts' },
      });
    });
    expect(await svc.send('listConnectedAccounts', {}, { key: svc.accountKey })).toEqual({ status: 200, body: [] });
  });
});
