import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Browser, BrowserContext, BrowserType, LaunchOptions } from 'playwright-core';
import { chromium } from './lazyChromium.ts';

import type { Clock } from '../base/clock.ts';
import type { HeadlessShellChoice } from '../base/config.ts';
import { silentLogger, type Logger } from '../base/logger.ts';
import { killLaunch, newLaunchMarker } from './browserProcess.ts';
import { BrowserRuntimeClosedError, ProfileInUseError } from './browserErrors.ts';
import { RuntimeLease, type BrowserLease, type LeaseKind, type LeaseParts } from './browserLease.ts';
import {
  blockedHostRules,
  chromiumArgs,
  findChromium,
  findHeadlessShell,
  needsNoSandbox,
  systemChromiumHost,
  type ChromiumHost,
} from './chromiumDiscovery.ts';
import { DownloadCapture } from './downloadCapture.ts';
import type { IdleBrowsers } from './idleBrowsers.ts';
import { copyProfileToTemp, profileDir, removeFolder } from './profileFolders.ts';
import { inPlaywrightTemp } from './playwrightTemp.ts';
import { ProfileLocks, type ProfileLockHandle } from './profileLocks.ts';
import { SpareContextPool, type SpareContext } from './spareContextPool.ts';
import { prepareCaptureSession } from './pageScreenshot.ts';

/** A proxy for one lease, in Playwright's shape; `bypass` is a comma-separated host list. */
export interface ProxySettings {
  server: string;
  username?: string;
  password?: string;
  bypass?: string;
}

export interface ScreenSize {
  width: number;
  height: number;
}

export const DEFAULT_SCREEN: Readonly<ScreenSize> = Object.freeze({ width: 1280, height: 800 });

export interface LeaseOptions {
  /** Run in this profile's folder (`<dataDir>/profiles/<id>`); absent: a fresh context of the shared browser. */
  profileId?: string;
  /** With a profile: true keeps what the run changes (and waits for the profile's lock); false runs on a throwaway copy. Default true. */
  saveProfile?: boolean;
  proxy?: ProxySettings;
  /** Viewport and screen size; default 1280x800. */
  viewport?: ScreenSize;
  /** Save the page's downloads here; without it downloads are refused. */
  downloadsDir?: string;
  /** A visible window (profile login in the desktop app); without a profile this gets its own browser. */
  headed?: boolean;
  /** Gives up waiting for a busy profile; the lease rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * A remote browser host (`browser_hosts` in settings.json) to run on instead of the local Chromium; a
   * profile then travels as storage state (docs/scale.md, "What a remote profile keeps"). HostRefusedError
   * when the host says no (the caller moves to the next host).
   */
  host?: string;
}

/** The remote hosts a runtime can lease from (browser/browserHosts.ts). */
export interface RemoteBrowserSource {
  connect(name: string): Promise<Browser>;
  noteFailure(name: string, message: string, unreachable: boolean): void;
}

type StorageState = Awaited<ReturnType<BrowserContext['storageState']>>;

