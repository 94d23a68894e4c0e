import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { html, startPageServer, type LocalServer } from '../helpers/browserFixtures.ts';
import { scriptedRegistry } from '../helpers/scriptedAgents.ts';
import { startService, waitForJob, type TestService } from '../helpers/service.ts';

const previousHeadless = process.env.PORTICO_HEADLESS;
process.env.PORTICO_HEADLESS = '1';

const SHOTS = join(import.meta.dirname, '../../test-results/console');
const SIZES = [
  { name: '1280x800', width: 1280, height: 800 },
  { name: '1024x700', width: 1024, height: 700 },
] as const;

/** Saves the page at both window sizes the console must work at, for a person to look at. */
async function snap(page: Page, name: string): Promise<void> {
  for (const size of SIZES) {
    await page.setViewportSize({ width: size.width, height: size.height });
    await page.screenshot({ path: join(SHOTS, `${name}-${size.name}.png`) });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

describe('operator console (built, in real Chromium, against a real service)', () => {
  let svc: TestService;
  let pages: LocalServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    pages = await startPageServer({
      '/form': html('<title>Colour form</title><h1>Pick a colour</h1><label>Colour <input id="colour"></label>'),
      '/login': html('<title>Sign in</title><h1>Sign in</h1><input id="user" aria-label="user"><button>Log in</button>'),
    });
    [svc, browser] = await Promise.all([
      startService(undefined, { agents: scriptedRegistry }),
      chromium.launch({ executablePath: process.env.PORTICO_CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox'] }),
    ]);
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${svc.url}/#token=${svc.consoleToken}`);
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await svc?.dispose();
    await pages?.close();
    if (previousHeadless === undefined) delete process.env.PORTICO_HEADLESS;
    else process.env.PORTICO_HEADLESS = previousHeadless;
  });

  it('without a valid token it explains where the console URL comes from', async () => {
    const stranger = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await stranger.goto(`${svc.url}/#token=ct_not-the-token`);
    await expect.poll(() => stranger.getByText('The token changes at every start').count()).toBe(1);
    await stranger.close();
    expect(new URL(page.url()).hash).toBe('#/jobs');
  });

  it('creates a portal through the forms, validating the schema as it is typed', async () => {
    await page.getByRole('link', { name: 'Portals' }).click();
    await page.getByText('No portals yet').waitFor();
    await snap(page, 'portals-empty');
    await page.getByRole('link', { name: 'Create your first portal' }).click();
    await page.getByLabel('Endpoint name').fill('colours');
    await page.getByLabel('Start URL').fill(pages.url('/form'));
    await page.getByLabel('Task').fill('script:visit');
    const schema = page.getByLabel(/^Form schema/);
    await schema.fill('{"type": "object", "properties": ');
    await page.getByText(/^Not valid JSON/).waitFor();
    expect(await page.getByRole('button', { name: 'Create portal' }).isDisabled()).toBe(true);
    await schema.fill(JSON.stringify({ type: 'object', properties: { full_name: { type: 'string', title: 'Full name' }, size: { enum: ['S', 'M', 'L'] } }, required: ['full_name'] }, null, 2));
    await page.getByText('Valid JSON Schema').waitFor();
    await expect.poll(() => page.getByLabel('Form preview').getByLabel('Full name').count()).toBe(1);
    await snap(page, 'portal-new');
    await page.getByRole('button', { name: 'Create portal' }).click();
    await page.getByRole('form', { name: 'Run a job' }).waitFor();
    const stored = (await (await svc.api('/portals/default/colours')).json()) as { task: string };
    expect(stored.task).toBe('script:visit');
  });

  it('shows the server\'s 422 detail when a save is refused', async () => {
    await page.getByRole('link', { name: 'Edit' }).click();
    await page.getByLabel('Start URL').fill('ftp://nope');
    await page.getByLabel('Start URL').evaluate((input: HTMLInputElement) => input.form?.setAttribute('novalidate', ''));
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('body.start_url: must be an absolute http(s) URL').waitFor();
    await page.getByRole('link', { name: 'Run' }).click();
  });

  it('runs a job from the generated form, watches it complete and opens its screenshots', async () => {
    await page.getByLabel('Full name').fill('Ada Lovelace');
    await page.getByLabel('size').selectOption('M');
    await snap(page, 'portal-run');
    await page.getByRole('button', { name: 'Run a job' }).click();
    await page.getByText('Completed', { exact: true }).first().waitFor({ timeout: 20_000 });
    await page.getByLabel('Result JSON').getByText('Ada Lovelace').waitFor();
    expect(await page.getByTestId('steps').textContent()).toBe('2');
    await page.getByTestId('log').getByText('title is Colour form').waitFor();
    await page.getByRole('button', { name: 'Step 2 screenshot' }).click();
    const large = page.getByTestId('screenshot-large');
    await expect.poll(() => large.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(100);
    await snap(page, 'job-completed');
    await page.getByRole('link', { name: 'Jobs', exact: true }).click();
    await page.getByRole('table').getByText('colours').waitFor();
    await snap(page, 'jobs');
  });

  it('answers a job\'s question from the console while its browser is live', async () => {
    await svc.api('/portals/default', { method: 'POST', json: { endpoint_name: 'ask', start_url: pages.url('/form'), task: 'script:ask' } });
    const { job_id } = (await (await svc.api('/jobs/default/ask/start', { method: 'POST', json: { form_data: {}, human_in_the_loop: true } })).json()) as { job_id: string };
    await waitForJob(svc, 'ask', job_id, ['waiting_for_input']);
    await page.getByRole('link', { name: 'Jobs', exact: true }).click();
    await page.getByRole('table').getByText('Needs answer').waitFor();
    await page.getByRole('table').getByRole('link', { name: 'ask' }).click();
    await page.getByRole('heading', { name: 'Which colour?' }).waitFor();
    await page.frameLocator('iframe.live').locator('body[data-state="live"]').waitFor({ timeout: 10_000 });
    await snap(page, 'job-question');
    await page.getByRole('button', { name: 'green' }).click();
    await page.getByLabel('Result JSON').getByText('green').waitFor({ timeout: 15_000 });
    expect((await waitForJob(svc, 'ask', job_id, ['completed'])).result).toEqual({ colour: 'green' });
  });

  it('creates a profile by logging in through the live view, then saves it', async () => {
    await page.getByRole('link', { name: 'Profiles' }).click();
    await page.getByText('No profiles yet').waitFor();
    await page.getByLabel('Name').fill('Tax office');
    await page.getByLabel('Start page (optional)').fill(pages.url('/login'));
    await page.getByRole('button', { name: 'New profile and log in' }).click();
    const live = page.frameLocator('iframe.live');
    await live.locator('body[data-state="live"]').waitFor({ timeout: 10_000 });
    await snap(page, 'profile-login');
    await page.getByRole('button', { name: 'Save and close' }).click();
    await page.getByRole('table').getByText('Tax office').waitFor();
    await expect.poll(() => page.locator('iframe.live').count()).toBe(0);
    const sessions = (await (await svc.api('/profiles/default/sessions')).json()) as unknown[];
    expect(sessions).toEqual([]);
    await snap(page, 'profiles');
  });

  it('creates an API key shown once, and revokes it', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('button', { name: 'Create API key' }).click();
    const secret = (await page.getByTestId('secret').textContent()) ?? '';
    expect(secret).toMatch(/^pk_org_/);
    expect((await svc.api('/portals/default', { key: secret })).status).toBe(200);
    await snap(page, 'settings-key-created');
    await page.getByRole('button', { name: 'Done' }).click();
    await page.reload();
    await page.getByRole('table', { name: 'API keys' }).waitFor();
    expect(await page.content()).not.toContain(secret);
    const row = page.getByRole('table', { name: 'API keys' }).getByRole('row', { name: new RegExp(secret.slice(0, 13)) });
    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.getByRole('button', { name: 'Revoke key' }).click();
    await expect.poll(async () => (await svc.api('/portals/default', { key: secret })).status).toBe(401);
  });

  it('generates a webhook signing key shown once, then rotates and revokes it', async () => {
    await page.getByRole('button', { name: 'Generate key' }).click();
    const secret = (await page.getByTestId('secret').textContent()) ?? '';
    expect(secret.length).toBeGreaterThan(20);
    await page.getByTestId('webhook-key-status').getByText(/^Active key/).waitFor();
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.content()).not.toContain(secret);
    await page.getByRole('button', { name: 'Rotate key' }).click();
    const rotated = (await page.getByTestId('secret').textContent()) ?? '';
    expect(rotated).not.toBe(secret);
    await page.getByRole('button', { name: 'Done' }).click();
    await snap(page, 'settings');
    const revoke = page.getByRole('region', { name: 'Webhooks' });
    await revoke.getByRole('button', { name: 'Revoke', exact: true }).click();
    await revoke.getByRole('button', { name: 'Revoke signing key' }).click();
    await page.getByTestId('webhook-key-status').getByText(/^No signing key/).waitFor();
  });

  it('settings show the data folder and apply job concurrency', async () => {
    expect(await page.getByTestId('data-dir').textContent()).toBe(svc.dataDir);
    await page.getByLabel('Jobs at once').fill('4');
    await page.getByLabel('Jobs at once').press('Enter');
    await page.getByText('Job concurrency saved').waitFor();
    const settings = (await (await svc.api('/admin/settings', { key: null, headers: { 'x-console-token': svc.consoleToken } })).json()) as { job_concurrency: number };
    expect(settings.job_concurrency).toBe(4);
    await page.getByLabel('Chromium path').fill('/nonexistent/chromium');
    await page.getByRole('button', { name: 'Check and save' }).click();
    await page.getByText('body.chromium_path: /nonexistent/chromium does not exist or is not an executable file').waitFor();
  });

  it('skills page says what to upload when empty', async () => {
    await page.getByRole('link', { name: 'Skills' }).click();
    await page.getByText('No skills yet').waitFor();
    await snap(page, 'skills');
  });
});
