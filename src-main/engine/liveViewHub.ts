import type { Page } from 'playwright-core';
import type { Disposable } from '../base/emitter.ts';

/** A page that may be watched and driven from a live-view URL. */
export interface LiveTarget {
  /** What the live-view page shows as its title, e.g. "Job 1234… · signup". */
  title: string;
  /** The page being shown; may change when a run opens a new tab. */
  page(): Page | undefined;
  /** Whether viewers may send input (profile logins: yes; jobs: yes, so a human can help). */
  interactive: boolean;
}

/**
 * Unguessable tokens → pages, for `browser_url` (jobs) and `live_url` (profile logins). The token is
 * the credential: a live-view URL can be opened in any browser without an API key.
 */
export class LiveViewHub {
  readonly #targets = new Map<string, LiveTarget>();

  /** Makes `target` reachable at `/live/<token>` until the returned handle is disposed. */
  register(token: string, target: LiveTarget): Disposable {
    this.#targets.set(token, target);
    return {
      dispose: () => {
        if (this.#targets.get(token) === target) this.#targets.delete(token);
      },
    };
  }

  get(token: string): LiveTarget | undefined {
    return this.#targets.get(token);
  }

  /** The path of a live view (prefix it with the server's base URL). */
  static path(token: string): string {
    return `/live/${token}`;
  }
}
