import { randomBytes } from 'node:crypto';
import { request as httpRequest } from '../base/nodeHttp.ts';
import { request as httpsRequest } from 'node:https';

import type { Browser, BrowserType } from 'playwright-core';
import { chromium } from './lazyChromium.ts';
import playwrightPackage from 'playwright-core/package.json' with { type: 'json' };

import { systemClock, type Clock, type TimerHandle } from '../base/clock.ts';
import { silentLogger, type Logger } from '../base/logger.ts';
import type { BrowserHostKind } from '../contract/hosts.ts';
import { connectWebSocket, type WebSocketPeer } from './webSocketPeer.ts';
import { PorticoError } from '../base/errors.ts';

/**
 * Remote browser hosts (issue 22, docs/scale.md): engines other machines already run, driven over their
 * own protocols — Playwright's browser server (`chromium.connect`) and any Chrome DevTools endpoint
 * (`connectOverCDP`). This module knows how to reach them, probes them on the injected clock, and keeps
 * what `GET /admin/hosts` shows; placement (which host takes a browser) is engine/limits/browserSlots.ts.
 *
 * A host's token comes from the keychain/vault at each connection and goes only into that connection
 * (a `cdp` host: `token=` in the URL's query; a `playwright` host: an `Authorization: Bearer` header);
 * every message kept or thrown here has it replaced by `[redacted]`.
 */

export interface RemoteHostSpec {
  name: string;
  kind: BrowserHostKind;
  url: string;
  maxBrowsers: number;
  labels: readonly string[];
}

/** What is known of one host right now. */
export interface RemoteHostState {
  readonly spec: RemoteHostSpec;
  reachable: boolean;
  version: string | null;
  lastError: string | null;
  lastCheckedAt: string | null;
}

export interface BrowserHostsOptions {
  hosts: readonly RemoteHostSpec[];
  /** The host's token from the keychain/vault (`browser-host/<name>`), or undefined when none is stored. */
  token: (name: string) => Promise<string | undefined>;
  /** Told each token once it is read, so every log line and job message is cleaned of it. */
  onSecret?: (value: string) => void;
  clock?: Clock;
  /** How often each host is probed; default 15 s. */
  probeIntervalMs?: number;
  /** How long one probe may take; default 5 s. */
  probeTimeoutMs?: number;
  /** How long a connection (a remote browser's launch included) may take; default 30 s. */
  connectTimeoutMs?: number;
  logger?: Logger;
  browserType?: BrowserType;
}

/** A host refused a browser (429, refused or reset connection): the lease moves to the next host. */
export class HostRefusedError extends PorticoError {
  readonly host: string;
  constructor(host: string, detail: string) {
    super(`browser host '${host}' refused the browser: ${detail}`);
    this.host = host;
  }
}

/** A probe's answer from a host that is there but takes no more browsers now (429): it stays reachable. */
export class HostFullError extends PorticoError {
  constructor() {
    super('429 Too Many Requests (the host is full)');
  }
}

/** A Playwright browser server of another Playwright version: it cannot serve this Portico. */
export class HostVersionMismatchError extends PorticoError {
  readonly host: string;
  constructor(host: string, serverVersion: string | undefined) {
    super(
      `browser host '${host}' runs Playwright ${serverVersion ?? '(another version)'}, but this Portico's Playwright is ${PLAYWRIGHT_VERSION}: the two must match. Run \`npx playwright-core@${PLAYWRIGHT_VERSION} run-server\` on the host.`,
    );
    this.host = host;
  }
}

/** The Playwright this Portico runs (a `playwright` host must run the same major.minor). */
export const PLAYWRIGHT_VERSION: string = playwrightPackage.version;

/** An error's message with its cause (fetch says only "fetch failed"; the cause says ECONNREFUSED). */
function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? error.cause.message : undefined;
  return cause && !error.message.includes(cause) ? `${error.message}: ${cause}` : error.message;
}

