import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, readlink, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchTestBrowser } from '../helpers/chromium.ts';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { scriptedRegistry } from '../helpers/scriptedAgents.ts';
import { jsonOf, makeDataDir, startService, waitForJob, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';

/**
 * Issue 21, findings 1, 2, 4 and 8: a browser of Portico is not a key to the machine. No Chromium of
 * Portico listens on TCP; a `cdp_url` holder speaking raw CDP gets the web and nothing under it; jobs'
 * browsers cannot open Portico's own port; the CDP proxy checks Host and refuses web pages' origins.
 */

/** A raw CDP client over Node's WebSocket: what a hostile tenant would write, no library in between. */
class RawCdp {
  readonly events: { method: string; params: Record<string, unknown>; sessionId?: string }[] = [];
  readonly #ws: WebSocket;
  readonly #pending = new Map<
    number,
    (message: { result?: Record<string, unknown>; error?: { message: string } }) => void
  >();
  #id = 0;

  private constructor(ws: WebSocket) {
    this.#ws = ws;
    ws.addEventListener('message', (event) => {
      const message = JSON.parse(String(event.data)) as {
        id?: number;
        method?: string;
        params?: Record<string, unknown>;
        sessionId?: string;
        result?: Record<string, unknown>;
        error?: { message: string };
      };
      if (message.id !== undefined) this.#pending.get(message.id)?.(message);
      else if (message.method)
        this.events.push({
          method: message.method,
          params: message.params ?? {},
          ...(message.sessionId && { sessionId: message.sessionId }),
        });
    });
  }

  static open(url: string): Promise<RawCdp> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      ws.addEventListener('open', () => resolve(new RawCdp(ws)), { once: true });
      ws.addEventListener('error', () => reject(new Error('the CDP URL refused the connection')), { once: true });
    });
  }

  send(
    method: string,
    params: Record<string, unknown> = {},
    sessionId?: string,
  ): Promise<{ result?: Record<string, unknown>; error?: { message: string } }> {
    const id = ++this.#id;
    return new Promise((resolve, reject) => {
      // A command left unanswered names itself instead of timing the whole test out.
      const timer = setTimeout(() => reject(new Error(`${method} got no answer in 30 s`)), 30_000);
      this.#pending.set(id, (message) => {
        clearTimeout(timer);
        resolve(message);
      });
      this.#ws.send(JSON.stringify({ id, method, params, ...(sessionId && { sessionId }) }));
    });
  }

  /** A page of the session, attached in flat mode: its sessionId. */
  async page(url = 'about:blank'): Promise<string> {
    const created = await this.send('Target.createTarget', { url });
    const attached = await this.send('Target.attachToTarget', { targetId: created.result?.targetId, flatten: true });
    const sessionId = String(attached.result?.sessionId);
    // A new page may be held for Portico's own client (auto-attach waits for the debugger): release it, as any client does.
    await this.send('Runtime.runIfWaitingForDebugger', {}, sessionId);
    return sessionId;
  }

  /** Everything the page's DOM holds, frames included (pierce), as text. */
  async dom(sessionId: string): Promise<string> {
    return JSON.stringify((await this.send('DOM.getDocument', { depth: -1, pierce: true }, sessionId)).result);
  }

  close(): void {
    this.#ws.close();
  }
}

/** Pids of every Chromium process whose command line names `marker` (the service's data folder). */
function chromiumPids(marker: string): number[] {
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((line) => line.includes('chromium') && line.includes(marker))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

/** TCP sockets in LISTEN state (any address, v4 and v6), by inode. */
async function listeningInodes(): Promise<Set<string>> {
  const inodes = new Set<string>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await readFile(file, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields[3] === '0A' && fields[9]) inodes.add(fields[9]);
    }
  }
  return inodes;
}

/** The `pid: local address` of every TCP listener a process of `pids` holds. */
async function tcpListenersOf(pids: number[]): Promise<string[]> {
  const listening = await listeningInodes();
  const found: string[] = [];
  for (const pid of pids) {
    const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
    for (const fd of fds) {
      const link = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
      const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
      if (inode && listening.has(inode)) found.push(`${pid}: socket ${inode}`);
    }
  }
  return found;
}

/** The status line the server answers a WebSocket upgrade with. */
function upgradeStatus(port: number, path: string, headers: Record<string, string>): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('connect', () => {
      const lines = Object.entries({
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
        ...headers,
      }).map(([name, value]) => `${name}: ${value}`);
      socket.write(`GET ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`);
    });
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('latin1');
      if (answer.includes('\r\n')) {
        socket.destroy();
        resolve(answer.split('\r\n')[0] ?? '');
      }
    });
    socket.on('error', () => resolve(answer.split('\r\n')[0] ?? ''));
  });
}

