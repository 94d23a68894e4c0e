import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';

import { chromium, type Browser, type Page } from 'playwright-core';

import { silentLogger, type Logger } from '../base/logger.ts';
import { chromiumArgs } from './chromiumDiscovery.ts';

/**
 * The browsers of public-API sessions: one Chromium process per session (never the jobs' shared
 * browser), so a CDP client of one session can only ever see that session's targets.
 *
 * Each process is launched with BOTH `--remote-debugging-pipe` and `--remote-debugging-port=0`:
 * - the pipe (fds 3/4) is Portico's lifeline: Chromium exits when the pipe closes, so the browser
 *   dies with the service even on `kill -9` (no orphan), and `Browser.close` is sent over it;
 * - the loopback port gives each CDP client (Portico's own Playwright, the user's Playwright or
 *   Puppeteer through the token-checked proxy) its own DevTools connection, which Chromium
 *   multiplexes natively (one pipe cannot be shared by several clients without rewriting ids and
 *   routing sessions). See docs/decisions.md, "Session browsers".
 */

export interface SessionScreen {
  width: number;
  height: number;
}

/** What a session's browser is launched with; only the default spec can come from the warm pool. */
export interface SessionLaunchSpec {
  screen: SessionScreen;
  /** A profile folder to run in (held by the caller); absent: a throwaway folder removed on close. */
  userDataDir?: string;
  proxy?: { server: string; bypass?: string };
  userAgent?: string;
}

export const DEFAULT_SESSION_SCREEN: Readonly<SessionScreen> = Object.freeze({ width: 1280, height: 800 });

export interface SessionBrowserLauncherOptions {
  /** Resolves the Chromium executable at launch time (the operator may change it). */
  executablePath: () => string;
  noSandbox: boolean;
  /** Parent of the throwaway user-data folders; default the OS temp folder. */
  tempDir?: string;
  logger?: Logger;
  launchTimeoutMs?: number;
  /** How long close() waits for Chromium to exit after `Browser.close` before killing it. */
  closeTimeoutMs?: number;
}

function isDefaultSpec(spec: SessionLaunchSpec): boolean {
  return spec.userDataDir === undefined && spec.proxy === undefined && spec.userAgent === undefined
    && spec.screen.width === DEFAULT_SESSION_SCREEN.width && spec.screen.height === DEFAULT_SESSION_SCREEN.height;
}

/** One Chromium process of one session, with Portico's own Playwright connection to it. */
export class SessionBrowser {
  readonly pid: number;
  /** Chromium's own DevTools endpoint (`ws://127.0.0.1:<port>/devtools/browser/<guid>`); proxied, never handed out. */
  readonly wsEndpoint: string;
  readonly port: number;
  /** Resolves once the process has exited (for whatever reason). */
  readonly exited: Promise<void>;
  readonly #child: ChildProcess;
  readonly #pipeIn: Writable;
  readonly #ownedDir: string | undefined;
  readonly #closeTimeoutMs: number;
  #engine: Promise<Browser> | undefined;
  #closing: Promise<void> | undefined;
  #hasExited = false;