/** `text` without the token (raw or URL-encoded). */
export function scrubToken(text: string, token: string | undefined): string {
  if (!token) return text;
  let out = text;
  for (const form of new Set([token, encodeURIComponent(token)])) out = out.split(form).join('[redacted]');
  return out;
}

/** The URL a `cdp` host is reached at, with its token in the query. */
export function cdpUrlWithToken(url: string, token: string | undefined): string {
  if (!token) return url;
  const parsed = new URL(url);
  parsed.searchParams.set('token', token);
  return parsed.toString();
}

/** Whether a connection failure is the host saying no (429) or not there (refused, reset): worth another host. */
export function isRefusal(message: string): boolean {
  return /\b429\b|Too Many Requests|ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|socket hang up|Unexpected server response: 5\d\d/i.test(
    message,
  );
}

function httpBase(url: string): string {
  const parsed = new URL(url);
  parsed.protocol = parsed.protocol === 'wss:' || parsed.protocol === 'https:' ? 'https:' : 'http:';
  return `${parsed.protocol}//${parsed.host}`;
}

/** The browsers' hosts other than `local`: how to reach each, and whether it answers. */
export class BrowserHosts {
  readonly #states = new Map<string, RemoteHostState>();
  readonly #options: BrowserHostsOptions;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #browserType: BrowserType;
  readonly #timers = new Map<string, TimerHandle>();
  readonly #probing = new Map<string, Promise<void>>();
  #closed = false;

  constructor(options: BrowserHostsOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? silentLogger;
    this.#browserType = options.browserType ?? chromium;
    for (const spec of options.hosts)
      this.#states.set(spec.name, { spec, reachable: false, version: null, lastError: null, lastCheckedAt: null });
  }

  /** Every host, in settings order. */
  states(): readonly Readonly<RemoteHostState>[] {
    return [...this.#states.values()];
  }

  state(name: string): Readonly<RemoteHostState> | undefined {
    return this.#states.get(name);
  }

  /** Probes every host now, then each on its own timer (the injected clock). */
  start(): Promise<void> {
    return Promise.all([...this.#states.keys()].map((name) => this.probe(name))).then(() => undefined);
  }

  /** Probes one host now (a probe already running is shared) and schedules its next probe. */
  probe(name: string): Promise<void> {
    const running = this.#probing.get(name);
    if (running) return running;
    const probe = this.#probe(name).finally(() => {
      this.#probing.delete(name);
      this.#schedule(name);
    });
    this.#probing.set(name, probe);
    return probe;
  }

  #schedule(name: string, inMs = this.#options.probeIntervalMs ?? 15_000): void {
    if (this.#closed) return;
    this.#clock.clearTimeout(this.#timers.get(name));
    this.#timers.set(
      name,
      this.#clock.setTimeout(() => void this.probe(name), inMs, { unref: true }),
    );
  }

  async #probe(name: string): Promise<void> {
    const state = this.#states.get(name);
    if (!state || this.#closed) return;
    const token = await this.#token(name);
    try {
      const version = await probeHost(state.spec, token, this.#options.probeTimeoutMs ?? 5_000);
      if (this.#closed) return;
      if (!state.reachable) this.#logger.info('browser host answers', { host: name });
      state.reachable = true;
      if (version !== undefined) state.version = version;
      state.lastError = null;
    } catch (error) {
      if (this.#closed) return;
      const message = scrubToken(errorText(error), token);
      if (error instanceof HostFullError) {
        // There, but full: placement may still try it (a connect then moves on); the error says why it refused.
        state.reachable = true;
        state.lastError = message;
        state.lastCheckedAt = this.#clock.now().toISOString();
        return;
      }
      if (state.reachable || state.lastError !== message)
        this.#logger.warn('browser host does not answer; it takes no new browsers until it does', {
          host: name,
          error: message,
        });
      state.reachable = false;
      state.lastError = message;
    }
    state.lastCheckedAt = this.#clock.now().toISOString();
  }

  async #token(name: string): Promise<string | undefined> {
    const token = await this.#options.token(name).catch(() => undefined);
    if (token) this.#options.onSecret?.(token);
    return token;
  }

