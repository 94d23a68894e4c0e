import type { BrowserContext, Page } from 'playwright-core';

import { systemClock, type Clock, type TimerHandle } from '../base/clock.ts';
import { Emitter, type Disposable, type Listener } from '../base/emitter.ts';
import { BrowserDisconnectedError } from './browserErrors.ts';
import type { CapturedDownload, DownloadCapture } from './downloadCapture.ts';

/**
 * Where a lease's browser state lives: a context of the shared browser, a profile folder, a
 * throwaway copy of one, or a dedicated (headed) browser without a profile.
 */
export type LeaseKind = 'shared' | 'profile' | 'profile-copy' | 'dedicated' | 'remote';

/** A job's hold on a browser context and its first page; `close()` gives everything back. */
export interface BrowserLease {
  readonly kind: LeaseKind;
  readonly context: BrowserContext;
  readonly page: Page;
  /** The Chromium user-data folder the lease runs in (profile or its copy); undefined for the shared browser. */
  readonly userDataDir: string | undefined;
  /** Aborted with a BrowserDisconnectedError when the browser goes away under the lease. */
  readonly signal: AbortSignal;
  /** Fires once if the browser crashes, is killed or closes other than through `close()`. */
  onDidDisconnect(listener: Listener<BrowserDisconnectedError>): Disposable;
  /** Files the page downloaded so far (empty without a downloads folder). */
  downloads(): readonly CapturedDownload[];
  /** Closes the context (and its own browser), saves or discards profile state, releases the lock. Idempotent. */
  close(): Promise<void>;
}

export interface LeaseParts {
  kind: LeaseKind;
  context: BrowserContext;
  page: Page;
  userDataDir: string | undefined;
  capture: DownloadCapture | undefined;
  downloadSettleMs: number;
  /** Releases everything behind the context once it is closed: browser, temp folder, lock, counters. */
  teardown(): Promise<void>;
  /** How long closing the context may take (on `clock`) before `kill` ends its browser. */
  closeTimeoutMs: number;
  clock?: Clock;
  /** Kills the browser process tree behind the context (SIGKILL of its process group). */
  kill(): Promise<void>;
  /** Runs before the context closes when the browser is still there (a remote profile's state is read back). */
  beforeClose?: () => Promise<void>;
  /** What a lost browser is called in the error (a remote lease names its host). */
  disconnectDetail?: string;
}

/** The lease the runtime hands out; disconnect detection rides on the context's close event. */
export class RuntimeLease implements BrowserLease {
  readonly kind: LeaseKind;
  readonly context: BrowserContext;
  readonly page: Page;
  readonly userDataDir: string | undefined;
  readonly #parts: LeaseParts;
  readonly #abort = new AbortController();
  readonly #disconnect = new Emitter<BrowserDisconnectedError>();
  #closing: Promise<void> | undefined;

  constructor(parts: LeaseParts) {
    this.#parts = parts;
    this.kind = parts.kind;
    this.context = parts.context;
    this.page = parts.page;
    this.userDataDir = parts.userDataDir;
    // 'close' also fires for our own close(); only an unrequested one means the browser went away.
    parts.context.on('close', () => {
      if (this.#closing === undefined) this.#markDisconnected();
    });
  }

  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  onDidDisconnect(listener: Listener<BrowserDisconnectedError>): Disposable {
    return this.#disconnect.event(listener);
  }

  downloads(): readonly CapturedDownload[] {
    return this.#parts.capture?.saved ?? [];
  }

  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  /** Called by the runtime when it learns first (browser 'disconnected') that the browser is gone. */
  markDisconnected(): void {
    if (this.#closing === undefined) this.#markDisconnected();
  }

  /** Whether the browser went away under the lease. */
  get disconnected(): boolean {
    return this.#abort.signal.aborted;
  }

  #markDisconnected(): void {
    if (this.#abort.signal.aborted) return;
    const error = new BrowserDisconnectedError(this.#parts.disconnectDetail);
    this.#abort.abort(error);
    this.#disconnect.fire(error);
    this.#disconnect.dispose();
  }

  #within(work: Promise<unknown>, ms: number): Promise<'done' | 'timeout'> {
    const clock = this.#parts.clock ?? systemClock;
    let timer: TimerHandle | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = clock.setTimeout(() => resolve('timeout'), ms);
    });
    return Promise.race([work.then(() => 'done' as const), timedOut]).finally(() => clock.clearTimeout(timer));
  }

  async #close(): Promise<void> {
    try {
      if (!this.#abort.signal.aborted) await this.#parts.capture?.settle(this.#parts.downloadSettleMs);
      const beforeClose = this.#abort.signal.aborted ? undefined : this.#parts.beforeClose;
      if (beforeClose)
        await this.#within(
          beforeClose().catch(() => undefined),
          this.#parts.closeTimeoutMs,
        );
      // Closing a context whose browser already died rejects; there is nothing left to close then. A browser
      // that does not answer (stopped, wedged) is killed, so the lock and slot behind the lease come back.
      if (
        (await this.#within(
          this.context.close().catch(() => undefined),
          this.#parts.closeTimeoutMs,
        )) === 'timeout'
      )
        await this.#parts.kill();
    } finally {
      this.#disconnect.dispose();
      await this.#parts.teardown();
    }
  }
}
