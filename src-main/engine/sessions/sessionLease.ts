import type { BrowserContext, Page } from 'playwright-core';

import { Emitter, type Disposable, type Listener } from '../../base/emitter.ts';
import { BrowserDisconnectedError } from '../../browser/browserErrors.ts';
import type { BrowserLease } from '../../browser/browserLease.ts';
import type { CapturedDownload } from '../../browser/downloadCapture.ts';

/**
 * A job's hold on a live session's page (`browser_session_id`): the job drives the page a script
 * may have logged in by hand over CDP. Closing the lease lets go of the page and leaves the session
 * and its browser running; the session ending under the job aborts it like a browser crash.
 */
export class SessionLease implements BrowserLease {
  readonly kind = 'dedicated' as const;
  readonly context: BrowserContext;
  readonly page: Page;
  readonly userDataDir = undefined;
  readonly #abort = new AbortController();
  readonly #disconnect = new Emitter<BrowserDisconnectedError>();
  readonly #release: () => void;
  #closed = false;

  constructor(page: Page, release: () => void) {
    this.page = page;
    this.context = page.context();
    this.#release = release;
  }

  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  onDidDisconnect(listener: Listener<BrowserDisconnectedError>): Disposable {
    return this.#disconnect.event(listener);
  }

  /** Downloads are not captured in a session (its browser belongs to the session's clients). */
  downloads(): readonly CapturedDownload[] {
    return [];
  }

  /** The session ended (terminated, expired, its browser gone) while a job held it. */
  sessionEnded(reason: string): void {
    if (this.#closed || this.#abort.signal.aborted) return;
    const error = new BrowserDisconnectedError(`The browser session ended while the job ran (${reason})`);
    this.#abort.abort(error);
    this.#disconnect.fire(error);
    this.#disconnect.dispose();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#disconnect.dispose();
    this.#release();
  }
}
