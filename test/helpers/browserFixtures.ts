import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Browser, BrowserContext } from 'playwright-core';

export type RouteHandler = (req: IncomingMessage, res: ServerResponse) => void;

export interface LocalServer {
  origin: string;
  url(path: string): string;
  close(): Promise<void>;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function shut(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** Serves `routes` (path → handler) on 127.0.0.1; unknown paths are 404. */
export async function startPageServer(routes: Record<string, RouteHandler>): Promise<LocalServer> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const handler = routes[path];
    if (handler) handler(req, res);
    else res.writeHead(404).end('not found');
  });
  const origin = await listen(server);
  return { origin, url: (path) => `${origin}${path}`, close: () => shut(server) };
}

/** Responds with an HTML page. */
export function html(body: string, headers: Record<string, string> = {}): RouteHandler {
  return (_req, res) => {
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...headers })
      .end(`<!doctype html><html><body>${body}</body></html>`);
  };
}

export interface RecordedProxyRequest {
  method: string;
  url: string;
  proxyAuthorization: string | undefined;
}

export interface RecordingProxy {
  server: string;
  requests: RecordedProxyRequest[];
  close(): Promise<void>;
}

/**
 * A forward HTTP proxy that records every request and answers it itself with a page naming the
 * URL, so a test can browse hosts that do not exist. With `auth`, it demands Basic credentials first.
 */
export async function startRecordingProxy(auth?: { username: string; password: string }): Promise<RecordingProxy> {
  const requests: RecordedProxyRequest[] = [];
  const expected = auth ? `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}` : undefined;
  const server = createServer((req, res) => {
    const proxyAuthorization = req.headers['proxy-authorization'];
    requests.push({ method: req.method ?? '', url: req.url ?? '', proxyAuthorization });
    if (expected && proxyAuthorization !== expected) {
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="portico-test"' }).end();
      return;
    }
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(`<!doctype html><title>via proxy</title><p id="url">${req.url ?? ''}</p>`);
  });
  const origin = await listen(server);
  return { server: origin, requests, close: () => shut(server) };
}

/** The pid of the browser process behind `target` (a browser, or a context of one), as Chromium reports it. */
export async function browserProcessId(target: Browser | BrowserContext): Promise<number> {
  const browser = 'browser' in target ? target.browser() : target;
  if (!browser) throw new Error('context has no browser');
  const session = await browser.newBrowserCDPSession();
  const { processInfo } = await session.send('SystemInfo.getProcessInfo');
  await session.detach();
  const main = processInfo.find((info) => info.type === 'browser');
  if (!main) throw new Error('no browser process reported');
  return main.id;
}

/** Kills the Chromium process behind `context` with SIGKILL, the way a crash would end it. */
export async function killBrowserProcess(context: BrowserContext): Promise<void> {
  process.kill(await browserProcessId(context), 'SIGKILL');
}

/** A scratch folder removed by `cleanup()`; `entries()` lists what is left in it. */
export function scratchDir(prefix: string): { path: string; entries(): string[]; cleanup(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return {
    path,
    entries: () => readdirSync(path),
    cleanup: () => rmSync(path, { recursive: true, force: true }),
  };
}

/** A deterministic random source (mulberry32), so "human" input replays identically. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