  /**
   * A host failed in use (a refused connect, a browser lost mid-job): noted, and probed again soon (not at
   * once: a host going down answers for a moment while it dies). Until a probe answers it takes nothing.
   */
  noteFailure(name: string, message: string, unreachable: boolean): void {
    const state = this.#states.get(name);
    if (!state || this.#closed) return;
    state.lastError = message;
    if (unreachable) state.reachable = false;
    if (!this.#probing.has(name)) this.#schedule(name, Math.min(this.#options.probeIntervalMs ?? 15_000, 2_000));
  }

  /**
   * A new browser on the host: for `playwright`, the server launches one for this connection (closing
   * the connection closes it); for `cdp`, a connection to the DevTools endpoint (the caller makes its own
   * context there). HostRefusedError when the host says no or is not there; other failures as they are.
   */
  async connect(name: string): Promise<Browser> {
    const state = this.#states.get(name);
    if (!state) throw new Error(`no browser host '${name}'`);
    const token = await this.#token(name);
    const timeout = this.#options.connectTimeoutMs ?? 30_000;
    try {
      const browser = await connectHost(state.spec, token, timeout, this.#browserType);
      state.reachable = true;
      state.version = browser.version();
      state.lastError = null;
      return browser;
    } catch (error) {
      throw this.#failed(name, error, token);
    }
  }

  /**
   * Portico's own DevTools WebSocket to a `cdp` host's browser (a session's share of it, browser/remoteCdp.ts),
   * failing as `connect` does (HostRefusedError when the host says no or is not there).
   */
  async connectCdpSocket(name: string): Promise<WebSocketPeer> {
    const state = this.#states.get(name);
    if (state?.spec.kind !== 'cdp') throw new Error(`no cdp browser host '${name}'`);
    const token = await this.#token(name);
    const timeoutMs = this.#options.connectTimeoutMs ?? 30_000;
    try {
      const url = await cdpWebSocketUrl(state.spec.url, token, timeoutMs);
      const socket = await connectWebSocket(url, { timeoutMs });
      state.reachable = true;
      state.lastError = null;
      return socket;
    } catch (error) {
      throw this.#failed(name, error, token);
    }
  }

  /** What a failed connection becomes (noted on the host; the token never in it). */
  #failed(name: string, error: unknown, token: string | undefined): Error {
    const raw = errorText(error);
    const message = scrubToken(
      raw
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean)
        .slice(0, 6)
        .join(' '),
      token,
    );
    if (/version mismatch/i.test(raw)) {
      const mismatch = new HostVersionMismatchError(name, /server version: v?([\d.]+)/.exec(raw)?.[1]);
      this.noteFailure(name, mismatch.message, true);
      return mismatch;
    }
    const refused = isRefusal(raw);
    this.noteFailure(name, message, refused && !/\b429\b|Too Many Requests/i.test(raw));
    if (refused) return new HostRefusedError(name, message);
    return new Error(`browser host '${name}': ${message}`);
  }

  /** Stops probing. */
  close(): void {
    this.#closed = true;
    for (const timer of this.#timers.values()) this.#clock.clearTimeout(timer);
    this.#timers.clear();
  }
}

/** Connects once, as jobs do (for `host add`'s check and for the runtime). */
export async function connectHost(
  spec: Pick<RemoteHostSpec, 'kind' | 'url'>,
  token: string | undefined,
  timeout: number,
  browserType: BrowserType = chromium,
): Promise<Browser> {
  if (spec.kind === 'playwright') {
    return browserType.connect(spec.url, {
      timeout,
      headers: {
        // What the server may take from a client without --unsafe: a headless browser and its launch timeout.
        'x-playwright-launch-options': JSON.stringify({ headless: true, timeout }),
        ...(token !== undefined && { authorization: `Bearer ${token}` }),
      },
    });
  }
  return browserType.connectOverCDP(cdpUrlWithToken(spec.url, token), { timeout });
}

/**
 * One probe: a `playwright` server answers `GET /json`; a `cdp` debugging address answers
 * `/json/version` (its browser version), a DevTools WebSocket (a provider's `wss://…`) answers
 * `Browser.getVersion`. Resolves with the version when the probe learns it.
 */
export async function probeHost(
  spec: Pick<RemoteHostSpec, 'kind' | 'url'>,
  token: string | undefined,
  timeoutMs: number,
): Promise<string | undefined> {
  const signal = AbortSignal.timeout(timeoutMs);
  if (spec.kind === 'playwright') {
    const response = await fetch(`${httpBase(spec.url)}/json`, {
      signal,
      ...(token !== undefined && { headers: { authorization: `Bearer ${token}` } }),
    });
    await response.body?.cancel();
    if (response.status === 429) throw new HostFullError();
    if (!response.ok) throw new Error(`GET /json answered ${response.status}`);
    return undefined;
  }
  const url = new URL(spec.url);
  if (url.protocol === 'http:' || url.protocol === 'https:') {
    const response = await fetch(
      `${httpBase(spec.url)}/json/version${token !== undefined ? `?token=${encodeURIComponent(token)}` : ''}`,
      { signal },
    );
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(`GET /json/version answered ${response.status}`);
    }
    const body = (await response.json()) as { Browser?: unknown };
    return typeof body.Browser === 'string' ? body.Browser : undefined;
  }
  return probeUpgrade(cdpUrlWithToken(spec.url, token), timeoutMs);
}

/** The WebSocket address of a `cdp` host (an http(s) debugging address is resolved through /json/version). */
export async function cdpWebSocketUrl(url: string, token: string | undefined, timeoutMs: number): Promise<string> {
  const parsed = new URL(url);
  if (parsed.protocol === 'ws:' || parsed.protocol === 'wss:') return cdpUrlWithToken(url, token);
  const response = await fetch(
    `${httpBase(url)}/json/version${token !== undefined ? `?token=${encodeURIComponent(token)}` : ''}`,
    { signal: AbortSignal.timeout(timeoutMs) },
  );
  if (!response.ok) throw new Error(`GET /json/version answered ${response.status}`);
  const body = (await response.json()) as { webSocketDebuggerUrl?: unknown };
  if (typeof body.webSocketDebuggerUrl !== 'string') throw new Error('/json/version named no webSocketDebuggerUrl');
  // Chromium writes its own idea of its address; the host and port Portico reaches it at are the ones that work.
  const ws = new URL(body.webSocketDebuggerUrl);
  ws.host = parsed.host;
  ws.protocol = parsed.protocol === 'https:' ? 'wss:' : 'ws:';
  return cdpUrlWithToken(ws.toString(), token);
}

/**
 * A WebSocket upgrade to the DevTools address, closed as soon as it is accepted: 101 answers, a 429 is a
 * host that is there but full (HostFullError), any other status or a failed connection is an error.
 */
function probeUpgrade(url: string, timeoutMs: number): Promise<undefined> {
  const target = new URL(url);
  const request = (target.protocol === 'wss:' ? httpsRequest : httpRequest)({
    protocol: target.protocol === 'wss:' ? 'https:' : 'http:',
    hostname: target.hostname,
    port: target.port,
    path: `${target.pathname}${target.search}`,
    headers: {
      connection: 'Upgrade',
      upgrade: 'websocket',
      'sec-websocket-version': '13',
      'sec-websocket-key': randomBytes(16).toString('base64'),
    },
    timeout: timeoutMs,
  });
  return new Promise((resolve, reject) => {
    request.once('upgrade', (_response, socket) => {
      socket.destroy();
      resolve(undefined);
    });
    request.once('response', (response) => {
      response.resume();
      if (response.statusCode === 429) reject(new HostFullError());
      else reject(new Error(`the DevTools address answered ${response.statusCode} instead of accepting a connection`));
    });
    request.once('timeout', () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    request.once('error', reject);
    request.end();
  });
}
