import { execFileSync } from 'node:child_process';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { startRecordingProxy } from '../helpers/browserFixtures.ts';
import { cli } from '../helpers/cli.ts';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { startService, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';

interface SessionBody {
  session_id: string;
  cdp_url: string | null;
  live_url: string | null;
  screen_config: { width: number; height: number };
  status: string;
  expires_at: string;
  metadata: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

/** Pids of every Chromium process (browser and children) whose command line names `marker`. */
function chromiumPids(marker: string): number[] {
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((line) => line.includes('chromium') && line.includes(marker))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

describe('browser sessions over the public API (real Chromium, Playwright and Puppeteer as CDP clients)', () => {
  let svc: TestService;
  let pages: PageServer;
  let otherKey: string;

  const create = async (
    json: unknown = {},
    key?: string,
  ): Promise<{ status: number; body: SessionBody & { detail?: string } }> =>
    (await svc.send('createSession', { body: json }, { key: key ?? svc.accountKey })) as {
      status: number;
      body: SessionBody & { detail?: string };
    };
  const get = async (id: string, key?: string) =>
    await svc.send('getSession', { params: { session_id: id } }, { key: key ?? svc.accountKey });
  const terminate = async (id: string, key?: string) =>
    await svc.send('terminateSession', { params: { session_id: id } }, { key: key ?? svc.accountKey });

  beforeAll(async () => {
    pages = await startPageServer({
      '/a': '<!doctype html><title>Page A</title><p id="who">a</p>',
      '/b': '<!doctype html><title>Page B</title><p id="who">b</p>',
    });
    svc = await startService(undefined, { sessionPoolSize: 1 });
    otherKey = String((await cli(svc.dataDir, ['user', 'create', 'eve', '--workspace', 'elsewhere'])).json.api_key);
  });
  afterAll(async () => {
    await svc?.dispose();
    await pages?.close();
    // Nothing the service launched outlives it (renderer children go a moment after their browser).
    await until(() => chromiumPids(svc.dataDir).length === 0, 'every Chromium process of the service to exit', 15_000);
    expect(chromiumPids(svc.dataDir)).toEqual([]);
  });

  it('creates a session: the session object, live_url, and a ws:// CDP URL of this server with a token', async () => {
    const { status, body } = await create({ metadata: { ticket: 'T-1' } });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      status: 'active',
      screen_config: { width: 1280, height: 800 },
      metadata: { ticket: 'T-1' },
    });
    const port = new URL(svc.url).port;
    expect(body.cdp_url).toMatch(new RegExp(`^ws://127\\.0\\.0\\.1:${port}/devtools/browser/cdp_[A-Za-z0-9_-]{43}$`));
    expect(body.live_url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/live/`));
    expect(Date.parse(body.expires_at) - Date.parse(body.created_at)).toBe(30 * 60_000);
    // A session browser makes no background traffic of its own (component updates, safe-browsing lists…), which
    // would otherwise go out through the session's proxy.
    const browsers = execFileSync('ps', ['-eo', 'args='], { encoding: 'utf8' })
      .split('\n')
      .filter(
        (line) => line.includes(svc.dataDir) && line.includes('--remote-debugging-pipe') && !line.includes('--type='),
      );
    expect(browsers.length).toBeGreaterThan(0);
    for (const line of browsers) {
      expect(line).toContain('--disable-background-networking');
      expect(line).toContain('--disable-component-update');
    }
    await terminate(body.session_id);
  });

  it('Playwright connectOverCDP and Puppeteer connect drive the same session browser, and its live view shows what they did', async () => {
    const { body } = await create();
    const cdpUrl = String(body.cdp_url);
    const pw = await chromium.connectOverCDP(cdpUrl);
    const page = pw.contexts()[0]?.pages()[0] ?? (await pw.contexts()[0]!.newPage());
    await page.goto(`${pages.url}/a`);
    expect(await page.textContent('#who')).toBe('a');

    const pp = await puppeteer.connect({ browserWSEndpoint: cdpUrl, defaultViewport: null });
    const ppPages = await pp.pages();
    const seen = await Promise.all(ppPages.map((p) => p.url()));
    expect(seen).toContain(`${pages.url}/a`);
    const ppPage = ppPages.find((p) => p.url() === `${pages.url}/a`)!;
    expect(await ppPage.evaluate(() => document.title)).toBe('Page A');
    expect(await ppPage.evaluate(() => [window.innerWidth, window.innerHeight])).toEqual([1280, 800]);
    await pp.disconnect();
    await pw.close();

    // The session lives on after its clients disconnect; Portico's own page is that browser's page.
    expect((await get(body.session_id)).body).toMatchObject({ status: 'active' });
    const live = await svc.api(new URL(String(body.live_url)).pathname, { key: null });
    expect(live.status).toBe(200);
    // The live view streams the session's screen (Portico's own connection to that browser).
    const controller = new AbortController();
    const frames = await fetch(`${String(body.live_url)}/frames`, { signal: controller.signal });
    expect(frames.status).toBe(200);
    const reader = frames.body!.getReader();
    let text = '';
    while (!/event: frame\ndata: .*\n\n/.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    controller.abort();
    const frame = JSON.parse(/event: frame\ndata: (.*)\n\n/.exec(text)![1]!) as Record<string, unknown>;
    expect(frame).toMatchObject({ format: 'jpeg', deviceWidth: 1280, deviceHeight: 800 });
    await terminate(body.session_id);
  });

  it("a client of one session never sees another session's pages", async () => {
    const a = (await create()).body;
    const b = (await create({ screen_config: { width: 800, height: 600 } })).body;
    const pa = await chromium.connectOverCDP(String(a.cdp_url));
    const pb = await chromium.connectOverCDP(String(b.cdp_url));
    await pa.contexts()[0]!.pages()[0]!.goto(`${pages.url}/a`);
    const pageB = pb.contexts()[0]!.pages()[0]!;
    await pageB.goto(`${pages.url}/b`);
    expect(await pageB.evaluate(() => ({ width: window.innerWidth, height: window.innerHeight }))).toEqual({
      width: 800,
      height: 600,
    });
    const urlsOf = async (cdpUrl: string): Promise<string[]> => {
      const browser = await puppeteer.connect({ browserWSEndpoint: cdpUrl });
      const urls = browser.targets().map((target) => target.url());
      await browser.disconnect();
      return urls;
    };
    expect(await urlsOf(String(a.cdp_url))).toContain(`${pages.url}/a`);
    expect(await urlsOf(String(a.cdp_url))).not.toContain(`${pages.url}/b`);
    expect(await urlsOf(String(b.cdp_url))).not.toContain(`${pages.url}/a`);
    await pa.close();
    await pb.close();
    await terminate(a.session_id);
    await terminate(b.session_id);
  });

  it('proxy and user_agent apply to every page of the session, including pages a client opens', async () => {
    const proxy = await startRecordingProxy();
    try {
      const { status, body } = await create({ proxy: { server: proxy.server }, user_agent: 'PorticoSessionTest/1.0' });
      expect(status).toBe(200);
      const pw = await chromium.connectOverCDP(String(body.cdp_url));
      const page = await pw.contexts()[0]!.newPage();
      await page.goto('http://portal.example.invalid/login');
      expect(await page.textContent('#url')).toBe('http://portal.example.invalid/login');
      expect(await page.evaluate(() => navigator.userAgent)).toBe('PorticoSessionTest/1.0');
      expect(proxy.requests.map((r) => r.url)).toContain('http://portal.example.invalid/login');
      await pw.close();
      await terminate(body.session_id);
    } finally {
      await proxy.close();
    }
  });

  it('a wrong or made-up token is refused', async () => {
    const { body } = await create();
    const url = String(body.cdp_url);
    const wrong = `${url.slice(0, -4)}${url.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    await expect(chromium.connectOverCDP(wrong, { timeout: 10_000 })).rejects.toThrow();
    await expect(puppeteer.connect({ browserWSEndpoint: wrong })).rejects.toThrow();
    const raw = await fetch(wrong.replace('ws://', 'http://'), {
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
      },
    }).catch((error: unknown) => error);
    expect(raw instanceof Response ? raw.status : 404).toBe(404);
    await terminate(body.session_id);
  });

  it('hostile upgrades (traversal, oversized, garbage tokens, floods) are refused and the server keeps serving', async () => {
    const { body } = await create();
    const port = Number(new URL(svc.url).port);
    const upgrade = (path: string, method = 'GET', extra = ''): Promise<string> =>
      new Promise((resolve) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.write(
            `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n${extra}\r\n`,
          );
        });
        let answer = '';
        socket.on('data', (chunk: Buffer) => {
          answer += chunk.toString();
          if (answer.includes('\r\n')) socket.destroy();
        });
        socket.on('close', () => resolve(answer.split('\r\n')[0] ?? ''));
        socket.on('error', () => resolve(answer.split('\r\n')[0] ?? ''));
      });
    const token = new URL(String(body.cdp_url)).pathname.split('/').pop()!;
    const refused = [
      await upgrade(`/devtools/browser/${token}/../${token}`),
      await upgrade('/devtools/browser/../../etc/passwd'),
      await upgrade(`/devtools/browser/${'A'.repeat(100_000)}`),
      await upgrade('/devtools/browser/cdp_%00%0d%0a'),
      await upgrade(`/devtools/browser/${token}`, 'POST'),
      await upgrade('/devtools/page/anything'),
      await upgrade('/public/sessions'),
    ];
    for (const line of refused) expect(line).toMatch(/^HTTP\/1\.1 (404|400|431|413)/);
    const flood = await Promise.all(Array.from({ length: 50 }, (_, i) => upgrade(`/devtools/browser/cdp_${i}`)));
    expect(flood.every((line) => line.startsWith('HTTP/1.1 404'))).toBe(true);
    // The real token still works after all that, and so does the API.
    expect(await upgrade(`/devtools/browser/${token}`)).toMatch(/^HTTP\/1\.1 101 /);
    expect((await get(body.session_id)).status).toBe(200);
    await terminate(body.session_id);
  });

  it('terminate closes the browser (no process left), cuts connected clients and makes the CDP URL refuse connections', async () => {
    const { body } = await create();
    const cdpUrl = String(body.cdp_url);
    const pw = await chromium.connectOverCDP(cdpUrl);
    const { processInfo } = await (await pw.newBrowserCDPSession()).send('SystemInfo.getProcessInfo');
    const browserPid = processInfo.find((info) => info.type === 'browser')?.id;
    expect(browserPid).toBeGreaterThan(0);
    const disconnected = new Promise<void>((resolve) => pw.once('disconnected', () => resolve()));

    const ended = await terminate(body.session_id);
    expect(ended).toMatchObject({
      status: 200,
      body: { session_id: body.session_id, status: 'terminated', cdp_url: null, live_url: null },
    });
    await disconnected;
    expect(() => process.kill(Number(browserPid), 0)).toThrow();
    await expect(chromium.connectOverCDP(cdpUrl, { timeout: 10_000 })).rejects.toThrow();
    await expect(puppeteer.connect({ browserWSEndpoint: cdpUrl })).rejects.toThrow();
    // Terminating again answers the session as it is.
    expect(await terminate(body.session_id)).toMatchObject({ status: 200, body: { status: 'terminated' } });
  });

  it('a client closing the browser itself ends the session as terminated', async () => {
    const { body } = await create();
    const pp = await puppeteer.connect({ browserWSEndpoint: String(body.cdp_url) });
    await pp.close();
    await until(
      async () => ((await get(body.session_id)).body as SessionBody).status === 'terminated',
      'the session to read terminated',
    );
  });

  it("lists the workspace's sessions newest first with status_filter, limit, offset and total", async () => {
    // A workspace of its own, so the counts are this test's alone; a second member sees the same sessions.
    const key = String((await cli(svc.dataDir, ['user', 'create', 'lister', '--workspace', 'listing'])).json.api_key);
    const colleague = String(
      (await cli(svc.dataDir, ['user', 'create', 'colleague', '--workspace', 'listing'])).json.api_key,
    );
    const made: string[] = [];
    for (let i = 0; i < 3; i += 1) made.push((await create({ metadata: { n: i } }, key)).body.session_id);
    await terminate(made[0]!, key);
    const all = (await svc.send('listSessions', {}, { key: colleague })).body as {
      sessions: SessionBody[];
      total: number;
    };
    expect(all.total).toBe(3);
    expect(all.sessions.map((s) => s.session_id)).toEqual([made[2], made[1], made[0]]);
    expect(all.sessions.map((s) => s.metadata)).toEqual([{ n: 2 }, { n: 1 }, { n: 0 }]);
    const active = (
      await svc.send('listSessions', { query: { status_filter: 'active', limit: '1', offset: '1' } }, { key })
    ).body as { sessions: SessionBody[]; total: number };
    expect(active.total).toBe(2);
    expect(active.sessions.map((s) => s.session_id)).toEqual([made[1]]);
    const terminated = (await svc.send('listSessions', { query: { status_filter: 'terminated' } }, { key })).body as {
      sessions: SessionBody[];
      total: number;
    };
    expect(terminated).toMatchObject({
      total: 1,
      sessions: [{ session_id: made[0], status: 'terminated', cdp_url: null }],
    });
    expect(await svc.send('listSessions', { query: { offset: '3' } }, { key })).toEqual({
      status: 200,
      body: { sessions: [], total: 3 },
    });
    expect(await svc.send('listSessions', { query: { status_filter: 'gone' } }, { key })).toMatchObject({
      status: 422,
    });
    expect(await svc.send('listSessions', { query: { limit: '0' } }, { key })).toMatchObject({ status: 422 });
    expect(await svc.send('listSessions', { query: { limit: 'abc' } }, { key })).toMatchObject({ status: 422 });
    for (const id of made.slice(1)) await terminate(id, colleague);
  });

  it("another workspace's session reads as not found, for get, terminate and list", async () => {
    const { body } = await create();
    expect(await get(body.session_id, otherKey)).toEqual({ status: 404, body: { detail: 'Session not found' } });
    expect(await terminate(body.session_id, otherKey)).toEqual({ status: 404, body: { detail: 'Session not found' } });
    expect((await svc.send('listSessions', {}, { key: otherKey })).body).toEqual({ sessions: [], total: 0 });
    expect(await get('00000000-0000-4000-8000-000000000000')).toEqual({
      status: 404,
      body: { detail: 'Session not found' },
    });
    expect((await get(body.session_id)).body).toMatchObject({ status: 'active' });
    await terminate(body.session_id);
  });

  it('bad input is a 4xx with a detail and creates nothing', async () => {
    const before = ((await svc.send('listSessions', {}, { key: svc.accountKey })).body as { total: number }).total;
    const bad: unknown[] = [
      { timeout_minutes: 0 },
      { timeout_minutes: 1.5 },
      { timeout_minutes: 100_000 },
      { screen_config: { width: 10, height: 800 } },
      { screen_config: { width: 1280 } },
      { metadata: 'x' },
      { metadata: { blob: 'x'.repeat(20_000) } },
      { user_agent: 'a\nb' },
      { user_agent: 'x'.repeat(600) },
      { proxy: { server: 'not a proxy' } },
      { proxy: { server: 'socks5://127.0.0.1:9', username: 'u', password: 'p' } },
      { profile_id: '../../etc' },
      { profile_id: '00000000-0000-4000-8000-000000000000' },
      { surprise: true },
      [],
    ];
    for (const json of bad) {
      const res = await create(json);
      expect(res.status, JSON.stringify(json).slice(0, 80)).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(typeof res.body.detail).toBe('string');
    }
    const malformed = await svc.api('/public/sessions', {
      method: 'POST',
      key: svc.accountKey,
      headers: { 'content-type': 'application/json' },
      body: '{"timeout',
    });
    expect(malformed.status).toBe(400);
    const after = ((await svc.send('listSessions', {}, { key: svc.accountKey })).body as { total: number }).total;
    expect(after).toBe(before);
  });
});
