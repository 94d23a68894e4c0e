import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { html, startPageServer, type LocalServer } from '../helpers/browserFixtures.ts';
import { startModelServer, type ModelServer } from '../helpers/modelServer.ts';
import { scriptedRegistry } from '../helpers/scriptedAgents.ts';
import { startService, waitForJob, type TestService } from '../helpers/service.ts';

const previousHeadless = process.env.PORTICO_HEADLESS;
process.env.PORTICO_HEADLESS = '1';

const SHOTS = join(import.meta.dirname, '../../test-results/console');
const SIZES = [
  { name: '1280x800', width: 1280, height: 800 },
  { name: '1024x700', width: 1024, height: 700 },
] as const;

/** Writes a real zip (yazl, as a person's zip tool would) holding a skill folder; returns its path. */
async function skillZip(dir: string, fileName: string, description: string): Promise<string> {
  const zip = new yazl.ZipFile();
  zip.addBuffer(Buffer.from(`---\nname: Date pickers\ndescription: ${description}\n---\n# Date pickers\nOpen the calendar, then click the day.\n<img src=x onerror="document.title='pwned'"> <b>not bold</b>\n`), 'SKILL.md');
  zip.addBuffer(Buffer.from('export const pick = 1;\n'), 'scripts/pick.js');
  zip.end();
  const path = join(dir, fileName);
  await finished(zip.outputStream.pipe(createWriteStream(path)));
  return path;
}

