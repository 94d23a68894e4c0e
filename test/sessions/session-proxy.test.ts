import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src-main/base/logger.ts';
import { profileDir } from '../../src-main/browser/profileFolders.ts';
import { ProfileLocks } from '../../src-main/browser/profileLocks.ts';
import { startProxyForwarder } from '../../src-main/browser/proxyForwarder.ts';
import { SessionBrowserPool } from '../../src-main/browser/sessionBrowsers.ts';
import { SessionCreateRequest } from '../../src-main/contract/session.ts';
import { seedFirstStart } from '../../src-main/engine/firstStart.ts';
import { LiveViewHub } from '../../src-main/engine/liveViewHub.ts';
import { SessionService } from '../../src-main/engine/sessions/sessionService.ts';
import { openStore } from '../../src-main/store/store.ts';
import { CHROMIUM_PATH } from '../helpers/chromium.ts';
import { FakeClock } from '../helpers/fakeClock.ts';
import { until } from '../helpers/wait.ts';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { startService, type TestService } from '../helpers/service.ts';

const USER = 'proxy-user';
const PASSWORD = 'Upstream-Pa55word-7f3kq';

interface UpstreamRequest {
  method: string;
  target: string;
  authorized: boolean;
}

interface UpstreamProxy {
  server: string;
  requests: UpstreamRequest[];
  close(): Promise<void>;
}

/**
 * A real forward proxy demanding Basic credentials: absolute-form GET and CONNECT. It resolves every
 * `*.test` host to 127.0.0.1, so a page of such a host can only load if it went through this proxy.
 */