  constructor(child: ChildProcess, pipeIn: Writable, wsEndpoint: string, ownedDir: string | undefined, closeTimeoutMs: number) {
    this.#child = child;
    this.#pipeIn = pipeIn;
    this.#ownedDir = ownedDir;
    this.#closeTimeoutMs = closeTimeoutMs;
    this.pid = child.pid ?? -1;
    this.wsEndpoint = wsEndpoint;
    this.port = Number(new URL(wsEndpoint).port);
    this.exited = new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once('exit', () => resolve());
    }).then(() => {
      this.#hasExited = true;
    });
  }

  get alive(): boolean {
    return !this.#hasExited;
  }

  /** Portico's own Playwright connection (made once, kept until close). */
  engine(): Promise<Browser> {
    this.#engine ??= chromium.connectOverCDP(this.wsEndpoint);
    return this.#engine;
  }

  /** The page Portico drives: the first open page of the default context, opened when there is none. */
  async page(): Promise<Page> {
    const browser = await this.engine();
    const context = browser.contexts()[0];
    if (!context) throw new Error('the session browser has no default context');
    return context.pages().find((page) => !page.isClosed()) ?? (await context.newPage());
  }

  /** The engine's page right now, if connected (for the live view, which asks synchronously). */
  currentPage(): Page | undefined {
    return this.#connected?.contexts()[0]?.pages().find((page) => !page.isClosed());
  }

  #connected: Browser | undefined;

  /** Connects Portico's own client now, so the first page() and the live view cost nothing later. */
  async connect(): Promise<void> {
    this.#connected = await this.engine();
  }

  /** Asks Chromium to close (flushing a profile's state), kills it if it does not, removes its throwaway folder. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    if (this.alive) {
      try {
        this.#pipeIn.write(`${JSON.stringify({ id: 1, method: 'Browser.close' })}\0`);
      } catch {
        // The pipe is gone: the process is on its way out anyway.
      }
      // Process shutdown, not business time: a wall-clock guard so a hung Chromium is still killed.
      let timer: NodeJS.Timeout | undefined;
      const gaveUp = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), this.#closeTimeoutMs);
      });
      const outcome = await Promise.race([this.exited.then(() => 'exited' as const), gaveUp]);
      clearTimeout(timer);
      if (outcome === 'timeout') {
        this.#child.kill('SIGKILL');
        await this.exited;
      }
    }
    this.#pipeIn.destroy();
    await this.#engine?.then((browser) => browser.close()).catch(() => undefined);
    if (this.#ownedDir) await rm(this.#ownedDir, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
  }
}

/** Launches session browsers and keeps a few default ones warm, so creating a session does not wait for Chromium. */
export class SessionBrowserPool {
  readonly #options: SessionBrowserLauncherOptions;
  readonly #logger: Logger;
  readonly #ready: Promise<SessionBrowser | undefined>[] = [];
  readonly #live = new Set<SessionBrowser>();
  /** Launches not yet finished: close() waits for them, so no browser starts after the pool has closed. */
  readonly #launching = new Set<Promise<unknown>>();
  #size: number;
  #closed = false;

