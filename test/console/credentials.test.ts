import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { snap, useConsoleWorld } from './harness.ts';

interface CredentialBody {
  id: string;
  service_name: string;
  username_or_email: string | null;
  service_url: string | null;
  has_password: boolean;
  has_totp: boolean;
  has_phone_number: boolean;
}

describe("Credentials page: the default workspace's credentials, secrets never shown after saving (issue 12)", () => {
  const world = useConsoleWorld();
  const asAccount = (path: string, init: { method?: string; json?: unknown } = {}) =>
    world.svc.api(path, { key: world.svc.accountKey, ...init });

  it('saves a credential with password, TOTP key, site and phone; lists it without a secret anywhere in the page or its responses; deletes it', async () => {
    const password = 'Hunter2-correct-horse-7731';
    const totp = 'JBSWY3DPEHPK3PXPJBSWY3DP';
    const page = await world.openConsole();
    // Every body the console reads from the API, to look for the secrets in.
    const bodies: string[] = [];
    page.on('response', (response) => {
      if (new URL(response.url()).pathname.startsWith('/public/')) {
        bodies.push('');
        const slot = bodies.length - 1;
        void response.text().then(
          (text) => {
            bodies[slot] = text;
          },
          () => undefined,
        );
      }
    });
    await page.evaluate(() => {
      window.location.hash = '#/credentials';
    });
    await page.getByText('No credentials yet').waitFor();

    await page.getByLabel('Service name').fill('Acme portal');
    await page.getByLabel('Site address').fill(world.pages.url('/login'));
    await page.getByLabel('Username or email').fill('ada@example.com');
    await page.getByLabel('Password').fill(password);
    // Spaces as sites print the key are accepted.
    await page.getByLabel('TOTP secret').fill('JBSW Y3DP EHPK 3PXP JBSW Y3DP');
    await page.getByLabel('Phone number for SMS codes').fill('+15551234567');
    await page.getByRole('button', { name: 'Save credential' }).click();

    const row = page.locator('tr[data-credential]');
    await expect.poll(() => row.count(), { timeout: 15_000 }).toBe(1);
    expect(await row.innerText()).toContain('Acme portal');
    expect(await row.innerText()).toContain('ada@example.com');
    const id = String(await row.getAttribute('data-credential'));

    // Stored whole, in the default workspace: the account key reads it, and its secrets are there.
    const stored = (await (await asAccount(`/public/credentials/${id}`)).json()) as CredentialBody;
    expect(stored).toMatchObject({
      service_name: 'Acme portal',
      username_or_email: 'ada@example.com',
      service_url: world.pages.url('/login'),
      has_password: true,
      has_totp: true,
      has_phone_number: true,
    });

    // After saving, neither secret is anywhere: not in the markup, not in an input's value, not in what the page fetched.
    await page.waitForLoadState('networkidle');
    const html = await page.content();
    const values = await page
      .locator('input')
      .evaluateAll((inputs) => inputs.map((input) => (input as HTMLInputElement).value).join('\n'));
    for (const text of [html, values, ...bodies]) {
      expect(text).not.toContain(password);
      expect(text).not.toContain(totp);
      expect(text).not.toContain('JBSW Y3DP');
    }
    expect(bodies.length).toBeGreaterThan(0);
    await snap(page, 'credentials');

    // A bad TOTP key is the server's detail, and no credential is saved; the corrected retry reuses the
    // phone number the failed try added instead of adding it twice.
    const phones = () => {
      const db = new Database(join(world.svc.dataDir, 'portico.db'), { readonly: true });
      const count = (
        db.prepare('SELECT COUNT(*) AS n FROM phone_numbers WHERE phone_number = ?').get('+15550001111') as {
          n: number;
        }
      ).n;
      db.close();
      return count;
    };
    await page.getByLabel('Service name').fill('Second site');
    await page.getByLabel('Phone number for SMS codes').fill('+15550001111');
    await page.getByLabel('TOTP secret').fill('not base32!');
    await page.getByRole('button', { name: 'Save credential' }).click();
    await page.getByRole('alert').filter({ hasText: 'base32' }).waitFor();
    expect(await row.count()).toBe(1);
    await page.getByLabel('TOTP secret').fill(totp);
    await page.getByRole('button', { name: 'Save credential' }).click();
    await expect.poll(() => row.count(), { timeout: 15_000 }).toBe(2);
    expect(phones()).toBe(1);
    const second = row.filter({ hasText: 'Second site' });
    await second.getByRole('button', { name: 'Delete', exact: true }).click();
    await second.getByRole('button', { name: 'Delete credential Second site' }).click();
    await expect.poll(() => row.count()).toBe(1);

    // Delete asks once more, then the credential and its secrets are gone.
    await row.getByRole('button', { name: 'Delete', exact: true }).click();
    await row.getByRole('button', { name: 'Delete credential Acme portal' }).click();
    await page.getByText('No credentials yet').waitFor();
    expect((await asAccount(`/public/credentials/${id}`)).status).toBe(404);
  }, 90_000);
});