export interface BrowserRuntimeOptions {
  /** The app's data folder; profiles live in `<dataDir>/profiles/`. */
  dataDir: string;
  /** Where throwaway profile copies go; default the OS temp folder. */
  tempDir?: string;
  /** Where Playwright makes each browser's own throwaway folders (see playwrightTemp.ts); default the OS temp folder. */
  launcherTempDir?: string;
  /** An explicit Chromium executable (the operator's saved path); else `chromiumEnvPath`, else the usual install paths. */
  executablePath?: string;
  /** PORTICO_CHROMIUM (base/config.ts). */
  chromiumEnvPath?: string;
  /** PORTICO_HEADLESS_SHELL (base/config.ts): what headless launches run; default `auto`. */
  headlessShell?: HeadlessShellChoice;
  /** `host:port` pairs no browser may reach (Portico's own port), read at each launch. */
  blockedHostPorts?: () => readonly string[];
  /** PORTICO_CHROMIUM_NO_SANDBOX (base/config.ts); root on Linux needs no flag. */
  disableSandbox?: boolean;
  /** Shared by everything that must not open a profile folder twice (e.g. the delete-profile route). */
  locks?: ProfileLocks;
  logger?: Logger;
  host?: ChromiumHost;
  browserType?: BrowserType;
  launchTimeoutMs?: number;
  /** How long close() waits for downloads still in flight. */
  downloadSettleMs?: number;
  /** How long a lease's context may take to close (on `clock`) before its browser's process group is killed; default 30 s. */
  closeTimeoutMs?: number;
  /** The clock of that bound; default the system clock. */
  clock?: Clock;
  /** The remote browser hosts (leases with `host`). */
  remoteHosts?: RemoteBrowserSource;
  /**
   * Keep one fresh context (default size, no proxy) open in the shared browser, so a job's lease
   * skips context creation; it is handed out once and replaced in the background.
   */
  spareContext?: boolean;
  /**
   * The warm browsers' idle close (idleBrowsers.ts): every lease holds it from the request to its end,
   * and it calls `closeIdle()` once nothing has for the idle period.
   */
  idle?: Pick<IdleBrowsers, 'hold' | 'closing'>;
}

/** What is open right now; all zero (and no shared browser) after `close()`. */
export interface RuntimeResources {
  leases: number;
  browsers: number;
  contexts: number;
  tempDirs: number;
  sharedBrowser: boolean;
}

type Counter = 'browsers' | 'contexts' | 'tempDirs';

/**
 * The app's browsers: one warm shared browser for jobs without a profile (a fresh context per
 * lease), a persistent browser per profile folder, and a throwaway copy for `saveProfile: false`.
 */
export class BrowserRuntime {
  readonly locks: ProfileLocks;
  readonly #options: BrowserRuntimeOptions;
  readonly #logger: Logger;
  readonly #host: ChromiumHost;
  readonly #browserType: BrowserType;
  readonly #leases = new Set<RuntimeLease>();
  /** The launch marker of each browser (browserProcess.ts): a persistent context is its own browser. */
  readonly #markers = new WeakMap<Browser | BrowserContext, string>();
  readonly #counts: Record<Counter, number> = { browsers: 0, contexts: 0, tempDirs: 0 };
  #executablePath: string | undefined;
  /** The headless shell headless launches run (null: none, the chosen Chromium); undefined until first asked. */
  #shellPath: string | null | undefined;
  /** The operator's choice (setExecutablePath), else the constructor's; undefined means discovery. */
  #configuredPath: string | undefined;
  #shared: Browser | undefined;
  /** Shared browsers launched with an earlier Chromium path, closed once their last lease ends. */
  readonly #retired = new Set<Browser>();
  #sharedLaunch: Promise<Browser> | undefined;
  /** The spare context (spareContext option): default size, no proxy, in the current shared browser. */
  readonly #spare: SpareContextPool;
  #closed = false;

  constructor(options: BrowserRuntimeOptions) {
    this.#options = options;
    this.locks = options.locks ?? new ProfileLocks();
    this.#logger = options.logger ?? silentLogger;
    this.#host = options.host ?? systemChromiumHost();
    this.#browserType = options.browserType ?? chromium;
    this.#configuredPath = options.executablePath;
    this.#spare = new SpareContextPool(() => this.#makeSpare(), this.#logger);
  }