  constructor(options: SessionBrowserLauncherOptions, size: number) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
    this.#size = Math.max(0, Math.floor(size));
  }

  get size(): number {
    return this.#size;
  }

  /** Changes how many warm browsers are kept: extra ones are closed, missing ones launched. */
  async setSize(size: number): Promise<void> {
    this.#size = Math.max(0, Math.floor(size));
    const extra = this.#ready.splice(this.#size);
    await Promise.all(extra.map(async (pending) => (await pending)?.close()));
    this.fill();
  }

  /** Launches warm browsers until the pool is full (in the background). */
  fill(): void {
    while (!this.#closed && this.#ready.length < this.#size) {
      this.#ready.push(this.#launch(DEFAULT_SESSION_SCREEN_SPEC, true).catch((error: unknown) => {
        if (!this.#closed) this.#logger.warn('warm session browser not launched', { error: String(error) });
        return undefined;
      }));
    }
  }

  /** Waits until every warm browser the pool is launching is up (benchmarks, start-up). */
  async ready(): Promise<void> {
    await Promise.all(this.#ready);
  }

  /** Process ids of the warm browsers waiting in the pool (for the benchmark's RSS). */
  async idlePids(): Promise<number[]> {
    const browsers = await Promise.all(this.#ready);
    return browsers.flatMap((browser) => (browser?.alive ? [browser.pid] : []));
  }

  /** A browser for one session: a warm one when the spec is the default and one is ready, else a fresh launch. */
  async take(spec: SessionLaunchSpec): Promise<{ browser: SessionBrowser; warm: boolean }> {
    if (this.#closed) throw new Error('the session browser pool is closed');
    if (isDefaultSpec(spec)) {
      while (this.#ready.length > 0) {
        const pending = this.#ready.shift();
        this.fill();
        const browser = await pending;
        if (browser?.alive) return { browser, warm: true };
        await browser?.close();
      }
    }
    return { browser: await this.#launch(spec, false), warm: false };
  }

  /** Closes every browser this pool launched, warm or in use. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#ready.splice(0);
    await Promise.allSettled([...this.#live].map((browser) => browser.close()));
    // A launch that was under way closes its browser itself once it sees the pool closed; wait for that.
    await Promise.allSettled([...this.#launching]);
  }

  /** How many session browser processes are running (warm and in use). */
  get running(): number {
    return [...this.#live].filter((browser) => browser.alive).length;
  }

  #launch(spec: SessionLaunchSpec, connect: boolean): Promise<SessionBrowser> {
    const launch = this.#launchNow(spec, connect);
    this.#launching.add(launch);
    void launch.then(() => this.#launching.delete(launch), () => this.#launching.delete(launch));
    return launch;
  }

  async #launchNow(spec: SessionLaunchSpec, connect: boolean): Promise<SessionBrowser> {
    const browser = await launchSessionBrowser(spec, this.#options);
    this.#live.add(browser);
    void browser.exited.then(() => this.#live.delete(browser));
    if (this.#closed) {
      await browser.close();
      throw new Error('the session browser pool is closed');
    }
    if (connect) {
      try {
        await browser.connect();
      } catch (error) {
        await browser.close();
        throw error;
      }
    }
    return browser;
  }
}

const HEADLESS_FRAME_PX = 87;

const DEFAULT_SESSION_SCREEN_SPEC: SessionLaunchSpec = { screen: DEFAULT_SESSION_SCREEN };

/** Starts one session browser and waits for its DevTools endpoint. */
export async function launchSessionBrowser(spec: SessionLaunchSpec, options: SessionBrowserLauncherOptions): Promise<SessionBrowser> {
  const parent = options.tempDir ?? tmpdir();
  if (spec.userDataDir === undefined) await mkdir(parent, { recursive: true });
  const ownedDir = spec.userDataDir === undefined ? await mkdtemp(join(parent, 'portico-session-')) : undefined;
  const userDataDir = spec.userDataDir ?? ownedDir ?? '';
  const args = [
    ...chromiumArgs({ noSandbox: options.noSandbox }),
    '--headless',
    '--remote-debugging-pipe',
    '--remote-debugging-port=0',
    '--remote-debugging-address=127.0.0.1',
    `--user-data-dir=${userDataDir}`,
    // Headless Chromium draws a fake window frame of 87 px above the page: the window is made that much
    // taller so the page's viewport is exactly screen_config (the session tests check it from both clients).
    `--window-size=${spec.screen.width},${spec.screen.height + HEADLESS_FRAME_PX}`,
    `--screen-info={${spec.screen.width}x${spec.screen.height}}`,
    '--disable-infobars',
    '--no-default-browser-check',
    '--disable-features=Translate,MediaRouter',
    '--password-store=basic',
    '--use-mock-keychain',
    ...(spec.proxy ? [`--proxy-server=${spec.proxy.server}`, ...(spec.proxy.bypass ? [`--proxy-bypass-list=${spec.proxy.bypass.replaceAll(',', ';')}`] : [])] : []),
    ...(spec.userAgent ? [`--user-agent=${spec.userAgent}`] : []),
    'about:blank',
  ];
  let child: ChildProcess;
  try {
    // Its own process group (as Playwright does): a signal to the service's group must not kill the
    // browser under a live session before the service closes it; the pipe still ends it if we die.
    child = spawn(options.executablePath(), args, { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'], detached: process.platform !== 'win32' });
  } catch (error) {
    if (ownedDir) await rm(ownedDir, { recursive: true, force: true });
    throw error;
  }
  const pipeIn = child.stdio[3] as Writable;
  const pipeOut = child.stdio[4] as Readable;
  // Answers to what Portico sends over the pipe (only Browser.close) are not needed; keep the pipe drained.
  pipeOut.resume();
  pipeOut.on('error', () => undefined);
  pipeIn.on('error', () => undefined);
  const stderr = child.stderr as Readable;
  try {
    const wsEndpoint = await new Promise<string>((resolve, reject) => {
      let text = '';
      const timer = setTimeout(() => fail(new Error(`Chromium did not open its DevTools endpoint within ${options.launchTimeoutMs ?? 30_000} ms`)), options.launchTimeoutMs ?? 30_000);
      const onData = (chunk: Buffer): void => {
        text += chunk.toString('utf8');
        const match = /DevTools listening on (ws:\/\/\S+)/.exec(text);
        if (match?.[1]) {
          cleanup();
          resolve(match[1]);
        } else if (text.length > 64 * 1024) {
          text = text.slice(-4096);
        }
      };
      const onExit = (code: number | null, signal: NodeJS.Signals | null): void => fail(new Error(`Chromium exited before it was ready (code ${code}, signal ${signal}): ${text.slice(-500).trim()}`));
      const onError = (error: Error): void => fail(error);
      function cleanup(): void {
        clearTimeout(timer);
        stderr.off('data', onData);
        child.off('exit', onExit);
        child.off('error', onError);
      }
      function fail(error: Error): void {
        cleanup();
        reject(error);
      }
      stderr.on('data', onData);
      child.once('exit', onExit);
      child.once('error', onError);
    });
    // Keep draining stderr so Chromium never blocks on a full pipe.
    stderr.resume();
    return new SessionBrowser(child, pipeIn, wsEndpoint, ownedDir, options.closeTimeoutMs ?? 5_000);
  } catch (error) {
    child.kill('SIGKILL');
    if (ownedDir) await rm(ownedDir, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
    throw error;
  }
}