describe('a browser of Portico is confined to the web (issue 21: findings 1, 2, 4, 8)', () => {
  let svc: TestService;
  let pages: PageServer;
  let trustedPages: PageServer;
  let secretFile: string;
  let outside: string;
  const SECRET = 'other-org-secret-7f3a9c';

  const createSession = async (): Promise<{ session_id: string; cdp_url: string }> => {
    const { status, body } = await jsonOf(
      await svc.api('/public/sessions', { method: 'POST', key: svc.accountKey, json: {} }),
    );
    expect(status).toBe(200);
    return body as { session_id: string; cdp_url: string };
  };

  beforeAll(async () => {
    secretFile = '';
    const opener =
      '<!doctype html><title>opener</title><script>const ws = new WebSocket(new URLSearchParams(location.search).get("u")); ws.onopen = () => { document.title = "open"; }; ws.onclose = () => { if (document.title !== "open") document.title = "refused"; };</script>';
    pages = await startPageServer({
      '/hello': '<!doctype html><title>Hello</title><p>hello</p>',
      '/file-frame': (req) => ({
        body: `<!doctype html><title>frames</title><iframe src="file://${new URL(req.url ?? '/', 'http://x').searchParams.get('path') ?? ''}"></iframe><iframe src="chrome://version"></iframe>`,
      }),
      '/to-file': (req) => ({
        status: 302,
        body: '',
        headers: { location: `file://${new URL(req.url ?? '/', 'http://x').searchParams.get('path') ?? ''}` },
      }),
      '/download': () => ({
        body: 'downloaded-bytes',
        type: 'application/octet-stream',
        headers: { 'content-disposition': 'attachment; filename="report.bin"' },
      }),
      '/opener': opener,
    });
    trustedPages = await startPageServer({ '/opener': opener });
    const dataDir = await makeDataDir();
    // The operator trusts one page's origin to open CDP URLs; every other page is refused.
    await writeFile(join(dataDir, 'settings.json'), JSON.stringify({ cdp_allowed_origins: [trustedPages.url] }));
    svc = await startService(dataDir, { sessionPoolSize: 0, agents: scriptedRegistry });
    // What another organization keeps in the data folder (documents, skills, settings, the vault).
    await mkdir(join(svc.dataDir, 'documents', 'other-org-bundle'), { recursive: true });
    secretFile = join(svc.dataDir, 'documents', 'other-org-bundle', '0');
    await writeFile(secretFile, SECRET);
    outside = join(svc.dataDir, 'chosen-by-client');
    await mkdir(outside, { recursive: true });
  });
  afterAll(async () => {
    await svc?.dispose();
    await pages?.close();
    await trustedPages?.close();
    await until(() => chromiumPids(svc.dataDir).length === 0, 'every Chromium process of the service to exit', 15_000);
  });

  it('no Chromium of Portico listens on TCP while a session, a job and a profile login run (finding 1)', async () => {
    const session = await createSession();
    const client = await chromium.connectOverCDP(session.cdp_url);
    await client.contexts()[0]!.pages()[0]!.goto(`${pages.url}/hello`);
    await svc.api('/portals/default', {
      method: 'POST',
      json: { endpoint_name: 'held', start_url: `${pages.url}/hello`, task: 'script:hang' },
    });
    const job = (await (
      await svc.api('/jobs/default/held/start', { method: 'POST', json: { form_data: {} } })
    ).json()) as { job_id: string };
    await until(
      async () =>
        ((await (await svc.api(`/task/default/held/status?job_id=${job.job_id}`)).json()) as { steps: number }).steps >
        0,
      'the job to have opened its page',
      30_000,
    );
    const login = await jsonOf(
      await svc.api('/profiles/default', { method: 'POST', json: { name: 'Bank', start_url: `${pages.url}/hello` } }),
    );
    expect(login.status).toBe(200);

    const pids = chromiumPids(svc.dataDir);
    // The session's browser, the jobs' shared browser and the login's browser, with their children.
    expect(pids.length).toBeGreaterThanOrEqual(3);
    expect(await tcpListenersOf(pids)).toEqual([]);

    await client.close();
    await svc.api(`/jobs/default/held/cancel?job_id=${job.job_id}`, { method: 'POST' });
    await svc.api(`/profiles/default/sessions/${(login.body as { session_id: string }).session_id}/close`, {
      method: 'POST',
    });
    await svc.api(`/public/sessions/${session.session_id}/terminate`, { method: 'POST', key: svc.accountKey });
  });

  it('a cdp_url holder cannot open file:, chrome:, devtools: or view-source: documents, by command, frame or redirect (finding 2)', async () => {
    const session = await createSession();
    const cdp = await RawCdp.open(session.cdp_url);
    const page = await cdp.page();
    for (const url of [
      `file://${secretFile}`,
      'FILE:///etc/passwd',
      ' file:///etc/passwd',
      'chrome://version',
      'about:version',
      'devtools://devtools/bundled/inspector.html',
      `view-source:${pages.url}/hello`,
      'javascript:1',
    ]) {
      const navigated = await cdp.send('Page.navigate', { url }, page);
      expect(navigated.error?.message, url).toMatch(/^Portico refused Page\.navigate: url: /);
      const created = await cdp.send('Target.createTarget', { url });
      expect(created.error?.message, url).toMatch(/^Portico refused Target\.createTarget: url: /);
    }
    // A page may not frame the machine, nor be redirected onto it: Chromium blocks both for web pages.
    await cdp.send('Page.navigate', { url: `${pages.url}/file-frame?path=${encodeURIComponent(secretFile)}` }, page);
    await until(async () => (await cdp.dom(page)).includes('iframe'), 'the framing page to load', 30_000);
    await cdp.send('Page.navigate', { url: `data:text/html,<iframe src="file://${secretFile}"></iframe>` }, page);
    const redirected = await cdp.send(
      'Page.navigate',
      { url: `${pages.url}/to-file?path=${encodeURIComponent(secretFile)}` },
      page,
    );
    expect(redirected.result?.errorText).toBeTruthy();
    expect(await cdp.dom(page)).not.toContain(SECRET);
    // Nor read it from the browser process, upload it, drop it, or hand the page the protocol.
    const loaded = await cdp.send(
      'Network.loadNetworkResource',
      { url: `file://${secretFile}`, options: { disableCache: true, includeCredentials: false } },
      page,
    );
    expect(loaded.error?.message).toMatch(/^Portico refused Network\.loadNetworkResource/);
    await cdp.send('Page.navigate', { url: 'data:text/html,<input type=file>' }, page);
    const doc = await cdp.send('DOM.getDocument', {}, page);
    const root = doc.result?.root as { nodeId: number };
    const input = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector: 'input' }, page);
    const upload = await cdp.send('DOM.setFileInputFiles', { files: [secretFile], nodeId: input.result?.nodeId }, page);
    expect(upload.error?.message).toMatch(/^Portico refused DOM\.setFileInputFiles/);
    expect((await cdp.send('Target.exposeDevToolsProtocol', { targetId: 'x' })).error?.message).toMatch(
      /^Portico refused/,
    );
    // Chromium's own UI targets (chrome:// pages) are not the client's to attach to.
    const targets = (await cdp.send('Target.getTargets')).result?.targetInfos as {
      targetId: string;
      type: string;
      url: string;
    }[];
    for (const own of targets.filter((target) => target.type === 'browser_ui' || target.url.startsWith('chrome:'))) {
      expect(
        (await cdp.send('Target.attachToTarget', { targetId: own.targetId, flatten: true })).error?.message,
      ).toMatch(/^Portico refused Target\.attachToTarget/);
    }
    // Playwright through the same URL: the issue's own reproduction.
    const pw = await chromium.connectOverCDP(session.cdp_url);
    const pwPage = await pw.contexts()[0]!.newPage();
    await expect(pwPage.goto(`file://${secretFile}`)).rejects.toThrow(/Portico refused/);
    await pw.close();
    cdp.close();
  }, 120_000);

  it("a client's large messages pass both ways through the proxy (64-bit frame lengths)", async () => {
    const session = await createSession();
    const cdp = await RawCdp.open(session.cdp_url);
    const page = await cdp.page();
    const big = 'x'.repeat(300_000);
    const echoed = await cdp.send('Runtime.evaluate', { expression: `'${big}'.length + ':' + '${big}'` }, page);
    expect(echoed.result?.result).toMatchObject({ value: `300000:${big}` });
    cdp.close();
    await svc.api(`/public/sessions/${session.session_id}/terminate`, { method: 'POST', key: svc.accountKey });
  });

  it("downloads land only in the session's own folder, whatever path a client names (finding 2)", async () => {
    const session = await createSession();
    const cdp = await RawCdp.open(session.cdp_url);
    const page = await cdp.page();
    const set = await cdp.send('Browser.setDownloadBehavior', {
      behavior: 'allow',
      downloadPath: outside,
      eventsEnabled: true,
    });
    expect(set.error).toBeUndefined();
    await cdp.send('Page.navigate', { url: `${pages.url}/hello` }, page);
    // Page.navigate answers at commit: the click waits for the page to have loaded.
    await until(
      async () =>
        (
          (
            await cdp.send(
              'Runtime.evaluate',
              { expression: `location.pathname === '/hello' && document.readyState === 'complete'` },
              page,
            )
          ).result?.result as { value?: boolean } | undefined
        )?.value,
      'the page to load',
      30_000,
    );
    await cdp.send(
      'Runtime.evaluate',
      {
        expression: `(() => { const a = document.createElement('a'); a.href = '/download'; a.download = 'report.bin'; document.body.append(a); a.click(); })()`,
      },
      page,
    );
    await until(
      () =>
        cdp.events.some((event) => event.method === 'Browser.downloadProgress' && event.params.state === 'completed'),
      'the download to complete',
      30_000,
    );
    const landed = async (): Promise<string[]> => {
      const sessionDirs = await readdir(join(svc.dataDir, 'tmp', 'sessions'));
      return (
        await Promise.all(
          sessionDirs.map((dir) =>
            readdir(join(svc.dataDir, 'tmp', 'sessions', dir, 'downloads')).catch(() => [] as string[]),
          ),
        )
      ).flat();
    };
    await until(
      async () => (await landed()).includes('report.bin'),
      "the file in the session's downloads folder",
      30_000,
    );
    expect(await readdir(outside)).toEqual([]);
    cdp.close();
    await svc.api(`/public/sessions/${session.session_id}/terminate`, { method: 'POST', key: svc.accountKey });
  });

  it("neither a session's browser nor a job's can open Portico's own port (findings 2 and 4)", async () => {
    const session = await createSession();
    const cdp = await RawCdp.open(session.cdp_url);
    const page = await cdp.page();
    for (const base of [svc.url, svc.url.replace('127.0.0.1', 'localhost')]) {
      const opened = await cdp.send('Page.navigate', { url: `${base}/health` }, page);
      expect(opened.result?.errorText, base).toBe('net::ERR_NAME_NOT_RESOLVED');
    }
    await cdp.send('Page.navigate', { url: `${pages.url}/hello` }, page);
    const fetched = await cdp.send(
      'Runtime.evaluate',
      {
        expression: `fetch(${JSON.stringify(`${svc.url}/health`)}, { mode: 'no-cors' }).then(() => 'reached', () => 'blocked')`,
        awaitPromise: true,
      },
      page,
    );
    expect(fetched.result?.result).toMatchObject({ value: 'blocked' });
    cdp.close();

    // A portal pointed at Portico itself: the job's browser cannot open it, so no screenshot of it exists.
    await svc.api('/portals/default', {
      method: 'POST',
      json: { endpoint_name: 'self', start_url: `${svc.url}/health`, task: 'script:visit' },
    });
    const job = (await (
      await svc.api('/jobs/default/self/start', { method: 'POST', json: { form_data: {} } })
    ).json()) as { job_id: string };
    const ended = await waitForJob(svc, 'self', job.job_id, ['completed', 'failed']);
    expect(ended.status).toBe('failed');
    expect(JSON.stringify(ended)).toContain('ERR_NAME_NOT_RESOLVED');
    expect(JSON.stringify(ended)).not.toContain('"status":"ok"');
  });

  it("the CDP proxy checks Host and refuses a web page's Origin unless the operator trusts it (finding 8)", async () => {
    const session = await createSession();
    const port = Number(new URL(svc.url).port);
    const path = new URL(session.cdp_url).pathname;
    expect(await upgradeStatus(port, path, { Host: 'evil.example' })).toBe('HTTP/1.1 403 Forbidden');
    expect(await upgradeStatus(port, path, { Host: `127.0.0.1:${port}`, Origin: pages.url })).toBe(
      'HTTP/1.1 403 Forbidden',
    );

    // A real page on another origin, in a browser of the user's own, opening the session's cdp_url.
    const browser = await launchTestBrowser();
    const context = await browser.newContext();
    const hostile = await context.newPage();
    await hostile.goto(`${pages.url}/opener?u=${encodeURIComponent(session.cdp_url)}`);
    await expect.poll(() => hostile.title(), { timeout: 30_000 }).toBe('refused');
    const trusted = await context.newPage();
    await trusted.goto(`${trustedPages.url}/opener?u=${encodeURIComponent(session.cdp_url)}`);
    await expect.poll(() => trusted.title(), { timeout: 30_000 }).toBe('open');
    await browser.close();

    // Scripts send no Origin: Playwright and Puppeteer keep working.
    const pp = await puppeteer.connect({ browserWSEndpoint: session.cdp_url });
    expect((await pp.pages()).length).toBeGreaterThan(0);
    await pp.disconnect();
  });
});
