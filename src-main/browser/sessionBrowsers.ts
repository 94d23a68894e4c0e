import { spawn, type ChildProcess } from 'node:child_process';
import type { IncomingMessage } from 'node:http';
import { createServer } from '../base/nodeHttp.ts';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex, Readable, Writable } from 'node:stream';

import type { Browser, Page } from 'playwright-core';
import { chromium, playwrightLoaded } from './lazyChromium.ts';

import { systemClock, type Clock, type TimerHandle } from '../base/clock.ts';
import { silentLogger, type Logger } from '../base/logger.ts';
import { blockedHostRules, chromiumArgs } from './chromiumDiscovery.ts';
import { CdpPipe, type CdpChannel } from './cdpPipe.ts';
import { acceptWebSocket } from './webSocketPeer.ts';

/**
 * The browsers of public-API sessions: one Chromium process per session (never the jobs' shared
 * browser), so a CDP client of one session can only ever see that session's targets.
 *
 * Each process is launched with `--remote-debugging-pipe` only (fds 3/4): no TCP DevTools endpoint
 * exists for anyone to find. The pipe is also Portico's lifeline (Chromium exits when it closes, so
 * the browser dies with the service even on `kill -9`). Every CDP client — Portico's own Playwright
 * and each `cdp_url` client through the proxy — gets its own channel on that pipe (cdpPipe.ts); a
 * client's channel is guarded (cdpGuard.ts). See docs/decisions.md, "Session browsers over the pipe only".
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
  /** How long close() waits (on `clock`) for Chromium to exit after `Browser.close` before killing its process group. */
  closeTimeoutMs?: number;
  /** The clock of that bound; default the system clock. */
  clock?: Clock;
  /** `host:port` pairs the browser must never reach (Portico's own port), read at each launch. */
  blockedHostPorts?: () => readonly string[];
  /**
   * When the warm pool refills after a session took a warm browser (on `clock`): once that session's browser
   * has been quiet for `quietMs` after a `cdp_url` client connected, at most `maxMs` after the take, at the
   * session's end, or at once when another session needs a browser. Default 250 / 3,000 ms.
   */
  refill?: { quietMs: number; maxMs: number };
}

const DEFAULT_REFILL = Object.freeze({ quietMs: 250, maxMs: 3_000 });

function isDefaultSpec(spec: SessionLaunchSpec): boolean {
  return (
    spec.userDataDir === undefined &&
    spec.proxy === undefined &&
    spec.userAgent === undefined &&
    spec.screen.width === DEFAULT_SESSION_SCREEN.width &&
    spec.screen.height === DEFAULT_SESSION_SCREEN.height
  );
}

/** What a session browser runs as: a Chromium child process, or a remote host's browser (browser/remoteCdp.ts). */
export interface SessionProcess {
  readonly pid?: number | undefined;
  readonly exitCode: number | null;
  readonly signalCode: NodeJS.Signals | null;
  once(event: 'exit', listener: () => void): unknown;
}

/** One Chromium process of one session, with Portico's own Playwright connection to it. */
export class SessionBrowser {
  readonly pid: number;
  /** The only folder this browser's downloads go to (and the one a client's uploads may come from). */
  readonly downloadsDir: string;
  /** Resolves once the process has exited (for whatever reason). */
  readonly exited: Promise<void>;
  /** Resolves once a close has finished everything, the working folder removed (a killed browser's close resolves before). */
  readonly cleaned: Promise<void>;
  #markCleaned: () => void = () => undefined;
  readonly #pipe: CdpPipe;
  readonly #workDir: string;
  readonly #closeTimeoutMs: number;
  readonly #clock: Clock;
  #engine: Promise<Browser> | undefined;
  #closing: Promise<void> | undefined;
  #hasExited = false;

  /** A profile's folder the browser ran in (its preferences name this session's downloads folder until it ends). */
  readonly #profileDir: string | undefined;

  /** Ends the browser when it does not close in time (the process tree; a remote browser's connection). */
  readonly #kill: () => void;
  /** Asks the browser to close (`Browser.close`; a session's share of a shared host's browser: its contexts). */
  readonly #requestClose: () => void;
  /** How close() ends it: `asking` (Browser.close, then the kill past the bound), or `killing` at once (nothing in it outlives it). */
  readonly #closeBy: 'asking' | 'killing';