async function startUpstreamProxy(username: string, password: string): Promise<UpstreamProxy> {
  const expected = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
  const requests: UpstreamRequest[] = [];
  const sockets = new Set<Socket>();
  const resolveHost = (host: string): string => (host.endsWith('.test') ? '127.0.0.1' : host);
  const server: Server = createServer((req, res) => {
    const authorized = req.headers['proxy-authorization'] === expected;
    requests.push({ method: req.method ?? '', target: req.url ?? '', authorized });
    if (!authorized) {
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="upstream"', connection: 'close' }).end();
      return;
    }
    const url = new URL(req.url ?? '');
    const headers: Record<string, string | string[] | undefined> = { ...req.headers, 'x-via-upstream': '1' };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const forwarded = httpRequest(
      {
        host: resolveHost(url.hostname),
        port: url.port,
        method: req.method,
        path: `${url.pathname}${url.search}`,
        headers,
      },
      (upstreamRes) => {
        res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
        upstreamRes.pipe(res);
      },
    );
    forwarded.on('error', () => res.writeHead(502).end());
    req.pipe(forwarded);
  });
  server.on('connect', (req, client: Socket, head: Buffer) => {
    const authorized = req.headers['proxy-authorization'] === expected;
    requests.push({ method: 'CONNECT', target: req.url ?? '', authorized });
    if (!authorized) {
      client.end(
        'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="upstream"\r\nContent-Length: 0\r\n\r\n',
      );
      return;
    }
    const [host, port] = (req.url ?? '').split(':');
    const target = connect({ host: resolveHost(host ?? ''), port: Number(port) }, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) target.write(head);
      target.pipe(client);
      client.pipe(target);
    });
    target.on('error', () => client.destroy());
    client.on('error', () => target.destroy());
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The port of the session browser's `--proxy-server`, read from its command line (ps). */
function proxyPortsOf(marker: string): number[] {
  const out = execFileSync('ps', ['-eo', 'args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((line) => line.includes(marker))
    .flatMap((line) => {
      const port = /--proxy-server=http:\/\/127\.0\.0\.1:(\d+)/.exec(line)?.[1];
      return port ? [Number(port)] : [];
    });
}

function connectOutcome(port: number): Promise<'connected' | string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

/** Every file under `dir` whose bytes contain one of `needles`. */
function filesContaining(dir: string, needles: string[]): string[] {
  const hits: string[] = [];
  const walk = (path: string): void => {
    for (const name of readdirSync(path)) {
      const full = join(path, name);
      const stat = statSync(full, { throwIfNoEntry: false });
      if (!stat) continue;
      if (stat.isDirectory()) walk(full);
      else if (stat.isFile()) {
        const bytes = readFileSync(full);
        if (needles.some((needle) => bytes.includes(needle))) hits.push(full);
      }
    }
  };
  walk(dir);
  return hits;
}

describe('session proxies with username/password: a local forwarder adds the credentials (real upstream proxy, real Chromium)', () => {
  let svc: TestService;
  let upstream: UpstreamProxy;
  let pages: PageServer;
  let httpsServer: Server;
  let httpsPort: number;
  let certDir: string;
  const logs: string[] = [];

  const create = async (json: unknown) =>
    (await svc.send('createSession', { body: json }, { key: svc.accountKey })) as {
      status: number;
      body: Record<string, unknown> & { session_id: string; cdp_url: string; detail?: string };
    };
  const terminate = async (id: string) =>
    await svc.send('terminateSession', { params: { session_id: id } }, { key: svc.accountKey });

  /** Connects over the session's CDP URL, trusting the test's self-signed certificate. */
  async function drive(cdpUrl: string): Promise<{ browser: Browser; page: Page }> {
    const browser = await chromium.connectOverCDP(cdpUrl);
    const cdp = await browser.newBrowserCDPSession();
    await cdp.send('Security.setIgnoreCertificateErrors', { ignore: true });
    const context = browser.contexts()[0]!;
    const page = context.pages()[0] ?? (await context.newPage());
    return { browser, page };
  }

  beforeAll(async () => {
    certDir = await mkdtemp(join(tmpdir(), 'portico-proxy-cert-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        join(certDir, 'key.pem'),
        '-out',
        join(certDir, 'cert.pem'),
        '-days',
        '1',
        '-subj',
        '/CN=secure.test',
      ],
      { stdio: 'ignore' },
    );
    httpsServer = createHttpsServer(
      { key: readFileSync(join(certDir, 'key.pem')), cert: readFileSync(join(certDir, 'cert.pem')) },
      (req, res) => {
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(`<!doctype html><title>Secure</title><p id="who">secure ${req.url ?? ''}</p>`);
      },
    );
    await new Promise<void>((resolve) => httpsServer.listen(0, '127.0.0.1', resolve));
    httpsPort = (httpsServer.address() as AddressInfo).port;
    pages = await startPageServer({
      '/hello': (req) => ({
        body: `<!doctype html><title>Hello</title><p id="who">plain</p><p id="via">${req.headers['x-via-upstream'] === '1' ? 'upstream' : 'direct'}</p>`,
      }),
    });
    upstream = await startUpstreamProxy(USER, PASSWORD);
    const options = { sessionPoolSize: 0, logger: createLogger('debug', (line) => logs.push(line)) };
    svc = await startService(undefined, options);
  });
  afterAll(async () => {
    await svc?.dispose();
    await upstream?.close();
    await pages?.close();
    httpsServer?.closeAllConnections();
    await new Promise<void>((resolve) => (httpsServer ? httpsServer.close(() => resolve()) : resolve()));
    if (certDir) await rm(certDir, { recursive: true, force: true });
  });

  it('http and https pages load through the upstream proxy with the right credentials; the session never echoes the password', async () => {
    const { status, body } = await create({ proxy: { server: upstream.server, username: USER, password: PASSWORD } });
    expect(status).toBe(200);
    expect(JSON.stringify(body)).not.toContain(PASSWORD);
    const got = await svc.send('getSession', { params: { session_id: body.session_id } }, { key: svc.accountKey });
    expect(JSON.stringify(got.body)).not.toContain(PASSWORD);

    // Chromium itself was given a local forwarder with no credentials, never the upstream.
    const [forwarderPort] = proxyPortsOf(svc.dataDir);
    expect(forwarderPort).toBeGreaterThan(0);
    expect(String(execFileSync('ps', ['-eo', 'args='], { encoding: 'utf8' }))).not.toContain(PASSWORD);

    const { browser, page } = await drive(body.cdp_url);
    const seen = upstream.requests.length;
    const plain = await page.goto(`http://site.test:${new URL(pages.url).port}/hello`);
    expect(plain?.status()).toBe(200);
    expect(await page.textContent('#who')).toBe('plain');
    expect(await page.textContent('#via')).toBe('upstream');

    const secure = await page.goto(`https://secure.test:${httpsPort}/tunnel`);
    expect(secure?.status()).toBe(200);
    expect(await page.textContent('#who')).toBe('secure /tunnel');

    const through = upstream.requests.slice(seen);
    expect(through).toContainEqual({
      method: 'GET',
      target: `http://site.test:${new URL(pages.url).port}/hello`,
      authorized: true,
    });
    expect(through).toContainEqual({ method: 'CONNECT', target: `secure.test:${httpsPort}`, authorized: true });
    expect(through.every((request) => request.authorized)).toBe(true);

    // A page a client opens goes through the same forwarder.
    const second = await browser.contexts()[0]!.newPage();
    await second.goto(`http://site.test:${new URL(pages.url).port}/hello`);
    expect(await second.textContent('#via')).toBe('upstream');
    await browser.close();

    expect(await connectOutcome(forwarderPort!)).toBe('connected');
    expect((await terminate(body.session_id)).body).toMatchObject({ status: 'terminated' });
    // Terminated: the forwarder is gone with the browser.
    expect(await connectOutcome(forwarderPort!)).toBe('ECONNREFUSED');
  });

  it("the forwarder serves only its session's Chromium: another local process and another session's browser get 403, and nothing reaches the upstream (issue 21)", async () => {
    const withProxy = await create({ proxy: { server: upstream.server, username: USER, password: PASSWORD } });
    expect(withProxy.status).toBe(200);
    const [forwarderPort] = proxyPortsOf(svc.dataDir);
    expect(forwarderPort).toBeGreaterThan(0);
    const target = `http://site.test:${new URL(pages.url).port}/hello`;
    const seen = upstream.requests.length;

    // A local process (this test) speaking the proxy protocol to the forwarder's port: plain request and tunnel.
    expect(
      await rawExchange(forwarderPort!, `GET ${target} HTTP/1.1\r\nHost: site.test\r\nConnection: close\r\n\r\n`),
    ).toMatch(/^HTTP\/1\.1 403 /);
    expect(
      await rawExchange(
        forwarderPort!,
        `CONNECT secure.test:${httpsPort} HTTP/1.1\r\nHost: secure.test:${httpsPort}\r\n\r\n`,
      ),
    ).toMatch(/^HTTP\/1\.1 403 /);

    // Another tenant's session: its cdp_url may give a new context a proxy, and names this forwarder.
    const other = await create({});
    expect(other.status).toBe(200);
    const intruder = await chromium.connectOverCDP(other.body.cdp_url);
    try {
      const context = await intruder.newContext({ proxy: { server: `http://127.0.0.1:${forwarderPort}` } });
      const page = await context.newPage();
      // A plain page gets the forwarder's 403; a tunnel fails.
      expect(
        await page.goto(target).then(
          (response) => `status ${response?.status()}`,
          (error: Error) => error.message,
        ),
      ).toBe('status 403');
      expect(
        await page.goto(`https://secure.test:${httpsPort}/tunnel`).then(
          (response) => `status ${response?.status()}`,
          (error: Error) => error.message,
        ),
      ).toMatch(/net::ERR_/);
    } finally {
      await intruder.close();
    }
    // (The session's own Chromium may send its background requests meanwhile: only the test hosts are the intruders'.)
    expect(upstream.requests.slice(seen).filter((request) => request.target.includes('.test'))).toEqual([]);

    // The session's own browser still goes through, with the credentials.
    const { browser, page } = await drive(withProxy.body.cdp_url);
    await page.goto(target);
    expect(await page.textContent('#via')).toBe('upstream');
    await browser.close();
    await terminate(withProxy.body.session_id);
    await terminate(other.body.session_id);
  });

  it('a wrong password fails the navigation with a clear error instead of hanging', async () => {
    const { status, body } = await create({
      proxy: { server: upstream.server, username: USER, password: 'wrong-password' },
    });
    expect(status).toBe(200);
    const { browser, page } = await drive(body.cdp_url);
    await expect(page.goto(`https://secure.test:${httpsPort}/`, { timeout: 20_000 })).rejects.toThrow(
      /net::ERR_TUNNEL_CONNECTION_FAILED/,
    );
    const fresh = await browser.contexts()[0]!.newPage();
    const plain = await fresh.goto(`http://site.test:${new URL(pages.url).port}/hello`, { timeout: 20_000 });
    expect(plain?.status()).toBe(502);
    expect(await fresh.textContent('body')).toContain(
      "The upstream proxy refused the session's proxy credentials (407 Proxy Authentication Required)",
    );
    expect(upstream.requests.some((request) => !request.authorized && request.method === 'CONNECT')).toBe(true);
    await browser.close();
    await terminate(body.session_id);
  });

  it('an unreachable upstream proxy is a page load error too', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const { status, body } = await create({
      proxy: { server: `127.0.0.1:${deadPort}`, username: USER, password: PASSWORD },
    });
    expect(status).toBe(200);
    const { browser, page } = await drive(body.cdp_url);
    await expect(page.goto(`https://secure.test:${httpsPort}/`, { timeout: 20_000 })).rejects.toThrow(
      /net::ERR_TUNNEL_CONNECTION_FAILED/,
    );
    const fresh = await browser.contexts()[0]!.newPage();
    const plain = await fresh.goto(`http://site.test:${new URL(pages.url).port}/hello`, { timeout: 20_000 });
    expect(plain?.status()).toBe(502);
    expect(await fresh.textContent('body')).toContain('The upstream proxy could not be reached');
    await browser.close();
    await terminate(body.session_id);
  });

  it('credentials with a proxy the forwarder cannot speak to, or a password without a username, are a 422 and create nothing', async () => {
    const before = ((await svc.send('listSessions', {}, { key: svc.accountKey })).body as { total: number }).total;
    for (const proxy of [
      { server: 'socks5://127.0.0.1:1080', username: USER, password: PASSWORD },
      { server: 'https://127.0.0.1:8443', username: USER, password: PASSWORD },
      { server: `http://${USER}:${PASSWORD}@127.0.0.1:8080`, username: USER, password: PASSWORD },
      { server: upstream.server, password: PASSWORD },
    ]) {
      const { status, body } = await create({ proxy });
      expect(status, proxy.server).toBe(422);
      expect(body.detail).toMatch(/^body\.proxy\./);
      expect(body.detail).not.toContain(PASSWORD);
    }
    const after = ((await svc.send('listSessions', {}, { key: svc.accountKey })).body as { total: number }).total;
    expect(after).toBe(before);
  });

  it('the password is nowhere in the data folder (SQLite file included) nor in the logs', async () => {
    const { body } = await create({ proxy: { server: upstream.server, username: USER, password: PASSWORD } });
    const { browser, page } = await drive(body.cdp_url);
    await page.goto(`http://site.test:${new URL(pages.url).port}/hello`);
    await browser.close();
    await terminate(body.session_id);
    const encoded = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');
    expect(filesContaining(svc.dataDir, [PASSWORD, encoded])).toEqual([]);
    expect(logs.length).toBeGreaterThan(0);
    expect(logs.filter((line) => line.includes(PASSWORD) || line.includes(encoded))).toEqual([]);
    // The upstream is on record (its server, never the credentials).
    expect(filesContaining(svc.dataDir, [upstream.server]).length).toBeGreaterThan(0);
  });
});

describe("a session's proxy forwarder ends with it: expiry on the injected clock, service stop", () => {
  it('expiry and service close leave no listening forwarder', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'portico-session-proxy-'));
    const upstream = await startUpstreamProxy(USER, PASSWORD);
    const store = openStore(join(dir, 'portico.db'));
    seedFirstStart(store);
    const pool = new SessionBrowserPool(
      { executablePath: () => CHROMIUM_PATH, noSandbox: true, tempDir: join(dir, 'tmp') },
      0,
    );
    const clock = new FakeClock();
    let service = new SessionService({
      store,
      pool,
      locks: new ProfileLocks(),
      profileDir: (id) => profileDir(dir, id),
      liveViews: new LiveViewHub(),
      clock,
    });
    const actor = { userId: 'local', workspaceId: 'default', orgId: 'default' };
    const request = SessionCreateRequest.parse({
      timeout_minutes: 1,
      proxy: { server: upstream.server, username: USER, password: PASSWORD },
    });
    try {
      const expiring = await service.create(actor, request, 'http://127.0.0.1:1');
      const [expiringPort] = proxyPortsOf(dir);
      expect(await connectOutcome(expiringPort!)).toBe('connected');
      clock.advance(60_000);
      // activeCount drops once the session's end has finished (browser closed, then its forwarder).
      await until(() => service.activeCount === 0 && proxyPortsOf(dir).length === 0, 'the expired session to end');
      expect(service.get(actor.workspaceId, expiring.session_id, 'http://127.0.0.1:1').status).toBe('expired');
      expect(await connectOutcome(expiringPort!)).toBe('ECONNREFUSED');

      await service.create(actor, request, 'http://127.0.0.1:1');
      const [stoppedPort] = proxyPortsOf(dir);
      expect(await connectOutcome(stoppedPort!)).toBe('connected');
      // The service stopping (as on a restart) ends the session and its forwarder.
      await service.close();
      expect(await connectOutcome(stoppedPort!)).toBe('ECONNREFUSED');
      service = new SessionService({
        store,
        pool,
        locks: new ProfileLocks(),
        profileDir: (id) => profileDir(dir, id),
        liveViews: new LiveViewHub(),
        clock,
      });
      expect(service.recover()).toBe(0);
      expect(filesContaining(dir, [PASSWORD, Buffer.from(`${USER}:${PASSWORD}`).toString('base64')])).toEqual([]);
    } finally {
      await service.close();
      await pool.close();
      store.close();
      await upstream.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/** Sends raw bytes to 127.0.0.1:port and collects the answer until the other side closes. */
function rawExchange(port: number, bytes: string | Buffer): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => socket.write(bytes));
    let answer = '';
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('latin1');
      // A forwarder answer is complete once its head and the short body it always closes after arrived.
      if (/^HTTP\/1\.1 [45]\d\d /.test(answer) && answer.includes('\r\n\r\n')) socket.end();
    });
    socket.on('error', () => resolve(answer));
    socket.on('close', () => resolve(answer));
  });
}

