import type { Page } from 'playwright-core';

import { MINUTE_MS, systemClock, type Clock, type TimerHandle } from '../../base/clock.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../base/errors.ts';
import { newId, newSecretToken } from '../../base/ids.ts';
import { Lifecycle } from '../../base/lifecycle.ts';
import { silentLogger, type Logger } from '../../base/logger.ts';
import type { BrowserLease } from '../../browser/browserLease.ts';
import type { BrowserRuntime } from '../../browser/browserRuntime.ts';
import { openUrl } from '../../browser/openUrl.ts';
import { messages } from '../../contract/messages.ts';
import type { ProfileSession, ProfileSessionClosed } from '../../contract/profile.ts';
import type { ProfileRow } from '../../store/profiles.ts';
import type { Store } from '../../store/store.ts';
import type { BrowserSlots } from '../limits/browserSlots.ts';
import { LiveViewHub } from '../liveViewHub.ts';
import type { LoginBrowserConfig } from './loginBrowserConfig.ts';

export interface OpenSessionRequest {
  timeoutMinutes: number;
  useProxy: boolean;
  startUrl: string | undefined;
  /** The server's address as the caller reached it; `live_url` starts with it. */
  baseUrl: string;
}

export interface OpenedSession {
  sessionId: string;
  liveUrl: string;
}

export interface ProfileSessionManagerOptions extends LoginBrowserConfig {
  /** Times idle expiry and the profile-lock race; tests pass a fake one. */
  clock?: Clock;
  logger?: Logger;
  /** The live-browser limits (engine/limits/browserSlots.ts): a login past them is 429. */
  browserSlots?: BrowserSlots;
}

interface LoginSession {
  readonly id: string;
  readonly orgId: string;
  readonly profileId: string;
  readonly token: string;
  readonly liveUrl: string;
  readonly idleMs: number;
  /** What the session holds, released in reverse when it ends: slot, browser (saved), live view, timer. */
  resources: Lifecycle;
  expiresAt: Date;
  timer: TimerHandle | undefined;
  closing: Promise<void> | undefined;
}

// A profile lock freed between our check and the lease is granted at once; waiting longer means a job took it.
const LOCK_RACE_MS = 2_000;
const NAVIGATION_TIMEOUT_MS = 15_000;

/**
 * Profile login sessions: a browser on the profile's folder, shown at a live-view URL, closed (and
 * its state saved) on request, when idle for `timeout_minutes`, when its window closes, or at shutdown.
 */
export class ProfileSessionManager {
  readonly #store: Store;
  readonly #runtime: BrowserRuntime;
  readonly #hub: LiveViewHub;
  readonly #options: ProfileSessionManagerOptions;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #sessions = new Map<string, LoginSession>();
  readonly #byToken = new Map<string, LoginSession>();
  /** Profiles whose browser is launching, so two concurrent requests cannot both pass the in-use check. */
  readonly #opening = new Set<string>();
  #closed = false;

  constructor(store: Store, runtime: BrowserRuntime, hub: LiveViewHub, options: ProfileSessionManagerOptions) {
    this.#store = store;
    this.#runtime = runtime;
    this.#hub = hub;
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? silentLogger;
  }

  /** Whether a login session holds (or is opening) this profile. */
  isOpen(profileId: string): boolean {
    return (
      this.#opening.has(profileId) || [...this.#sessions.values()].some((session) => session.profileId === profileId)
    );
  }