  /**
   * Uses another Chromium (undefined: discovery again) for every browser launched from now on. The
   * warm shared browser is retired — closed at once when idle, else when its last lease ends — so
   * running jobs are never disturbed; the spare context is dropped and remade on the new browser.
   */
  async setExecutablePath(path: string | undefined): Promise<void> {
    this.#assertOpen();
    this.#configuredPath = path;
    this.#executablePath = undefined;
    this.#shellPath = undefined;
    // A launch in flight used the old path: let it land, then retire it with the rest.
    await this.#sharedLaunch?.catch(() => undefined);
    await this.#spare.drop();
    const old = this.#shared;
    this.#shared = undefined;
    if (old) {
      this.#retired.add(old);
      await this.#closeRetiredIfIdle(old);
      // A warm runtime stays warm: the next job should not pay for the relaunch.
      if (this.#options.spareContext) this.#prepareSpare();
    }
  }

  async #closeRetiredIfIdle(browser: Browser): Promise<void> {
    if (!this.#retired.has(browser)) return;
    for (const lease of this.#leases) if (lease.context.browser() === browser) return;
    await browser.close().catch(() => undefined);
    this.#retired.delete(browser);
  }

  /** The profile's folder; validates the id. */
  profileDir(profileId: string): string {
    return profileDir(this.#options.dataDir, profileId);
  }

  /** Launches the shared browser now instead of on the first lease. */
  async warm(): Promise<void> {
    await this.#sharedBrowser();
    this.#prepareSpare();
    await this.#spare.ready();
  }

  #prepareSpare(): void {
    if (!this.#options.spareContext || this.#closed) return;
    this.#spare.refill();
  }

  async #makeSpare(): Promise<SpareContext> {
    const browser = await this.#sharedBrowser();
    const context = await browser.newContext(this.#contextOptions({ downloadsDir: 'spare' }));
    try {
      const page = await context.newPage();
      // The first step screenshot's CDP session is opened here, off the job's path (it never fails the spare).
      await prepareCaptureSession(page);
      return { context, page };
    } catch (error) {
      await context.close().catch(() => undefined);
      throw error;
    }
  }

  /** A fresh spare context for a lease whose options match the spare's, else undefined. */
  async #takeSpare(options: LeaseOptions): Promise<SpareContext | undefined> {
    const size = options.viewport ?? DEFAULT_SCREEN;
    const fits =
      !options.proxy &&
      !options.headed &&
      options.downloadsDir !== undefined &&
      size.width === DEFAULT_SCREEN.width &&
      size.height === DEFAULT_SCREEN.height;
    return fits ? this.#spare.take() : undefined;
  }

  /** Opens a browser context for one job; see LeaseOptions for where it runs. */
  async lease(options: LeaseOptions = {}): Promise<BrowserLease> {
    this.#assertOpen();
    // In use from the request on (a launch is use); the lease itself holds again until it ends.
    const acquiring = this.#hold();
    try {
      // An idle close under way finishes first; the lease then launches what it needs.
      await this.#options.idle?.closing;
      const lease =
        options.host !== undefined
          ? await this.#leaseRemote(options.host, options)
          : options.profileId === undefined
            ? await (options.headed ? this.#leaseDedicated(options) : this.#leaseShared(options))
            : await this.#leaseProfile(options.profileId, options);
      if (this.#closed) {
        await lease.close();
        throw new BrowserRuntimeClosedError();
      }
      return lease;
    } finally {
      acquiring();
    }
  }

  #hold(): () => void {
    return this.#options.idle?.hold() ?? (() => undefined);
  }

  /**
   * The idle close: the spare context and the warm shared browser are closed (and relaunched by the next
   * lease). A shared browser a lease is using stays (the idle timer never fires while one is held).
   */
  async closeIdle(): Promise<void> {
    if (this.#closed) return;
    await this.#spare.drop();
    await this.#sharedLaunch?.catch(() => undefined);
    const shared = this.#shared;
    if (!shared) return;
    for (const lease of this.#leases) if (lease.context.browser() === shared) return;
    this.#shared = undefined;
    this.#retired.add(shared);
    await shared.close().catch(() => undefined);
    this.#retired.delete(shared);
  }

  /** Deletes a profile's folder; 409 while a browser has it open. */
  async deleteProfileFolder(profileId: string): Promise<void> {
    const dir = this.profileDir(profileId);
    const lock = this.locks.tryAcquire(profileId);
    if (!lock) throw new ProfileInUseError(profileId);
    try {
      await removeFolder(dir);
    } finally {
      lock.release();
    }
  }

  resources(): RuntimeResources {
    return { leases: this.#leases.size, ...this.#counts, sharedBrowser: this.#shared?.isConnected() ?? false };
  }

  /** Closes every lease still open, then the shared browser; later leases are refused. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#spare.close();
    await Promise.allSettled([...this.#leases].map((lease) => lease.close()));
    await this.#sharedLaunch?.catch(() => undefined);
    const shared = this.#shared;
    this.#shared = undefined;
    await shared?.close().catch(() => undefined);
    const retired = [...this.#retired];
    this.#retired.clear();
    await Promise.allSettled(retired.map((browser) => browser.close()));
  }

  async #leaseShared(options: LeaseOptions): Promise<RuntimeLease> {
    // The next spare is made when this lease ends, so making it never competes with a running job;
    // a lease on a retired browser (an earlier Chromium path) closes that browser if it was the last.
    const releaseFor = (browser: Browser | null) => async (): Promise<void> => {
      if (browser) await this.#closeRetiredIfIdle(browser);
      this.#prepareSpare();
    };
    const spare = await this.#takeSpare(options);
    if (spare) return this.#adopt('shared', spare.context, undefined, options, releaseFor(spare.context.browser()));
    for (let attempt = 1; ; attempt += 1) {
      const browser = await this.#sharedBrowser();
      let context: BrowserContext;
      try {
        context = await browser.newContext(this.#contextOptions(options));
      } catch (error) {
        // A browser that just died still reads as connected until its 'disconnected' event lands.
        if (attempt > 1 || !(await hasDisconnected(browser, 2_000))) throw error;
        continue;
      }
      return this.#adopt('shared', context, undefined, options, releaseFor(browser));
    }
  }

  async #leaseDedicated(options: LeaseOptions): Promise<RuntimeLease> {
    const browser = await this.#launch(true, options.viewport);
    try {
      const context = await browser.newContext(this.#contextOptions(options));
      return this.#adopt('dedicated', context, undefined, options, () => browser.close().catch(() => undefined));
    } catch (error) {
      await browser.close().catch(() => undefined);
      throw error;
    }
  }

  async #leaseProfile(profileId: string, options: LeaseOptions): Promise<RuntimeLease> {
    const folder = this.profileDir(profileId);
    const saveProfile = options.saveProfile ?? true;
    let lock: ProfileLockHandle | undefined;
    let userDataDir = folder;
    let untrackTemp: (() => void) | undefined;
    const cleanup = async (): Promise<void> => {
      if (untrackTemp) {
        await removeFolder(userDataDir).catch((error: unknown) =>
          this.#logger.warn('temp profile not removed', { userDataDir, error: String(error) }),
        );
        untrackTemp();
      }
      lock?.release();
    };
    try {
      if (saveProfile) {
        lock = await this.locks.acquire(profileId, options.signal);
        this.#assertOpen();
        await mkdir(folder, { recursive: true });
      } else {
        // The copy never touches the real folder, so it needs no lock and may run beside a saving job.
        userDataDir = await copyProfileToTemp(folder, this.#options.tempDir ?? tmpdir());
        untrackTemp = this.#track('tempDirs');
      }
      const marker = newLaunchMarker();
      const launchOptions = this.#launchOptions(options.headed ?? false, options.viewport);
      const context = await this.#inTemp((env) =>
        this.#browserType.launchPersistentContext(userDataDir, {
          ...launchOptions,
          args: [...(launchOptions.args ?? []), marker.arg],
          ...this.#contextOptions(options),
          ...(env && { env }),
        }),
      );
      this.#markers.set(context, marker.id);
      const untrackBrowser = this.#track('browsers');
      // The persistent context is its browser: closing one closes the other.
      context.on('close', untrackBrowser);
      return this.#adopt(saveProfile ? 'profile' : 'profile-copy', context, userDataDir, options, async () => {
        untrackBrowser();
        await cleanup();
      });
    } catch (error) {
      await cleanup();
      throw error;
    }
  }

  /**
   * A context in a browser on a remote host. With a profile, the profile's cookies, localStorage and
   * IndexedDB are read from its local folder (a short local headless launch), loaded into the remote
   * context, and — when the lease saves its profile and the browser was not lost — read back at the end
   * and written into the folder the same way (docs/scale.md, "What a remote profile keeps").
   */
  async #leaseRemote(hostName: string, options: LeaseOptions): Promise<RuntimeLease> {
    const hosts = this.#options.remoteHosts;
    if (!hosts) throw new Error(`no browser host '${hostName}' in this runtime`);
    const profileId = options.profileId;
    const saveProfile = profileId !== undefined && (options.saveProfile ?? true);
    let lock: ProfileLockHandle | undefined;
    let browser: Browser | undefined;
    try {
      let state: StorageState | undefined;
      if (profileId !== undefined) {
        if (saveProfile) lock = await this.locks.acquire(profileId, options.signal);
        this.#assertOpen();
        state = await this.#readProfileState(profileId, saveProfile);
      }
      browser = await hosts.connect(hostName);
      const connected = browser;
      const context = await connected.newContext({
        ...this.#contextOptions(options),
        ...(state && { storageState: state }),
      });
      let finalState: StorageState | undefined;
      let lost = false;
      const heldLock = lock;
      const lease = await this.#adopt(
        'remote',
        context,
        undefined,
        options,
        async () => {
          await connected.close().catch(() => undefined);
          try {
            if (finalState && profileId !== undefined) await this.#writeProfileState(profileId, finalState);
          } catch (error) {
            this.#logger.warn('remote profile state not saved', {
              profile_id: profileId,
              host: hostName,
              error: String(error),
            });
          } finally {
            heldLock?.release();
          }
        },
        {
          disconnectDetail: `The browser host '${hostName}' went away (the connection to its browser closed)`,
          // A remote browser that does not close in time: the connection is dropped (the host closes its browser).
          kill: async () => {
            await connected.close().catch(() => undefined);
          },
          ...(saveProfile && {
            beforeClose: async () => {
              if (lost) return;
              finalState = await context.storageState({ indexedDB: true }).catch((error: unknown) => {
                this.#logger.warn('remote profile state not read back', {
                  profile_id: profileId,
                  host: hostName,
                  error: String(error),
                });
                return undefined;
              });
            },
          }),
        },
      );
      // The lock now belongs to the lease (released by its teardown).
      lock = undefined;
      // Lost under the lease (its context or the connection closed, not by close()): the host is suspect.
      lease.onDidDisconnect(() => {
        lost = true;
        if (!this.#closed) hosts.noteFailure(hostName, 'the connection to a browser closed while it was in use', true);
      });
      connected.on('disconnected', () => {
        lost = true;
        if (!this.#closed && this.#leases.has(lease)) lease.markDisconnected();
      });
      return lease;
    } catch (error) {
      await browser?.close().catch(() => undefined);
      lock?.release();
      throw error;
    }
  }

  /**
   * A profile's cookies, localStorage and IndexedDB, read from its folder (or a copy of it) by a short local
   * headless launch. Playwright reads an origin's storage only once a page of the context has been there, and
   * a fresh launch has been nowhere: each origin the profile is known to use — those a remote job saved
   * (REMOTE_ORIGINS_FILE) and those its cookies name — is visited first, on a blank answer Portico makes
   * itself (nothing goes to the network).
   */
  async #readProfileState(profileId: string, ownsFolder: boolean): Promise<StorageState> {
    const folder = this.profileDir(profileId);
    await mkdir(folder, { recursive: true });
    const dir = ownsFolder ? folder : await copyProfileToTemp(folder, this.#options.tempDir ?? tmpdir());
    try {
      const context = await this.#inTemp((env) =>
        this.#browserType.launchPersistentContext(dir, {
          ...this.#launchOptions(false, undefined),
          ...(env && { env }),
        }),
      );
      try {
        const origins = new Set(await readRemoteOrigins(dir));
        for (const cookie of await context.cookies()) {
          const domain = cookie.domain.replace(/^\./, '');
          origins.add(`https://${domain}`);
          if (!cookie.secure) origins.add(`http://${domain}`);
        }
        if (origins.size > 0) {
          const page = context.pages()[0] ?? (await context.newPage());
          await page.route('**/*', (route) =>
            route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title></title>' }),
          );
          for (const origin of origins) await page.goto(origin, { timeout: 10_000 }).catch(() => undefined);
        }
        return await context.storageState({ indexedDB: true });
      } finally {
        await context.close().catch(() => undefined);
      }
    } finally {
      if (!ownsFolder) await removeFolder(dir).catch(() => undefined);
    }
  }

  /** Writes storage state read back from a remote browser into the profile's folder (its cookies, localStorage and IndexedDB replaced). */
  async #writeProfileState(profileId: string, state: StorageState): Promise<void> {
    const context = await this.#inTemp((env) =>
      this.#browserType.launchPersistentContext(this.profileDir(profileId), {
        ...this.#launchOptions(false, undefined),
        ...(env && { env }),
      }),
    );
    try {
      await context.setStorageState(state);
      await writeRemoteOrigins(
        this.profileDir(profileId),
        state.origins.map((origin) => origin.origin),
      );
    } finally {
      await context.close().catch(() => undefined);
    }
  }

  async #adopt(
    kind: LeaseKind,
    context: BrowserContext,
    userDataDir: string | undefined,
    options: LeaseOptions,
    release: () => Promise<unknown>,
    extra: Partial<Pick<LeaseParts, 'beforeClose' | 'disconnectDetail' | 'kill'>> = {},
  ): Promise<RuntimeLease> {
    const untrackContext = this.#track('contexts');
    context.on('close', untrackContext);
    const held = this.#hold();
    try {
      const capture =
        options.downloadsDir === undefined
          ? undefined
          : new DownloadCapture(context, options.downloadsDir, this.#logger);
      const page = context.pages()[0] ?? (await context.newPage());
      const lease: RuntimeLease = new RuntimeLease({
        kind,
        context,
        page,
        userDataDir,
        capture,
        downloadSettleMs: this.#options.downloadSettleMs ?? 30_000,
        closeTimeoutMs: this.#options.closeTimeoutMs ?? 30_000,
        ...(this.#options.clock && { clock: this.#options.clock }),
        kill: async () => {
          const browser = context.browser();
          const marker = this.#markers.get(context) ?? (browser ? this.#markers.get(browser) : undefined);
          const killed = marker === undefined ? [] : await killLaunch(marker);
          this.#logger.warn('browser did not close in time; its process group was killed', { kind, groups: killed });
        },
        ...extra,
        teardown: async () => {
          untrackContext();
          this.#leases.delete(lease);
          try {
            await release();
          } finally {
            // After release(): a spare refill it starts is under way before the idle timer can run.
            held();
          }
        },
      });
      this.#leases.add(lease);
      return lease;
    } catch (error) {
      await context.close().catch(() => undefined);
      untrackContext();
      await release();
      held();
      throw error;
    }
  }

  #sharedBrowser(): Promise<Browser> {
    this.#assertOpen();
    const current = this.#shared;
    if (current?.isConnected()) return Promise.resolve(current);
    this.#sharedLaunch ??= this.#launchShared().finally(() => {
      this.#sharedLaunch = undefined;
    });
    return this.#sharedLaunch;
  }

  async #launchShared(): Promise<Browser> {
    const browser = await this.#launch(false, undefined);
    browser.on('disconnected', () => {
      if (this.#shared === browser) this.#shared = undefined;
      // A retired browser closing is the plan, not a failure.
      const retired = this.#retired.delete(browser);
      // The context close events normally say this too; the browser's event is the authoritative one.
      for (const lease of this.#leases)
        if (lease.kind === 'shared' && lease.context.browser() === browser) lease.markDisconnected();
      if (!this.#closed && !retired) this.#logger.warn('shared browser disconnected; the next lease relaunches it');
    });
    if (this.#closed) {
      await browser.close().catch(() => undefined);
      throw new BrowserRuntimeClosedError();
    }
    this.#shared = browser;
    return browser;
  }

  async #launch(headed: boolean, viewport: ScreenSize | undefined): Promise<Browser> {
    const marker = newLaunchMarker();
    const launchOptions = this.#launchOptions(headed, viewport);
    const browser = await this.#inTemp((env) =>
      this.#browserType.launch({
        ...launchOptions,
        args: [...(launchOptions.args ?? []), marker.arg],
        ...(env && { env }),
      }),
    );
    this.#markers.set(browser, marker.id);
    const untrack = this.#track('browsers');
    browser.on('disconnected', untrack);
    this.#logger.debug('browser launched', { headed, version: browser.version() });
    return browser;
  }

  #launchOptions(headed: boolean, viewport: ScreenSize | undefined): LaunchOptions {
    this.#executablePath ??= findChromium(this.#host, {
      configuredPath: this.#configuredPath,
      envPath: this.#options.chromiumEnvPath,
    });
    // A headless job runs the headless shell of the same build when one is installed: about half the CPU
    // of the full browser per page, same Blink and V8 (docs/decisions.md, "Headless jobs in Chromium's headless shell").
    this.#shellPath ??=
      findHeadlessShell(this.#host, this.#executablePath, this.#options.headlessShell ?? 'auto') ?? null;
    const noSandbox = needsNoSandbox(this.#host.platform, this.#options.disableSandbox ?? false, process.getuid?.());
    return {
      executablePath: headed ? this.#executablePath : (this.#shellPath ?? this.#executablePath),
      headless: !headed,
      chromiumSandbox: !noSandbox,
      args: [
        ...chromiumArgs({ noSandbox, ...(headed ? { headed: viewport ?? DEFAULT_SCREEN } : {}) }),
        ...blockedHostRules(this.#options.blockedHostPorts?.() ?? []),
      ],
      // Shutdown order is the composition root's job (runtime.close()); Playwright still kills browsers on exit.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      timeout: this.#options.launchTimeoutMs ?? 30_000,
    };
  }

  #inTemp<T>(launch: (chromiumEnv: Record<string, string> | undefined) => Promise<T>): Promise<T> {
    const dir = this.#options.launcherTempDir;
    return dir === undefined ? launch(undefined) : inPlaywrightTemp(dir, launch);
  }

  #contextOptions(options: LeaseOptions) {
    const size = options.viewport ?? DEFAULT_SCREEN;
    return {
      viewport: size,
      screen: size,
      acceptDownloads: options.downloadsDir !== undefined,
      ...(options.proxy ? { proxy: options.proxy } : {}),
    };
  }

  #track(counter: Counter): () => void {
    this.#counts[counter] += 1;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#counts[counter] -= 1;
    };
  }

  #assertOpen(): void {
    if (this.#closed) throw new BrowserRuntimeClosedError();
  }
}

