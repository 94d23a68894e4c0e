import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestProvider, type TestProvider } from '../oauth/helpers/oauthProvider.ts';
import { snap, useConsoleWorld } from './harness.ts';

const CLIENT_ID = 'portico-console-test';
const CLIENT_SECRET = 'client-secret-console-5d1e9';

interface AccountBody {
  id: string;
  oauth_app_id: string;
  oauth_user_name: string;
  status: string;
}

describe('Connected accounts page: OAuth apps, connect in a new tab through a real provider, needs_reconnect, remove (issue 12)', () => {
  const world = useConsoleWorld();
  let provider: TestProvider;
  beforeAll(async () => {
    provider = await startTestProvider({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, email: 'ada@example.com' });
  });
  afterAll(async () => {
    await provider?.stop();
  });
  const accounts = async () =>
    (await (
      await world.svc.request('listConnectedAccounts', {}, { key: world.svc.accountKey })
    ).json()) as AccountBody[];

  /** Clicks `button`, follows the tab it opens through the provider to Portico's callback page. */
  async function signInThroughNewTab(page: Page, click: () => Promise<void>): Promise<void> {
    const [tab] = await Promise.all([page.context().waitForEvent('page'), click()]);
    await tab.getByText('You can close this tab').waitFor({ timeout: 15_000 });
    expect(new URL(tab.url()).pathname).toBe('/oauth/callback');
    // The provider's page never held a handle on the console.
    expect(await tab.evaluate(() => window.opener)).toBeNull();
    await tab.close();
  }

  it('adds an OAuth app, connects an account in a new tab, shows needs_reconnect with Reconnect, removes the account and the app', async () => {
    const page = await world.openConsole({ hash: '#/accounts' });
    await page.getByText('No connected accounts yet').waitFor();
    await page.getByText('Add an OAuth app below to connect an account.').waitFor();

    const form = page.getByRole('form', { name: 'Add an OAuth app' });
    await form.getByLabel('App id').fill('acme');
    await form.getByLabel('Client id').fill(CLIENT_ID);
    await form.getByLabel('Client secret').fill(CLIENT_SECRET);
    await form.getByLabel('Scopes').fill('openid email');
    await form.getByLabel('Authorize URL').fill(provider.authorizeUrl);
    await form.getByLabel('Token URL').fill(provider.tokenUrl);
    await form.getByLabel('User info URL').fill(provider.userinfoUrl);
    await form.getByRole('button', { name: 'Add OAuth app' }).click();
    const app = page.locator('li[data-oauth-app="acme"]');
    await app.waitFor();
    expect(await app.innerText()).toContain('secret stored');
    expect(await app.innerText()).toContain('openid email');
    expect(await page.content()).not.toContain(CLIENT_SECRET);
    expect(await form.getByLabel('Client secret').inputValue()).toBe('');

    // Connect opens the provider in a new tab; it comes back to Portico, and the list shows the account.
    await signInThroughNewTab(page, () => page.getByRole('button', { name: 'Connect', exact: true }).click());
    const row = page.locator('tr[data-account]');
    await expect.poll(() => row.count(), { timeout: 15_000 }).toBe(1);
    expect(await row.innerText()).toContain('ada@example.com');
    expect(await row.getByTestId('account-status').innerText()).toBe('Connected');
    const [account] = await accounts();
    expect(account).toMatchObject({ oauth_app_id: 'acme', oauth_user_name: 'ada@example.com', status: 'connected' });
    const id = String(account?.id);
    expect(await row.getAttribute('data-account')).toBe(id);
    for (const token of provider.issuedTokens()) expect(await page.content()).not.toContain(token);

    // The provider revoked the grant (what a failed refresh records): the page says so and offers Reconnect.
    provider.revokeAll();
    const db = new Database(join(world.svc.dataDir, 'portico.db'));
    db.prepare("UPDATE connected_accounts SET status = 'needs_reconnect' WHERE id = ?").run(id);
    db.close();
    await expect
      .poll(() => row.getByTestId('account-status').innerText(), { timeout: 15_000 })
      .toBe('Needs reconnecting');
    await snap(page, 'connected-accounts-needs-reconnect');
    await signInThroughNewTab(page, () => row.getByRole('button', { name: 'Reconnect ada@example.com' }).click());
    await expect.poll(() => row.getByTestId('account-status').innerText(), { timeout: 15_000 }).toBe('Connected');
    expect((await accounts()).map((a) => [a.id, a.status])).toEqual([[id, 'connected']]);

    // A credential links this account for its emailed codes: the Credentials form offers it by name.
    await page.evaluate(() => {
      window.location.hash = '#/credentials';
    });
    await page.getByLabel('Service name').fill('Mail-coded site');
    await page.getByLabel('Gmail account for emailed codes').selectOption({ label: 'ada@example.com (acme)' });
    await page.getByRole('button', { name: 'Save credential' }).click();
    const credentialRow = page.locator('tr[data-credential]').filter({ hasText: 'Mail-coded site' });
    await credentialRow.waitFor();
    const credential = (await (
      await world.svc.request(
        'getCredential',
        { params: { credential_id: (await credentialRow.getAttribute('data-credential')) ?? '' } },
        { key: world.svc.accountKey },
      )
    ).json()) as { has_gmail_oauth: boolean };
    expect(credential.has_gmail_oauth).toBe(true);
    await page.evaluate(() => {
      window.location.hash = '#/accounts';
    });

    // An app in use is not removed: the server's reason is shown.
    await app.getByRole('button', { name: 'Remove', exact: true }).click();
    await app.getByRole('button', { name: 'Remove OAuth app acme' }).click();
    await page.getByRole('alert').filter({ hasText: 'remove them first' }).waitFor();

    // Removing the account asks once more; then it is gone, and so can the app be.
    await row.getByRole('button', { name: 'Remove', exact: true }).click();
    await row.getByRole('button', { name: 'Remove account ada@example.com' }).click();
    await page.getByText('No connected accounts yet').waitFor();
    expect(await accounts()).toEqual([]);
    await app.getByRole('button', { name: 'Remove', exact: true }).click();
    await app.getByRole('button', { name: 'Remove OAuth app acme' }).click();
    await page.getByText('Add an OAuth app below to connect an account.').waitFor();
    expect(await app.count()).toBe(0);
  }, 90_000);
});