  /** Opens a login browser on the profile; 409 while the profile is open anywhere else. */
  async open(profile: ProfileRow, request: OpenSessionRequest): Promise<OpenedSession> {
    if (this.#closed) throw new ConflictError('The service is shutting down');
    if (request.useProxy && !this.#options.defaultProxy) throw new ValidationError(messages.noDefaultProxy);
    if (this.isOpen(profile.id) || this.#runtime.locks.isHeld(profile.id))
      throw new ConflictError(messages.profileInUse(profile.id));
    // Everything the login acquires is registered as it is acquired: a failure at any step releases what came
    // before it, newest first (base/lifecycle.ts); an opened session keeps it until it ends.
    const scope = new Lifecycle('profile login');
    this.#opening.add(profile.id);
    try {
      // A person logs in there: always the local Chromium (docs/scale.md, "How Portico places work").
      const slot = this.#options.browserSlots?.acquire(profile.org_id, { loginWindow: true });
      if (slot) scope.add(slot, (held) => held.release(), 'browser slot');
      // The session holds its profile (listed, refusing other opens) until its state is saved.
      let session: LoginSession | undefined;
      scope.defer(() => {
        if (!session) return;
        this.#sessions.delete(session.id);
        this.#byToken.delete(session.token);
      }, 'session entry');
      const lease = scope.add(
        await this.#leaseProfile(profile.id, request.useProxy),
        async (held) => {
          // Closing the persistent context is what writes cookies and storage to the profile folder.
          await held.close();
          if (session) this.#store.profiles.touch(profile.id, this.#clock.now().toISOString());
        },
        'browser',
      );
      await this.#navigate(lease.page, request.startUrl ?? 'about:blank');
      if (this.#closed) throw new ConflictError('The service is shutting down');
      session = this.#adopt(profile, lease, request, scope);
      return { sessionId: session.id, liveUrl: session.liveUrl };
    } catch (error) {
      await scope
        .dispose()
        .catch((disposeError: unknown) =>
          this.#logger.warn('profile login rollback incomplete', { error: String(disposeError) }),
        );
      throw error;
    } finally {
      this.#opening.delete(profile.id);
    }
  }

  /** Sessions of an organization that hold their profile (one closing still does, until its state is saved). */
  list(orgId: string): ProfileSession[] {
    return [...this.#sessions.values()]
      .filter((session) => session.orgId === orgId)
      .map((session) => ({
        session_id: session.id,
        profile_id: session.profileId,
        live_url: session.liveUrl,
        expires_at: session.expiresAt.toISOString(),
      }));
  }

  /** Close Profile Session: saves the profile's state and closes its browser; 404 for an unknown session. */
  async closeSession(orgId: string, sessionId: string): Promise<ProfileSessionClosed> {
    const session = this.#sessions.get(sessionId);
    if (!session || session.orgId !== orgId) throw new NotFoundError(messages.sessionNotFound);
    await this.#end(session, 'closed on request');
    return {
      success: true,
      message: 'Session closed; profile state saved',
      profile_id: session.profileId,
      session_id: session.id,
    };
  }

  /** Input arrived through the live view `token`: the session is in use, so its idle clock restarts. */
  noteInput(token: string): void {
    const session = this.#byToken.get(token);
    if (session && session.closing === undefined) this.#armIdleTimer(session);
  }

  /** Shutdown: closes (and saves) every session; later opens are refused. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.allSettled([...this.#sessions.values()].map((session) => this.#end(session, 'service shutdown')));
  }

  async #leaseProfile(profileId: string, useProxy: boolean): Promise<BrowserLease> {
    const abort = new AbortController();
    const timer = this.#clock.setTimeout(
      () => abort.abort(new ConflictError(messages.profileInUse(profileId))),
      LOCK_RACE_MS,
    );
    try {
      return await this.#runtime.lease({
        profileId,
        saveProfile: true,
        headed: this.#options.headed,
        signal: abort.signal,
        ...(useProxy && this.#options.defaultProxy ? { proxy: this.#options.defaultProxy } : {}),
      });
    } finally {
      this.#clock.clearTimeout(timer);
    }
  }

  // An unreachable start URL still opens the session: the user sees the browser's error page and can navigate on.
  async #navigate(page: Page, url: string): Promise<void> {
    try {
      await openUrl(page, url, { waitUntil: 'domcontentloaded', timeout: NAVIGATION_TIMEOUT_MS });
    } catch (error) {
      this.#logger.warn('profile login start page did not load', { url, error: String(error) });
    }
  }

  #adopt(profile: ProfileRow, lease: BrowserLease, request: OpenSessionRequest, scope: Lifecycle): LoginSession {
    const token = newSecretToken('lv_');
    const session: LoginSession = {
      id: newId(),
      orgId: profile.org_id,
      profileId: profile.id,
      token,
      liveUrl: `${request.baseUrl}${LiveViewHub.path(token)}`,
      idleMs: request.timeoutMinutes * MINUTE_MS,
      resources: scope,
      expiresAt: this.#clock.now(),
      timer: undefined,
      closing: undefined,
    };
    scope.add(
      this.#hub.register(token, {
        title: `Profile login · ${profile.name}`,
        interactive: true,
        page: () => currentPage(lease),
      }),
      (liveView) => liveView.dispose(),
      'live view',
    );
    // The user closed the headed window (or the browser died): the session is over; what Chromium wrote stays.
    scope.add(
      lease.onDidDisconnect(() => void this.#end(session, 'browser closed').catch(() => {})),
      (listener) => listener.dispose(),
      'disconnect watch',
    );
    scope.defer(() => this.#clock.clearTimeout(session.timer), 'idle timer');
    this.#sessions.set(session.id, session);
    this.#byToken.set(token, session);
    session.resources = scope.keep(`profile login ${session.id}`);
    this.#armIdleTimer(session);
    return session;
  }

  #armIdleTimer(session: LoginSession): void {
    this.#clock.clearTimeout(session.timer);
    session.expiresAt = new Date(this.#clock.now().getTime() + session.idleMs);
    session.timer = this.#clock.setTimeout(
      () => void this.#end(session, 'idle timeout').catch(() => {}),
      session.idleMs,
      {
        unref: true,
      },
    );
  }

  /**
   * Ends a login session: everything it holds is released, newest first, each once, even when a step fails;
   * rejects, after all of that, with what failed (a close on request then says so instead of "saved").
   */
  #end(session: LoginSession, reason: string): Promise<void> {
    session.closing ??= session.resources.dispose().then(
      () =>
        this.#logger.info('profile login session closed', {
          sessionId: session.id,
          profileId: session.profileId,
          reason,
        }),
      (error: unknown) => {
        this.#logger.error('profile login session did not close cleanly', {
          sessionId: session.id,
          reason,
          error: String(error),
        });
        throw error;
      },
    );
    return session.closing;
  }
}

/** The page a viewer should see: the newest open tab (a login popup), else the first page. */
function currentPage(lease: BrowserLease): Page | undefined {
  const open = lease.context.pages().filter((page) => !page.isClosed());
  return open.at(-1) ?? (lease.page.isClosed() ? undefined : lease.page);
}