/** Origins a remote job left storage in, kept in the profile's folder (names only; the values are Chromium's). */
const REMOTE_ORIGINS_FILE = 'portico-remote-origins.json';

async function readRemoteOrigins(folder: string): Promise<string[]> {
  try {
    const parsed: unknown = JSON.parse(await readFile(join(folder, REMOTE_ORIGINS_FILE), 'utf8'));
    return Array.isArray(parsed)
      ? parsed.filter((origin): origin is string => typeof origin === 'string' && /^https?:\/\//.test(origin))
      : [];
  } catch {
    return [];
  }
}

async function writeRemoteOrigins(folder: string, origins: readonly string[]): Promise<void> {
  const known = new Set([...(await readRemoteOrigins(folder)), ...origins]);
  await writeFile(join(folder, REMOTE_ORIGINS_FILE), JSON.stringify([...known]), { mode: 0o600 });
}

/** Whether `browser` is gone, waiting up to `timeoutMs` for a pending 'disconnected' event. */
function hasDisconnected(browser: Browser, timeoutMs: number): Promise<boolean> {
  if (!browser.isConnected()) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onDisconnected = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      browser.off('disconnected', onDisconnected);
      resolve(false);
    }, timeoutMs);
    browser.once('disconnected', onDisconnected);
  });
}