/** A webhook receiver that answers 500 to its first request and 200 to every later one. */
async function startFlakyReceiver(): Promise<{ url: string; received: string[]; close(): Promise<void> }> {
  const received: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push(String(req.headers['x-webhook-attempt']));
      res.writeHead(received.length === 1 ? 500 : 200).end(received.length === 1 ? 'not yet' : 'ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** WCAG contrast ratio of an element's text against the first opaque background behind it. */
function contrastOf(locator: Locator): Promise<number> {
  return locator.evaluate((el) => {
    const rgb = (css: string) => (css.match(/[\d.]+/g) ?? []).map(Number);
    const luminance = ([r = 0, g = 0, b = 0]: number[]) => {
      const f = (c: number) => { const v = c / 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    let node: Element | null = el;
    let background = 'rgb(255, 255, 255)';
    while (node) {
      const bg = getComputedStyle(node).backgroundColor;
      const parts = rgb(bg);
      if (parts.length === 3 || (parts.length === 4 && parts[3] === 1)) { background = bg; break; }
      node = node.parentElement;
    }
    const [a, b] = [luminance(rgb(getComputedStyle(el).color)), luminance(rgb(background))].sort((x, y) => y - x) as [number, number];
    return (a + 0.05) / (b + 0.05);
  });
}

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
  let model: ModelServer;
  const scratch = mkdtempSync(join(tmpdir(), 'portico-console-'));

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    pages = await startPageServer({
      '/form': html('<title>Colour form</title><h1>Pick a colour</h1><label>Colour <input id="colour"></label>'),
      '/fetch': html('<title>Files</title><a id="dl" href="/report.txt" download>get the report</a>'),
      '/report.txt': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-disposition': 'attachment; filename="report.txt"' }).end('downloaded content');
      },
      '/login': html('<title>Sign in</title><h1>Sign in</h1><input id="user" aria-label="user"><button>Log in</button>'),
    });
    // Provider "Test connection" talks to the scripted model server, never to the real Anthropic.
    model = await startModelServer();
    process.env.PORTICO_ANTHROPIC_BASE_URL = model.anthropicBaseUrl;
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
    await model?.close();
    delete process.env.PORTICO_ANTHROPIC_BASE_URL;
    rmSync(scratch, { recursive: true, force: true });
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

  it('says when a saved token is stale or a pasted one is refused, and takes a new #token= pasted into the open tab', async () => {
    const tab = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await tab.goto(`${svc.url}/`);
      await tab.getByLabel('Console URL or token').waitFor();
      expect(await tab.getByTestId('token-refused').count()).toBe(0);
      await tab.evaluate(() => localStorage.setItem('portico.consoleToken', 'ct_from-an-earlier-start'));
      await tab.reload();
      await tab.getByRole('alert').getByText(/^Portico no longer accepts the token this console was opened with/).waitFor();
      await tab.evaluate(() => { window.location.hash = '#token=ct_mistyped'; });
      await tab.getByRole('alert').getByText(/^Portico refused that token/).waitFor();
      expect(new URL(tab.url()).hash).toBe('#/jobs');
      await tab.evaluate((token) => { window.location.hash = `#token=${token}`; }, svc.consoleToken);
      await tab.getByRole('navigation', { name: 'Main' }).waitFor();
      expect(new URL(tab.url()).hash).toBe('#/jobs');
      await tab.getByRole('link', { name: 'Portals' }).click();
      await tab.getByRole('heading', { name: 'Portals' }).waitFor();
      expect(await tab.evaluate(() => localStorage.getItem('portico.consoleToken'))).toBe(svc.consoleToken);
    } finally {
      await tab.close();
    }
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
    expect(await contrastOf(page.getByText('Valid JSON Schema'))).toBeGreaterThanOrEqual(4.5);
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

  it('downloads the job\'s fetched files and its screenshots with the token, staying on the console', async () => {
    await svc.api('/portals/default', { method: 'POST', json: { endpoint_name: 'fetcher', start_url: pages.url('/fetch'), task: 'script:download' } });
    const { job_id } = (await (await svc.api('/jobs/default/fetcher/start', { method: 'POST', json: { form_data: {} } })).json()) as { job_id: string };
    await waitForJob(svc, 'fetcher', job_id, ['completed']);
    await page.goto(`${svc.url}/#/jobs/fetcher/${job_id}`);
    const consoleUrl = page.url();
    const bytesOf = async (name: string): Promise<Buffer> => {
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name }).click()]);
      const path = await download.path();
      return readFileSync(path);
    };
    const zip = await bytesOf('Download the files this job fetched');
    expect(zip.subarray(0, 4)).toEqual(Buffer.from([0x50, 0x4b, 0x03, 0x04]));
    const tgz = await bytesOf('Download screenshots');
    expect(tgz.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    expect(page.url()).toBe(consoleUrl);
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    expect(await page.getByText('Invalid API key').count()).toBe(0);
  });

  it('stops polling a finished job, pauses in a hidden tab, and backs off with a banner while Portico is unreachable', async () => {
    const tab = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      const requests: { url: string; at: number }[] = [];
      tab.on('request', (r) => requests.push({ url: r.url(), at: Date.now() }));
      const count = (part: string) => requests.filter((r) => r.url.includes(part)).length;
      const { job_id } = (await (await svc.api('/jobs/default/colours/start', { method: 'POST', json: { form_data: { full_name: 'Grace' } } })).json()) as { job_id: string };
      await waitForJob(svc, 'colours', job_id, ['completed']);
      await tab.goto(`${svc.url}/#token=${svc.consoleToken}`);
      await tab.getByRole('navigation', { name: 'Main' }).waitFor();
      await tab.evaluate((hash) => { window.location.hash = hash; }, `#/jobs/colours/${job_id}`);
      await tab.getByText('Completed', { exact: true }).first().waitFor();
      const statusOf = `status?job_id=${job_id}`;
      const afterDone = count(statusOf);
      expect(afterDone).toBeGreaterThan(0);
      // The pending-question poll (every 3 s) is the clock: two more of those, and still no status request.
      const questionPolls = count('status=waiting_for_input');
      await expect.poll(() => count('status=waiting_for_input'), { timeout: 15_000 }).toBeGreaterThanOrEqual(questionPolls + 2);
      expect(count(statusOf)).toBe(afterDone);

      // A hidden tab makes no requests at all; shown again, it refreshes at once.
      await tab.getByRole('link', { name: 'Jobs', exact: true }).click();
      await tab.getByRole('table').waitFor();
      const setVisibility = (state: 'hidden' | 'visible') =>
        tab.evaluate((s) => {
          Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => s });
          document.dispatchEvent(new Event('visibilitychange'));
        }, state);
      await setVisibility('hidden');
      // Let any request already under way (or its timer) finish, then a window longer than every poll interval.
      await new Promise((r) => setTimeout(r, 3500));
      const hiddenFrom = requests.length;
      await new Promise((r) => setTimeout(r, 4000));
      expect(requests.slice(hiddenFrom).map((r) => r.url)).toEqual([]);
      await setVisibility('visible');
      await expect.poll(() => requests.length).toBeGreaterThan(hiddenFrom);

      // The service stops answering: a banner, and retries of the job list that come less and less often.
      const list = '/jobs/default?limit=200';
      await tab.route(`${svc.url}/jobs/**`, (route) => route.abort('connectionrefused'));
      const failedFrom = Date.now();
      await tab.getByRole('alert').getByText('Portico is not reachable.').waitFor();
      const attempts = () => requests.filter((r) => r.url.includes(list) && r.at >= failedFrom).map((r) => r.at);
      await expect.poll(() => attempts().length, { timeout: 30_000 }).toBeGreaterThanOrEqual(3);
      const [a, b, c] = attempts() as [number, number, number];
      expect(c - b).toBeGreaterThan((b - a) * 1.5);
      expect(b - a).toBeGreaterThanOrEqual(3500);
      await tab.unroute(`${svc.url}/jobs/**`);
      await expect.poll(() => tab.getByText('Portico is not reachable.').count(), { timeout: 30_000 }).toBe(0);
      await tab.getByRole('table').getByText('colours').first().waitFor();
      await snap(tab, 'jobs-after-recovery');
    } finally {
      await tab.close();
    }
  }, 90_000);

  it('the filmstrip fetches each step\'s screenshot once as new steps arrive', async () => {
    const { job_id } = (await (await svc.api('/jobs/default/colours/start', { method: 'POST', json: { form_data: { full_name: 'Ada' } } })).json()) as { job_id: string };
    await waitForJob(svc, 'colours', job_id, ['completed']);
    // The status is replayed as it was while the job ran: one step, one step again, then done with two.
    let served = 0;
    await page.route(`**/status?job_id=${job_id}`, async (route) => {
      const real = (await (await route.fetch()).json()) as Record<string, unknown>;
      served += 1;
      const body = served <= 2 ? { ...real, status: 'running', steps: 1, completed_at: null } : real;
      await route.fulfill({ json: body });
    });
    const shots: number[] = [];
    const onRequest = (r: { url(): string }) => {
      const match = new RegExp(`/screenshots/(\\d+)\\?job_id=${job_id}`).exec(r.url());
      if (match) shots.push(Number(match[1]));
    };
    page.on('request', onRequest);
    try {
      await page.evaluate((hash) => { window.location.hash = hash; }, `#/jobs/colours/${job_id}`);
      await page.getByRole('button', { name: 'Step 2 screenshot' }).waitFor({ timeout: 15_000 });
      expect(served).toBeGreaterThanOrEqual(3);
      await page.getByRole('button', { name: 'Step 2 screenshot' }).click();
      await expect.poll(() => page.getByTestId('screenshot-large').evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(100);
      expect(shots.sort()).toEqual([0, 1]);
      expect(await page.getByRole('list', { name: 'Step screenshots' }).locator('img').evaluateAll((imgs) => imgs.map((i) => i.getAttribute('loading')))).toEqual(['lazy', 'lazy']);
    } finally {
      page.off('request', onRequest);
      await page.unroute(`**/status?job_id=${job_id}`);
    }
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

  it('a pending question shows on every page: nav badge, tab title, a notice whose link opens the focused question card', async () => {
    await svc.api('/portals/default', { method: 'POST', json: { endpoint_name: 'asker', start_url: pages.url('/form'), task: 'script:ask' } });
    await page.getByRole('link', { name: 'Profiles' }).click();
    await page.getByRole('heading', { name: 'Profiles' }).waitFor();
    const { job_id } = (await (await svc.api('/jobs/default/asker/start', { method: 'POST', json: { form_data: {}, human_in_the_loop: true } })).json()) as { job_id: string };
    await waitForJob(svc, 'asker', job_id, ['waiting_for_input']);
    await page.getByTestId('waiting-badge').getByText('1', { exact: true }).waitFor();
    await expect.poll(() => page.title()).toBe('(1) Needs answer — Portico');
    const jobsLink = page.getByRole('link', { name: 'Jobs', exact: true });
    expect(await jobsLink.evaluate((a) => document.getElementById(a.getAttribute('aria-describedby') ?? '')?.textContent)).toBe('1 job needs an answer');
    const notice = page.getByRole('status').filter({ hasText: 'A job is waiting for your answer.' });
    await snap(page, 'question-notice');
    await notice.getByRole('link', { name: 'Answer asker' }).click();
    const card = page.getByTestId('question-card');
    await card.getByRole('heading', { name: 'Which colour?' }).waitFor();
    await expect.poll(() => card.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await card.getByRole('alert').textContent()).toBe('The job is waiting for you: Which colour?');
    expect(await notice.count()).toBe(0);
    await card.getByRole('button', { name: 'red' }).click();
    await page.getByLabel('Result JSON').getByText('red').waitFor({ timeout: 15_000 });
    await expect.poll(() => page.title(), { timeout: 10_000 }).toBe('Portico');
    expect(await page.getByTestId('waiting-badge').count()).toBe(0);
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
    // The reload after a save arrives late (as on a busy machine); typing in another field meanwhile must survive it.
    let reloads = 0;
    await page.route('**/admin/settings', async (route) => {
      if (route.request().method() === 'GET') {
        reloads += 1;
        await new Promise((r) => setTimeout(r, 700));
      }
      await route.continue();
    });
    await page.getByLabel('Jobs at once').fill('4');
    await page.getByLabel('Jobs at once').press('Enter');
    await page.getByLabel('Chromium path').fill('/nonexistent/chromium');
    await page.getByText('Job concurrency saved').waitFor();
    await expect.poll(() => reloads).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 1000));
    expect(await page.getByLabel('Chromium path').inputValue()).toBe('/nonexistent/chromium');
    await page.unroute('**/admin/settings');
    const settings = (await (await svc.api('/admin/settings', { key: null, headers: { 'x-console-token': svc.consoleToken } })).json()) as { job_concurrency: number };
    expect(settings.job_concurrency).toBe(4);
    await page.getByRole('button', { name: 'Check and save' }).click();
    await page.getByText('body.chromium_path: /nonexistent/chromium does not exist or is not an executable file').waitFor();
  });

  it('tests a model provider key: connected, then the provider\'s 401 in plain words', async () => {
    const row = page.locator('li.provider', { hasText: 'Anthropic' });
    await row.getByLabel('Anthropic API key').fill('sk-ant-console');
    await row.getByRole('button', { name: 'Save' }).click();
    await row.getByText('key stored').waitFor();
    expect(await contrastOf(row.getByText('key stored'))).toBeGreaterThanOrEqual(4.5);
    model.reset([{ text: 'OK' }]);
    await row.getByRole('button', { name: 'Test connection' }).click();
    await row.getByText(`Connected. Anthropic accepted the key at ${model.anthropicBaseUrl}`).waitFor();
    expect(JSON.stringify(model.requests[0]?.headers)).toContain('sk-ant-console');
    model.reset([{ status: 401, error: 'invalid x-api-key' }]);
    await row.getByRole('button', { name: 'Test connection' }).click();
    await row.getByText('Not connected. Anthropic rejected the key (HTTP 401): invalid x-api-key').waitFor();
    await row.scrollIntoViewIfNeeded();
    await snap(page, 'settings-providers');
    await row.getByRole('button', { name: 'Remove' }).click();
    await row.getByText('no key').waitFor();
  });

  it('sets an OpenAI-compatible server\'s base URL (no key) and tests it; the env override is shown as such', async () => {
    await page.locator('li.provider', { hasText: 'Anthropic' }).getByText(`Calls ${model.anthropicBaseUrl} (from PORTICO_ANTHROPIC_BASE_URL`).waitFor();
    const row = page.locator('li.provider', { hasText: 'OpenAI-compatible server' });
    await row.getByText('No base URL yet').waitFor();
    // The base URL is required here, the key is not.
    expect(await row.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);
    const url = row.getByLabel('OpenAI-compatible server base URL');
    await url.fill('ftp://127.0.0.1/v1');
    await row.getByRole('button', { name: 'Save' }).click();
    await row.getByText('body.base_url: must be an absolute http(s) URL').waitFor();
    await url.fill(model.openaiBaseUrl);
    await row.getByRole('button', { name: 'Save' }).click();
    await row.getByText(`Calls ${model.openaiBaseUrl} (saved base URL).`).waitFor();
    const listed = (await (await svc.api('/admin/providers', { key: null, headers: { 'x-console-token': svc.consoleToken } })).json()) as { providers: { provider: string }[] };
    expect(listed.providers.find((p) => p.provider === 'openai-compatible')).toEqual({ provider: 'openai-compatible', configured: false, base_url: model.openaiBaseUrl, base_url_source: 'stored' });
    await row.getByRole('button', { name: 'Test connection' }).click();
    await row.getByText(`Connected. ${model.openaiBaseUrl} answered and lists 1 model`).waitFor();
    await row.scrollIntoViewIfNeeded();
    await snap(page, 'settings-provider-base-url');
  });

  it('shows a webhook delivery with its attempts and redelivers it', async () => {
    const receiver = await startFlakyReceiver();
    try {
      const webhooks = page.getByRole('region', { name: 'Webhooks' });
      await webhooks.getByRole('button', { name: 'Generate key' }).click();
      await webhooks.getByRole('button', { name: 'Done' }).click();
      await svc.api('/portals/default', { method: 'POST', json: { endpoint_name: 'hooked', start_url: pages.url('/form'), task: 'script:visit', webhook_url: receiver.url } });
      const { job_id } = (await (await svc.api('/jobs/default/hooked/start', { method: 'POST', json: { form_data: {} } })).json()) as { job_id: string };
      await waitForJob(svc, 'hooked', job_id, ['completed']);
      // The first attempt gets a 500; the retry a second later succeeds.
      await expect.poll(() => receiver.received.length, { timeout: 15_000 }).toBe(2);
      const table = webhooks.getByRole('table', { name: 'Webhook deliveries' });
      const row = table.getByRole('row', { name: new RegExp(receiver.url.replace(/[.]/g, '\\.')) });
      await row.getByText(/^succeeded · 200$/).waitFor({ timeout: 10_000 });
      await row.getByRole('button', { name: 'Attempts' }).click();
      const attempts = webhooks.getByRole('list', { name: 'Attempts' });
      await attempts.getByText(/^Attempt 1 · .*: HTTP 500 in \d+ ms$/).waitFor();
      await attempts.getByText(/^Attempt 2 · .*: HTTP 200 in \d+ ms$/).waitFor();
      await row.getByRole('button', { name: 'Redeliver' }).click();
      await expect.poll(() => receiver.received, { timeout: 10_000 }).toEqual(['1', '2', '1']);
      await attempts.getByText(/^Redelivery, attempt 1 · .*: HTTP 200 in \d+ ms$/).waitFor({ timeout: 10_000 });
      expect(await row.locator('td.num').textContent()).toBe('3');
      await table.scrollIntoViewIfNeeded();
      await snap(page, 'settings-webhook-deliveries');
    } finally {
      await receiver.close();
    }
  });

  it('skills page says what to upload when empty', async () => {
    await page.getByRole('link', { name: 'Skills' }).click();
    await page.getByText('No skills yet').waitFor();
    await snap(page, 'skills-empty');
  });

  it('uploads a skill zip, lists it with its SKILL.md description, and deletes it', async () => {
    const zip = await skillZip(scratch, 'date-pickers.zip', 'Fill calendar widgets that ignore typed input');
    const form = page.getByRole('form', { name: 'Upload a skill' });
    await form.getByLabel('Skill zip').setInputFiles(zip);
    await form.getByLabel('Folder').fill('widgets');
    await form.getByRole('button', { name: 'Upload' }).click();
    const card = page.getByRole('article').filter({ hasText: 'date-pickers' });
    await card.getByText('Fill calendar widgets that ignore typed input').waitFor();
    await card.getByText(/^widgets · private · /).waitFor();
    const listed = (await (await svc.api('/skills/default')).json()) as { name: string; description: string }[];
    expect(listed).toMatchObject([{ name: 'date-pickers', description: 'Fill calendar widgets that ignore typed input' }]);
    await snap(page, 'skills');
    // SKILL.md opens as plain text: the markup in it shows as characters and never becomes elements.
    await card.getByRole('button', { name: 'Show SKILL.md' }).click();
    const shown = card.getByLabel('SKILL.md of date-pickers');
    await shown.getByText('Open the calendar, then click the day.', { exact: false }).waitFor();
    expect(await shown.textContent()).toContain('<img src=x onerror="document.title=\'pwned\'"> <b>not bold</b>');
    expect(await shown.locator('img, b').count()).toBe(0);
    expect(await page.title()).not.toBe('pwned');
    expect(await card.getByRole('button', { name: 'Hide SKILL.md' }).getAttribute('aria-expanded')).toBe('true');
    await snap(page, 'skills-skill-md');
    await card.getByRole('button', { name: 'Hide SKILL.md' }).click();
    expect(await shown.count()).toBe(0);
    await card.getByRole('button', { name: 'Delete' }).click();
    await card.getByRole('button', { name: 'Delete skill' }).click();
    await page.getByText('No skills yet').waitFor();
    expect(await (await svc.api('/skills/default')).json()).toEqual([]);
  });

  it('creates an organization from the sidebar, shows its API key once, and switches to it', async () => {
    const switcher = page.getByLabel('Organization', { exact: true });
    expect(await switcher.inputValue()).toBe('default');
    await page.getByRole('button', { name: 'New organization' }).click();
    const dialog = page.getByRole('dialog', { name: 'New organization' });
    await dialog.getByLabel('Organization id').fill('acme');
    await dialog.getByLabel('Display name (optional)').fill('Acme Ltd');
    await dialog.getByRole('button', { name: 'Create organization' }).click();
    const secret = (await dialog.getByTestId('secret').textContent()) ?? '';
    expect(secret).toMatch(/^pk_org_/);
    expect((await svc.api('/portals/acme', { key: secret })).status).toBe(200);
    expect((await svc.api('/portals/default', { key: secret })).status).toBe(403);
    await snap(page, 'org-new');
    await dialog.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => switcher.inputValue()).toBe('acme');
    expect(await page.content()).not.toContain(secret);
    // The whole console now acts for acme: its lists are its own (empty), and creating it again is refused.
    await page.getByRole('link', { name: 'Portals' }).click();
    await page.getByText('No portals yet').waitFor();
    await page.getByRole('button', { name: 'New organization' }).click();
    await dialog.getByLabel('Organization id').fill('acme');
    await dialog.getByRole('button', { name: 'Create organization' }).click();
    await dialog.getByText("Organization 'acme' already exists").waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await switcher.selectOption('default');
    await page.getByRole('link', { name: 'colours' }).waitFor();
  });

  it('is reachable by keyboard alone: Tab to the navigation, open Portals, create a portal, submit with Enter', async () => {
    const kb = await browser.newPage({ viewport: { width: 1024, height: 700 } });
    try {
      await kb.goto(`${svc.url}/#token=${svc.consoleToken}`);
      await kb.getByRole('navigation', { name: 'Main' }).waitFor();
      const focused = () => kb.evaluate(() => {
        const el = document.activeElement as HTMLElement | null;
        const labelled = el?.id ? document.querySelector(`label[for="${el.id}"]`)?.textContent : null;
        return `${el?.tagName ?? ''}|${(el?.getAttribute('aria-label') ?? labelled ?? el?.textContent ?? '').trim()}`;
      });
      const tabTo = async (pattern: RegExp, limit = 40): Promise<void> => {
        for (let i = 0; i < limit; i += 1) {
          await kb.keyboard.press('Tab');
          if (pattern.test(await focused())) return;
        }
        throw new Error(`Tab never reached ${pattern}; last focus: ${await focused()}`);
      };
      await tabTo(/^A\|Portals/);
      await kb.keyboard.press('Enter');
      await kb.getByRole('heading', { name: 'Portals' }).waitFor();
      await tabTo(/^A\|(New portal|Create your first portal)/);
      await kb.keyboard.press('Enter');
      await tabTo(/^INPUT\|Endpoint name/);
      await kb.keyboard.type('by-keyboard');
      await tabTo(/^INPUT\|Start URL/);
      await kb.keyboard.type(pages.url('/form'));
      await tabTo(/^TEXTAREA\|Task/);
      await kb.keyboard.type('script:visit');
      await tabTo(/^BUTTON\|Create portal/, 80);
      await kb.keyboard.press('Enter');
      await kb.getByRole('form', { name: 'Run a job' }).waitFor();
      expect((await svc.api('/portals/default/by-keyboard')).status).toBe(200);
    } finally {
      await kb.close();
    }
  });
});