describe('the proxy forwarder itself: hostile input and a silent upstream', () => {
  it('refuses what is not a proxy request, survives garbage, and answers 502 when the upstream never answers', async () => {
    // Accepts connections and never says a word.
    const held = new Set<Socket>();
    const silent = createNetServer((socket) => held.add(socket));
    // Answers nothing to CONNECT: hangs up at once.
    const hangingUp = createNetServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => hangingUp.listen(0, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const upstream = await startUpstreamProxy(USER, PASSWORD);
    const forwarder = await startProxyForwarder({ server: upstream.server, username: USER, password: PASSWORD });
    const hanging = await startProxyForwarder(
      { server: `127.0.0.1:${(silent.address() as AddressInfo).port}`, username: USER, password: PASSWORD },
      { upstreamTimeoutMs: 300 },
    );
    const rude = await startProxyForwarder({
      server: `127.0.0.1:${(hangingUp.address() as AddressInfo).port}`,
      username: USER,
      password: PASSWORD,
    });
    try {
      expect(forwarder.server).toBe(`http://127.0.0.1:${forwarder.port}`);
      // Origin-form requests (someone browsing the port) and malformed CONNECT targets are 400, never forwarded.
      expect(await rawExchange(forwarder.port, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n')).toMatch(/^HTTP\/1\.1 400 /);
      expect(await rawExchange(forwarder.port, 'CONNECT ../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n')).toMatch(
        /^HTTP\/1\.1 400 /,
      );
      expect(await rawExchange(forwarder.port, `CONNECT ${'a'.repeat(20_000)}:443 HTTP/1.1\r\n\r\n`)).not.toMatch(
        /^HTTP\/1\.1 200/,
      );
      await rawExchange(forwarder.port, Buffer.from([0, 1, 2, 255, 13, 10, 13, 10]));
      expect(upstream.requests).toEqual([]);
      // Still serving afterwards: a real request goes through with the credentials.
      const page = await startPageServer({ '/ok': 'fine' });
      try {
        const answer = await rawExchange(
          forwarder.port,
          `GET http://site.test:${new URL(page.url).port}/ok HTTP/1.1\r\nHost: site.test\r\nConnection: close\r\n\r\n`,
        );
        expect(answer).toMatch(/^HTTP\/1\.1 200 /);
        expect(answer).toContain('fine');
        expect(upstream.requests).toEqual([
          { method: 'GET', target: `http://site.test:${new URL(page.url).port}/ok`, authorized: true },
        ]);
      } finally {
        await page.close();
      }
      // An upstream that accepts and never answers: the tunnel is refused, not left hanging.
      expect(
        await rawExchange(hanging.port, 'CONNECT secure.test:443 HTTP/1.1\r\nHost: secure.test:443\r\n\r\n'),
      ).toMatch(/^HTTP\/1\.1 502 [\s\S]*no answer from the upstream proxy within 300 ms/);
      expect(await rawExchange(rude.port, 'CONNECT secure.test:443 HTTP/1.1\r\nHost: secure.test:443\r\n\r\n')).toMatch(
        /^HTTP\/1\.1 502 [\s\S]*closed the connection without answering/,
      );
      const plainAnswer = await rawExchange(
        rude.port,
        'GET http://site.test/ HTTP/1.1\r\nHost: site.test\r\nConnection: close\r\n\r\n',
      );
      expect(plainAnswer).toMatch(/^HTTP\/1\.1 502 /);
    } finally {
      await forwarder.close();
      await hanging.close();
      await rude.close();
      await new Promise<void>((resolve) => hangingUp.close(() => resolve()));
      await upstream.close();
      for (const socket of held) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
    expect(await connectOutcome(forwarder.port)).toBe('ECONNREFUSED');
  });
});