  constructor(
    child: SessionProcess,
    pipe: CdpPipe,
    workDir: string,
    closeTimeoutMs: number,
    clock: Clock = systemClock,
    profileDir?: string,
    kill?: () => void,
    requestClose?: () => void,
    closeBy: 'asking' | 'killing' = 'asking',
  ) {
    this.#closeBy = closeBy;
    this.#kill = kill ?? (() => killProcessTree(child as ChildProcess));
    this.#requestClose = requestClose ?? (() => pipe.notify('Browser.close'));
    this.#clock = clock;
    this.#profileDir = profileDir;
    this.#pipe = pipe;
    this.#workDir = workDir;
    this.downloadsDir = join(workDir, 'downloads');
    this.#closeTimeoutMs = closeTimeoutMs;
    this.pid = child.pid ?? -1;
    this.cleaned = new Promise<void>((resolve) => {
      this.#markCleaned = resolve;
    });
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

  /** How many `cdp_url` clients have connected, and how many CDP messages the browser has sent, so far. */
  get cdpActivity(): { clients: number; messages: number } {
    return this.#pipe.activity;
  }

  /** Portico's own Playwright connection (made once, kept until close). */
  engine(): Promise<Browser> {
    this.#engine ??= this.#connectEngine();
    return this.#engine;
  }

  /**
   * Playwright speaks CDP only over a WebSocket it dials: it gets a trusted channel of the pipe through a
   * unix socket in a 0700 folder, open only until it has connected (no TCP, nothing left listening).
   */
  async #connectEngine(): Promise<Browser> {
    const dir = await mkdtemp(join(tmpdir(), 'portico-cdp-'));
    const socketPath = join(dir, 's');
    const server = createServer((_request, response) => response.writeHead(404).end());
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) =>
      this.#bridge(request, socket, head, false),
    );
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(socketPath, () => resolve());
      });
      return await chromium.connectOverCDP(`ws+unix://${socketPath}:/devtools/browser/portico`);
    } finally {
      server.close();
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** Serves one `cdp_url` client (the proxy has checked who it is): a guarded channel of this browser's pipe. */
  acceptClient(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.#bridge(request, socket, head, true);
  }

  #bridge(request: IncomingMessage, socket: Duplex, head: Buffer, guarded: boolean): void {
    const peer = acceptWebSocket(request, socket, head);
    if (!peer) return;
    const early: string[] = [];
    let channel: CdpChannel | undefined;
    peer.onMessage = (text) => (channel ? channel.receive(text) : early.push(text));
    peer.onClose = () => channel?.close();
    const guard = guarded
      ? {
          downloadsDir: this.downloadsDir,
          targetInfo: async (targetId: string) => {
            const answer = await this.#pipe.call('Target.getTargetInfo', { targetId });
            const info = answer.result?.targetInfo as { type?: unknown; url?: unknown } | undefined;
            return info && { type: String(info.type), url: String(info.url) };
          },
        }
      : undefined;
    this.#pipe.openChannel(guard).then(
      (opened) => {
        channel = opened;
        opened.onMessage = (text) => peer.send(text);
        opened.onClose = () => peer.close();
        if (socket.destroyed) return opened.close();
        for (const text of early.splice(0)) opened.receive(text);
      },
      () => peer.close(1011),
    );
  }

  /** The page Portico drives: the first open page of the default context, opened when there is none. */
  async page(): Promise<Page> {
    const browser = await this.engine();
    const context = browser.contexts()[0];
    if (!context) throw new Error('the session browser has no default context');
    return context.pages().find((page) => !page.isClosed()) ?? (await context.newPage());
  }

  /**
   * Makes the page's window `screen` large (the viewport exactly `screen`), for a browser Portico did not
   * launch with that window size (a remote host's).
   */
  async fitWindow(screen: SessionScreen): Promise<void> {
    const page = await this.page();
    const cdp = await page.context().newCDPSession(page);
    try {
      const { windowId } = await cdp.send('Browser.getWindowForTarget');
      await cdp.send('Browser.setWindowBounds', {
        windowId,
        bounds: { width: screen.width, height: screen.height + HEADLESS_FRAME_PX },
      });
    } finally {
      await cdp.detach().catch(() => undefined);
    }
  }

  /** The engine's page right now, if connected (for the live view, which asks synchronously). */
  currentPage(): Page | undefined {
    return this.#connected
      ?.contexts()[0]
      ?.pages()
      .find((page) => !page.isClosed());
  }

  #connected: Browser | undefined;

  /** Whether Portico's own Playwright connection is made (connect() has finished). */
  get connected(): boolean {
    return this.#connected !== undefined;
  }

  /** Connects Portico's own client now, so the first page() and the live view cost nothing later. */
  async connect(): Promise<void> {
    this.#connected = await this.engine();
  }

  /**
   * Asks Chromium to close (flushing a profile's state), kills it if it does not, removes its working folder.
   * A browser launched `killing` (a local one on a throwaway profile: nothing in it is kept, its folder is
   * removed next) is killed at once, its whole process group: Chromium's orderly shutdown took 150-450 ms of
   * a session's `terminate` for nothing kept (docs/decisions.md, "A throwaway session browser is killed"), and
   * its close resolves once the process has exited; what follows — Portico's Playwright letting go of it, its
   * folder removed — goes on after that (`cleaned`). Idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    if (this.#closeBy === 'killing') {
      if (this.alive) {
        this.#kill();
        await this.exited;
      }
      void this.#cleanUp();
      return;
    }
    if (this.alive) {
      this.#requestClose();
      // A Chromium that does not exit in time (stopped, wedged) is killed with everything it started.
      let timer: TimerHandle | undefined;
      const gaveUp = new Promise<'timeout'>((resolve) => {
        timer = this.#clock.setTimeout(() => resolve('timeout'), this.#closeTimeoutMs);
      });
      const outcome = await Promise.race([this.exited.then(() => 'exited' as const), gaveUp]);
      this.#clock.clearTimeout(timer);
      if (outcome === 'timeout') {
        this.#kill();
        await this.exited;
      }
    }
    await this.#cleanUp();
  }

  /** After the process has exited: Portico's Playwright connection let go, the profile's download folder forgotten, the working folder removed. */
  async #cleanUp(): Promise<void> {
    try {
      await this.#engine?.then((browser) => browser.close()).catch(() => undefined);
      // The profile outlives this session's folder: it must not keep pointing its downloads at a deleted folder.
      if (this.#profileDir !== undefined)
        await forgetDownloadFolder(this.#profileDir, this.downloadsDir).catch(() => undefined);
      await rm(this.#workDir, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
    } finally {
      this.#markCleaned();
    }
  }
}

/** Launches session browsers and keeps a few default ones warm, so creating a session does not wait for Chromium. */
export class SessionBrowserPool {
  readonly #options: SessionBrowserLauncherOptions;
  readonly #logger: Logger;
  readonly #ready: Promise<SessionBrowser | undefined>[] = [];
  readonly #live = new Set<SessionBrowser>();
  /** Every browser launched and not yet closed and cleaned up (its folder removed): close() waits for them. */
  readonly #launched = new Set<SessionBrowser>();
  /** Launches not yet finished: close() waits for them, so no browser starts after the pool has closed. */
  readonly #launching = new Set<Promise<unknown>>();
  #size: number;
  #closed = false;
  /** Closed for idleness (closeIdle): nothing is launched ahead until the next take(). */
  #asleep = false;
  /** The idle close under way: a take() waits for it. */
  #closing: Promise<void> | undefined;
  /** Refills waiting for the session that took a warm browser to get going (#refillAfter); each counts as in the pool. */
  readonly #waiting = new Set<{ start(): void; cancel(): void }>();
  readonly #clock: Clock;
  readonly #refill: { quietMs: number; maxMs: number };

  constructor(options: SessionBrowserLauncherOptions, size: number) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
    this.#size = Math.max(0, Math.floor(size));
    this.#clock = options.clock ?? systemClock;
    this.#refill = options.refill ?? DEFAULT_REFILL;
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

  /**
   * Launches warm browsers until the pool is full (in the background); not while closed for idleness.
   * Each one logs `warm session browser ready` (info, with its pid) once a session can take it.
   * Portico's own Playwright connection to a warm browser is made ahead only when playwright-core is
   * loaded by the time the browser is up: until a first job or session needs it, an idle service does not
   * load it (~40 MB; docs/performance.md, "Service RSS"), and the first session connects when it takes the
   * browser. Asked at the end of the launch, not its start: the refill a first session's take starts is up
   * after that session has loaded Playwright, so the next session finds it connected.
   */
  fill(): void {
    while (!this.#closed && !this.#asleep && this.#ready.length + this.#waiting.size < this.#size) {
      this.#ready.push(
        this.#launch(DEFAULT_SESSION_SCREEN_SPEC, true).then(
          (browser) => {
            // What a watcher of the log (bench/idle.bench.ts) waits for before it times a warm session.
            this.#logger.info('warm session browser ready', { pid: browser.pid });
            return browser;
          },
          (error: unknown) => {
            if (!this.#closed) this.#logger.warn('warm session browser not launched', { error: String(error) });
            return undefined;
          },
        ),
      );
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

  /**
   * The idle close (idleBrowsers.ts): the warm browsers are closed and none is launched ahead until the
   * next session asks for one.
   */
  closeIdle(): Promise<void> {
    this.#asleep = true;
    this.#cancelWaiting();
    const ready = this.#ready.splice(0);
    this.#closing ??= (async () => {
      await Promise.allSettled(ready.map(async (pending) => (await pending)?.close()));
    })().finally(() => {
      this.#closing = undefined;
    });
    return this.#closing;
  }

  /** A browser for one session: a warm one when the spec is the default and one is ready, else a fresh launch. */
  async take(spec: SessionLaunchSpec): Promise<{ browser: SessionBrowser; warm: boolean }> {
    if (this.#closed) throw new Error('the session browser pool is closed');
    await this.#closing;
    if (this.#asleep) {
      // Closed for idleness: this session launches its own (cold), then the pool is made warm again behind it.
      this.#asleep = false;
      let browser: SessionBrowser;
      try {
        browser = await this.#launch(spec, false);
      } catch (error) {
        this.fill();
        throw error;
      }
      this.#refillAfter(browser);
      return { browser, warm: false };
    }
    if (isDefaultSpec(spec)) {
      // A refill still waiting for the last session to get going is needed now: it starts at once.
      if (this.#ready.length === 0) for (const waiting of [...this.#waiting]) waiting.start();
      while (this.#ready.length > 0) {
        const pending = this.#ready.shift();
        const browser = await pending;
        if (browser?.alive) {
          this.#refillAfter(browser);
          return { browser, warm: true };
        }
        this.fill();
        await browser?.close();
      }
    }
    return { browser: await this.#launch(spec, false), warm: false };
  }

  /**
   * The pool's refill for a browser a session just took waits until that session has got going, so the
   * refill's launch (~0.5 s of CPU) does not compete with the session's first connect and navigation: it
   * starts once the browser has sent no CDP message for `quietMs` after a `cdp_url` client connected, at
   * most `maxMs` after the take, when the session's browser exits, or when another session asks for a
   * browser (take). On the injected clock (docs/decisions.md, "The warm pool refills once a session has
   * got going").
   */
  #refillAfter(taken: SessionBrowser): void {
    if (this.#closed || this.#size === 0) return;
    const { quietMs, maxMs } = this.#refill;
    let timer: TimerHandle | undefined;
    let waited = 0;
    let lastMessages = -1;
    const waiting = {
      start: () => {
        if (!this.#waiting.delete(waiting)) return;
        this.#clock.clearTimeout(timer);
        this.fill();
      },
      cancel: () => {
        this.#waiting.delete(waiting);
        this.#clock.clearTimeout(timer);
      },
    };
    const tick = (): void => {
      waited += quietMs;
      const { clients, messages } = taken.cdpActivity;
      if (waited >= maxMs || (clients > 0 && messages === lastMessages)) {
        waiting.start();
        return;
      }
      lastMessages = clients > 0 ? messages : -1;
      timer = this.#clock.setTimeout(tick, quietMs, { unref: true });
    };
    this.#waiting.add(waiting);
    timer = this.#clock.setTimeout(tick, quietMs, { unref: true });
    void taken.exited.then(() => waiting.start());
  }

  #cancelWaiting(): void {
    for (const waiting of [...this.#waiting]) waiting.cancel();
  }

  /** Closes every browser this pool launched, warm or in use. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#cancelWaiting();
    this.#ready.splice(0);
    await Promise.allSettled(
      [...this.#launched].map(async (browser) => {
        await browser.close();
        await browser.cleaned;
      }),
    );
    // A launch that was under way closes its browser itself once it sees the pool closed; wait for that.
    await Promise.allSettled([...this.#launching]);
  }

  /** Refills waiting for the session that took a warm browser to get going (not launched yet). */
  get waitingRefills(): number {
    return this.#waiting.size;
  }

  /** How many session browser processes are running (warm and in use). */
  get running(): number {
    return [...this.#live].filter((browser) => browser.alive).length;
  }

  /** `connectIfLoaded`: Portico's own connection is made before answering when playwright-core is loaded once the browser is up. */
  #launch(spec: SessionLaunchSpec, connectIfLoaded: boolean): Promise<SessionBrowser> {
    const launch = this.#launchNow(spec, connectIfLoaded);
    this.#launching.add(launch);
    void launch.then(
      () => this.#launching.delete(launch),
      () => this.#launching.delete(launch),
    );
    return launch;
  }

  async #launchNow(spec: SessionLaunchSpec, connectIfLoaded: boolean): Promise<SessionBrowser> {
    const browser = await launchSessionBrowser(spec, this.#options);
    this.#live.add(browser);
    this.#launched.add(browser);
    void browser.exited.then(() => this.#live.delete(browser));
    void browser.cleaned.then(() => this.#launched.delete(browser));
    if (this.#closed) {
      // The pool's close waits for this launch (#launching): it ends with the folder removed too.
      await browser.close();
      await browser.cleaned;
      throw new Error('the session browser pool is closed');
    }
    if (connectIfLoaded && playwrightLoaded()) {
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

/**
 * SIGKILL to the browser's whole process group (it is spawned detached: the group is the browser and every
 * process it started, even when a wrapper script is what was spawned); Windows: the process itself.
 */
function killProcessTree(child: ChildProcess): void {
  try {
    if (process.platform !== 'win32' && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    else child.kill('SIGKILL');
  } catch {
    // Already gone.
  }
}

const HEADLESS_FRAME_PX = 87;

const DEFAULT_SESSION_SCREEN_SPEC: SessionLaunchSpec = { screen: DEFAULT_SESSION_SCREEN };

type Preferences = Record<string, unknown>;

async function readPreferences(userDataDir: string): Promise<Preferences> {
  try {
    const parsed: unknown = JSON.parse(await readFile(join(userDataDir, 'Default', 'Preferences'), 'utf8'));
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Preferences;
  } catch {
    // No profile yet (or an unreadable one Chromium will replace): start from nothing.
  }
  return {};
}

async function writePreferences(userDataDir: string, prefs: Preferences): Promise<void> {
  await mkdir(join(userDataDir, 'Default'), { recursive: true });
  await writeFile(join(userDataDir, 'Default', 'Preferences'), JSON.stringify(prefs), { mode: 0o600 });
}

function section(prefs: Preferences, name: string): Record<string, unknown> {
  const value = prefs[name];
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** Points the profile's default download folder at `downloadsDir` (what Chromium uses when no client set one). */
async function setDownloadFolder(userDataDir: string, downloadsDir: string): Promise<void> {
  const prefs = await readPreferences(userDataDir);
  prefs.download = {
    ...section(prefs, 'download'),
    default_directory: downloadsDir,
    prompt_for_download: false,
    directory_upgrade: true,
  };
  prefs.savefile = { ...section(prefs, 'savefile'), default_directory: downloadsDir };
  await writePreferences(userDataDir, prefs);
}

/** After the browser exited: the profile's download folders no longer name `downloadsDir` (removed with the session). */
async function forgetDownloadFolder(userDataDir: string, downloadsDir: string): Promise<void> {
  const prefs = await readPreferences(userDataDir);
  let changed = false;
  for (const name of ['download', 'savefile']) {
    const values = section(prefs, name);
    if (values.default_directory !== downloadsDir) continue;
    const { default_directory: _removed, ...rest } = values;
    prefs[name] = rest;
    changed = true;
  }
  if (changed) await writePreferences(userDataDir, prefs);
}

/** Starts one session browser and waits until it answers over its pipe. */
export async function launchSessionBrowser(
  spec: SessionLaunchSpec,
  options: SessionBrowserLauncherOptions,
): Promise<SessionBrowser> {
  const parent = options.tempDir ?? tmpdir();
  await mkdir(parent, { recursive: true });
  // The browser's working folder (its cwd, downloads, and its user data unless a profile is given).
  const workDir = await mkdtemp(join(parent, 'portico-session-'));
  const userDataDir = spec.userDataDir ?? join(workDir, 'profile');
  const timeoutMs = options.launchTimeoutMs ?? 30_000;
  let child: ChildProcess | undefined;
  try {
    await mkdir(join(workDir, 'downloads'), { recursive: true, mode: 0o700 });
    await setDownloadFolder(userDataDir, join(workDir, 'downloads'));
    const args = [
      ...chromiumArgs({ noSandbox: options.noSandbox }),
      '--headless',
      '--remote-debugging-pipe',
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
      ...blockedHostRules(options.blockedHostPorts?.() ?? []),
      ...(spec.proxy
        ? [
            `--proxy-server=${spec.proxy.server}`,
            ...(spec.proxy.bypass ? [`--proxy-bypass-list=${spec.proxy.bypass.replaceAll(',', ';')}`] : []),
          ]
        : []),
      ...(spec.userAgent ? [`--user-agent=${spec.userAgent}`] : []),
      'about:blank',
    ];
    // Its own process group (as Playwright does): a signal to the service's group must not kill the
    // browser under a live session before the service closes it; the pipe still ends it if we die.
    const spawned = spawn(options.executablePath(), args, {
      cwd: workDir,
      stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'],
      detached: process.platform !== 'win32',
    });
    child = spawned;
    const pipe = new CdpPipe(spawned.stdio[3] as Writable, spawned.stdio[4] as Readable);
    const stderr = spawned.stderr as Readable;
    let text = '';
    // Keep draining stderr so Chromium never blocks on a full pipe; its tail explains a failed start.
    stderr.on('data', (chunk: Buffer) => {
      text = (text + chunk.toString('utf8')).slice(-4096);
    });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => fail(new Error(`Chromium did not answer over its DevTools pipe within ${timeoutMs} ms`)),
        timeoutMs,
      );
      const onExit = (code: number | null, signal: NodeJS.Signals | null): void =>
        fail(
          new Error(`Chromium exited before it was ready (code ${code}, signal ${signal}): ${text.slice(-500).trim()}`),
        );
      const onError = (error: Error): void => fail(error);
      function cleanup(): void {
        clearTimeout(timer);
        spawned.off('exit', onExit);
        spawned.off('error', onError);
      }
      function fail(error: Error): void {
        cleanup();
        reject(error);
      }
      spawned.once('exit', onExit);
      spawned.once('error', onError);
      pipe.call('Browser.getVersion').then((answer) => {
        if (answer.error) return fail(new Error(`Chromium did not start: ${answer.error.message}`));
        cleanup();
        resolve();
      }, fail);
    });
    return new SessionBrowser(
      spawned,
      pipe,
      workDir,
      options.closeTimeoutMs ?? 5_000,
      options.clock,
      spec.userDataDir,
      undefined,
      undefined,
      // On a profile, Chromium's shutdown writes what the session changed; without one, nothing is kept.
      spec.userDataDir === undefined ? 'killing' : 'asking',
    );
  } catch (error) {
    if (child) killProcessTree(child);
    await rm(workDir, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
    throw error;
  }
}
