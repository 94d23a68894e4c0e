// The console's browser hosts (issue 22, docs/scale.md), driven as a page in real Chromium: each host from
// GET /admin/hosts (reachable, version, browsers in use / max, last error, labels), a host added with its token
// (the token to the keychain, never settings.json, the page or /admin/hosts), a host removed; and the two
// endpoints' answers to hostile input ({detail} 4xx, nothing written). The remote host runs in a network
// namespace (needs root: ip netns, as in CI).
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS, PAGE_CHROMIUM_PATH } from '../helpers/chromium.ts';
import { type NetnsBrowserHost, netnsAvailable, startBrowserHosts } from '../helpers/netns.ts';
import { makeDataDir, startService, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';
import { seriousAxeViolations, snap } from './harness.ts';

const TOKEN = 'tok-console-7f3a9c1e5b';

describe.skipIf(!netnsAvailable())('console: browser hosts (needs root: ip netns)', { timeout: 120_000 }, () => {
  let host: NetnsBrowserHost;
  let closeHosts = () => {};
  let svc: TestService;
  let browser: Browser;
  let settingsPath: string;
  const opened: Page[] = [];

  beforeAll(async () => {
    const started = await startBrowserHosts([{ engine: 'cdp' }]);
    host = started.hosts[0]!;
    closeHosts = started.close;
    const dataDir = await makeDataDir();
    settingsPath = join(dataDir, 'settings.json');
    await writeFile(
      settingsPath,
      JSON.stringify({
        local_max_browsers: 1,
        browser_hosts: [
          { name: 'cdp-1', kind: 'cdp', url: host.url, max_browsers: 3, labels: ['eu'] },
          // Nothing listens there: it shows its last error.
          { name: 'gone', kind: 'cdp', url: 'http://127.0.0.1:2', max_browsers: 1 },
        ],
      }),
    );
    [svc, browser] = await Promise.all([
      startService(dataDir),
      chromium.launch({ executablePath: PAGE_CHROMIUM_PATH, args: CHROMIUM_ARGS }),
    ]);
  });
  afterAll(async () => {
    for (const page of opened)
      await page
        .context()
        .close()
        .catch(() => undefined);
    await browser?.close();
    await svc?.dispose();
    closeHosts();
  });

  const asConsole = { key: null, headers: { 'x-console-token': '' } };
  const hostsNow = async () => {
    asConsole.headers['x-console-token'] = svc.consoleToken;
    return (await svc.send('listBrowserHosts', {}, asConsole)).body as {
      hosts: {
        name: string;
        reachable: boolean;
        pending: string | null;
        token_stored: boolean;
        browsers_in_use: number;
      }[];
    };
  };

  it('shows each host, adds one with its token (to the keychain only) and removes one', async () => {
    await until(async () => (await hostsNow()).hosts.find((h) => h.name === 'cdp-1')?.reachable, 'cdp-1 to answer');
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    opened.push(page);
    await page.goto(`${svc.url}/#token=${svc.consoleToken}`);
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    await page.evaluate(() => {
      window.location.hash = '#/settings';
    });
    const table = page.getByRole('table', { name: 'Browser hosts' });
    const row = (name: string) => table.locator(`tr[data-host="${name}"]`);
    await row('cdp-1').getByText('reachable', { exact: true }).waitFor();
    expect(await row('local').innerText()).toContain('This machine');
    expect(await page.getByTestId('browsers-local').innerText()).toBe('0 / 1');
    const cdpRow = await row('cdp-1').innerText();
    expect(cdpRow).toContain('Chrome DevTools');
    expect(cdpRow).toContain(host.url);
    expect(cdpRow).toMatch(/Chrome\/\d+\./);
    expect(cdpRow).toContain('eu');
    expect(await page.getByTestId('browsers-cdp-1').innerText()).toBe('0 / 3');
    await row('gone').getByText('unreachable').waitFor();
    expect(await row('gone').innerText()).toMatch(/ECONNREFUSED 127\.0\.0\.1:2/);

    // Browsers in use: two sessions, placed by load (local leads the tie; then local is full).
    const sessions: string[] = [];
    for (let i = 0; i < 2; i += 1) {
      const made = await svc.api('/public/sessions', { method: 'POST', key: svc.accountKey, json: {} });
      expect(made.status).toBe(200);
      sessions.push(((await made.json()) as { session_id: string }).session_id);
    }
    expect((await hostsNow()).hosts.map((h) => [h.name, h.browsers_in_use])).toEqual([
      ['local', 1],
      ['cdp-1', 1],
      ['gone', 0],
    ]);
    // (GET /admin/hosts runs the local Chromium's --version: slow on a busy machine.)
    await page.getByRole('button', { name: 'Refresh browser hosts' }).click();
    await expect.poll(() => page.getByTestId('browsers-cdp-1').innerText(), { timeout: 15_000 }).toBe('1 / 3');
    expect(await page.getByTestId('browsers-local').innerText()).toBe('1 / 1');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await snap(page, 'settings-browser-hosts');
    for (const id of sessions)
      await svc.api(`/public/sessions/${id}/terminate`, { method: 'POST', key: svc.accountKey });

    // Add a provider-style host with a token: checked by connecting once, then listed as added.
    const form = page.getByRole('form', { name: 'Add a browser host' });
    await form.getByLabel('Name').fill('cdp-2');
    await form.getByLabel('Kind').selectOption('cdp');
    await form.getByLabel('URL').fill(host.url);
    await form.getByLabel('Browsers at most').fill('2');
    await form.getByLabel('Labels').fill('eu, fast');
    await form.getByLabel('Token').fill(TOKEN);
    await form.getByRole('button', { name: 'Add host' }).click();
    await page.getByTestId('host-added').getByText('cdp-2 added.').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('host-added').innerText()).toMatch(
      /answers \(Chrome\/\d+.*Its token is in the keychain/,
    );
    await row('cdp-2').getByText('added — used from the next start').waitFor();
    expect(await row('cdp-2').innerText()).toContain('token in the keychain');
    expect(await form.getByLabel('Token').inputValue()).toBe('');

    // The token is in the keychain, and nowhere else.
    const settings = JSON.parse(await readFile(settingsPath, 'utf8')) as { browser_hosts: Record<string, unknown>[] };
    expect(settings.browser_hosts.find((h) => h.name === 'cdp-2')).toEqual({
      name: 'cdp-2',
      kind: 'cdp',
      url: host.url,
      max_browsers: 2,
      labels: ['eu', 'fast'],
    });
    expect(JSON.stringify(settings)).not.toContain(TOKEN);
    const listed = await hostsNow();
    expect(listed.hosts.find((h) => h.name === 'cdp-2')).toMatchObject({ pending: 'added', token_stored: true });
    expect(JSON.stringify(listed)).not.toContain(TOKEN);
    expect(await page.content()).not.toContain(TOKEN);

    // Remove a running host: still in use until the next start, gone from settings.json.
    await row('cdp-1').getByRole('button', { name: 'Remove' }).click();
    await row('cdp-1').getByRole('button', { name: 'Remove cdp-1' }).click();
    await row('cdp-1').getByText('removed — in use until the next start').waitFor();
    expect(await row('cdp-1').getByRole('button', { name: 'Remove' }).count()).toBe(0);
    const after = JSON.parse(await readFile(settingsPath, 'utf8')) as { browser_hosts: { name: string }[] };
    expect(after.browser_hosts.map((h) => h.name)).toEqual(['gone', 'cdp-2']);

    // Removing the added one takes its token out of the keychain too.
    await row('cdp-2').getByRole('button', { name: 'Remove' }).click();
    await row('cdp-2').getByRole('button', { name: 'Remove cdp-2' }).click();
    await expect.poll(() => row('cdp-2').count(), { timeout: 15_000 }).toBe(0);
    expect(
      (
        await svc.send(
          'addBrowserHost',
          { body: { name: 'cdp-2', kind: 'cdp', url: 'http://127.0.0.1:2', max_browsers: 1 } },
          asConsole,
        )
      ).status,
    ).toBe(201);
    expect((await hostsNow()).hosts.find((h) => h.name === 'cdp-2')).toMatchObject({ token_stored: false });
    expect((await svc.send('removeBrowserHost', { params: { host_name: 'cdp-2' } }, asConsole)).status).toBe(200);
  });

  it('hostile input: {detail} with a 4xx, and nothing written', async () => {
    asConsole.headers['x-console-token'] = svc.consoleToken;
    const before = await readFile(settingsPath, 'utf8');
    const add = (body: unknown) => svc.send('addBrowserHost', { body }, asConsole);
    const good = { name: 'h1', kind: 'cdp', url: 'http://127.0.0.1:2', max_browsers: 1 };
    const cases: [unknown, number, RegExp][] = [
      [{ ...good, name: 'Bad Name!' }, 400, /name/],
      [{ ...good, name: 'local' }, 400, /local Chromium's name/],
      [{ ...good, name: 'gone' }, 409, /Browser host 'gone' already exists/],
      [{ ...good, kind: 'selenium' }, 400, /kind/],
      [{ ...good, url: 'not a url' }, 400, /url: must be an absolute URL/],
      [{ ...good, url: 'ftp://10.0.0.5/' }, 400, /url: must be a ws/],
      [{ ...good, url: `http://127.0.0.1:2/?token=${TOKEN}` }, 400, /must not carry a secret in the query/],
      [{ ...good, url: `http://user:${TOKEN}@127.0.0.1:2/` }, 400, /must not carry credentials/],
      [{ ...good, url: `http://127.0.0.1:2/${'a'.repeat(3000)}` }, 400, /url/],
      [{ ...good, token: 'x'.repeat(5000) }, 400, /token/],
      [{ ...good, max_browsers: 0 }, 400, /max_browsers/],
      [{ ...good, labels: ['EU'] }, 400, /labels/],
      [{ ...good, extra: 1 }, 400, /extra/],
      [{ ...good, labels: Array.from({ length: 5000 }, (_, i) => `l${i}`) }, 400, /labels/],
    ];
    for (const [body, status, detail] of cases) {
      const answer = await add(body);
      const text = JSON.stringify(answer.body);
      expect(answer.status, text).toBeGreaterThanOrEqual(400);
      expect(answer.status, text).toBeLessThan(500);
      if (status !== 400) expect(answer.status, text).toBe(status);
      expect((answer.body as { detail: string }).detail, text).toMatch(detail);
      expect(text).not.toContain(TOKEN);
    }
    const missing = await svc.send('removeBrowserHost', { params: { host_name: 'nope' } }, asConsole);
    expect(missing).toEqual({ status: 404, body: { detail: "No browser host 'nope'" } });
    // Without the console token: refused.
    expect([401, 403]).toContain((await svc.send('addBrowserHost', { body: good }, { key: svc.orgKey })).status);
    expect(await readFile(settingsPath, 'utf8')).toBe(before);
    expect((await hostsNow()).hosts.some((h) => h.name === 'h1')).toBe(false);
  });
});
