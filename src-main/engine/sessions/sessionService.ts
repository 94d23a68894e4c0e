import { mkdir } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';

import type { Page } from 'playwright-core';

import { MINUTE_MS, systemClock, type Clock } from '../../base/clock.ts';
import { Lifecycle } from '../../base/lifecycle.ts';
import { ConflictError, NotFoundError, TooManyRequestsError, ValidationError } from '../../base/errors.ts';
import { newId, newSecretToken } from '../../base/ids.ts';
import { silentLogger, type Logger } from '../../base/logger.ts';
import type { ProfileLocks } from '../../browser/profileLocks.ts';
import { canIdentifyLoopbackPeers, ProcessGroupPeers } from '../../browser/loopbackPeer.ts';
import { forwardableUpstreamProblem, startProxyForwarder } from '../../browser/proxyForwarder.ts';
import { startRecording, type Recording } from '../../browser/recorder.ts';
import type { IdleBrowsers } from '../../browser/idleBrowsers.ts';
import type { SessionBrowser, SessionBrowserPool, SessionLaunchSpec } from '../../browser/sessionBrowsers.ts';
import { messages } from '../../contract/messages.ts';
import type { Session, SessionCreateRequest, SessionList, SessionListQuery } from '../../contract/session.ts';
import type { SessionRow } from '../../store/sessions.ts';
import type { Store } from '../../store/store.ts';
import type { BrowserSlot, BrowserSlots } from '../limits/browserSlots.ts';
import { LiveViewHub } from '../liveViewHub.ts';
import { HostRefusedError } from '../../browser/browserHosts.ts';
import { LOCAL_HOST } from '../../contract/hosts.ts';
import { SessionLease } from './sessionLease.ts';

/** Who acts on sessions: an account key's user in its workspace (the workspace's org owns its profiles). */
export interface SessionActor {
  userId: string;
  workspaceId: string;
  orgId: string;
}

export interface SessionServiceDeps {
  store: Store;
  pool: SessionBrowserPool;
  /** The app's profile locks: a session holds its profile exactly like a job does. */
  locks: ProfileLocks;
  /** The folder of a profile (validates the id). */
  profileDir(profileId: string): string;
  liveViews: LiveViewHub;
  clock?: Clock;
  logger?: Logger;
  /** Screen recording (`record_video`): where ffmpeg is (throws saying why not), where recordings go, the operator's default. */
  recorder?: { ffmpegPath(): Promise<string>; dir: string; recordVideoDefault?(): boolean };
  /** The live-browser limits (engine/limits/browserSlots.ts): a session past them is 429. */
  browserSlots?: BrowserSlots;
  /**
   * A session browser on a remote host (docs/scale.md): a `playwright` host launches one for Portico's
   * connection; HostRefusedError when the host says no (the slot then moves to the next host).
   */
  remoteBrowser?: (host: string, screen: { width: number; height: number }) => Promise<SessionBrowser>;
  /** The warm browsers' idle close (browser/idleBrowsers.ts): an open session holds it from its request to its end. */
  idle?: Pick<IdleBrowsers, 'hold'>;
}

/** Where a CDP proxy connection goes: a guarded channel of the session browser's pipe. */
export interface CdpTarget {
  /** Answers the WebSocket upgrade and serves it; the socket is destroyed when the session ends. */
  accept(request: IncomingMessage, socket: Duplex, head: Buffer): void;
}

interface LiveSession {
  readonly id: string;
  readonly workspaceId: string;
  readonly browser: SessionBrowser;
  readonly cdpToken: string;
  readonly liveToken: string;
  readonly sockets: Set<Duplex>;
  /**
   * What the session holds, released in reverse when it ends: its browser slot, profile lock, proxy
   * forwarder, browser, live view, expiry timer, recording and CDP connections.
   */
  resources: Lifecycle;
  ending: Promise<void> | undefined;
  /** A job running in the session (`browser_session_id`), if any. */
  lease?: SessionLease | undefined;
  /** The screen recording, while it starts and runs (`record_video`). */
  recording?: Promise<Recording | undefined>;
}

/** The path of a session's CDP URL on this server. */
export const cdpPath = (token: string): string => `/devtools/browser/${token}`;

const CDP_TOKEN_PREFIX = 'cdp_';

/**
 * Browser sessions of the public API (local-service.md §5.2): each has its own Chromium process,
 * reachable over CDP only through this server with its unguessable token, until it is terminated
 * or expires. Sessions belong to a workspace; another workspace's session reads as not found.
 */
export class SessionService {
  readonly #store: Store;
  readonly #pool: SessionBrowserPool;
  readonly #locks: ProfileLocks;
  readonly #profileDir: (profileId: string) => string;
  readonly #hub: LiveViewHub;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #recorder: SessionServiceDeps['recorder'];
  readonly #browserSlots: BrowserSlots | undefined;
  readonly #live = new Map<string, LiveSession>();
  readonly #byCdpToken = new Map<string, LiveSession>();
  readonly #remoteBrowser:
    | ((host: string, screen: { width: number; height: number }) => Promise<SessionBrowser>)
    | undefined;
  readonly #idle: Pick<IdleBrowsers, 'hold'> | undefined;
  #closed = false;

  constructor(deps: SessionServiceDeps) {
    this.#store = deps.store;
    this.#pool = deps.pool;
    this.#locks = deps.locks;
    this.#profileDir = deps.profileDir;
    this.#hub = deps.liveViews;
    this.#clock = deps.clock ?? systemClock;
    this.#logger = deps.logger ?? silentLogger;
    this.#recorder = deps.recorder;
    this.#browserSlots = deps.browserSlots;
    this.#remoteBrowser = deps.remoteBrowser;
    this.#idle = deps.idle;
  }

  /** At start-up: sessions the previous run left active lost their browser with it; they read `terminated`. */
  recover(): number {
    return this.#store.sessions.terminateAllActive(this.#clock.now().toISOString());
  }

  /** Opens a session with its own browser; `origin` is this server's base URL as the caller reached it. */
  async create(actor: SessionActor, request: SessionCreateRequest, origin: string): Promise<Session> {
    if (this.#closed) throw new ConflictError('The service is shutting down');
    // Everything the session acquires is registered here as it is acquired: a failure at any step releases
    // what came before it, newest first (base/lifecycle.ts); a session that opens keeps it until it ends.
    const scope = new Lifecycle('session');
    try {
      return await this.#create(actor, request, origin, scope);
    } catch (error) {
      await scope
        .dispose()
        .catch((disposeError: unknown) =>
          this.#logger.warn('session rollback incomplete', { error: String(disposeError) }),
        );
      throw error;
    }
  }

  async #create(
    actor: SessionActor,
    request: SessionCreateRequest,
    origin: string,
    scope: Lifecycle,
  ): Promise<Session> {
    const sessionId = newId();
    const credentials = request.proxy && (request.proxy.username !== undefined || request.proxy.password !== undefined);
    if (request.proxy && credentials) {
      // Chromium's --proxy-server takes no credentials: the browser goes through a local forwarder that
      // adds them (docs/decisions.md, "Session proxies with credentials").
      const problem = forwardableUpstreamProblem(request.proxy.server);
      if (problem) throw new ValidationError(`body.proxy.server: ${problem}`);
      if (request.proxy.username === undefined)
        throw new ValidationError('body.proxy.username: required with password');
    }
    // A session on a profile folder, through a local proxy forwarder or with its own user agent runs on the
    // local Chromium; any other may go to a remote host (docs/scale.md, "How Portico places work").
    const localOnly =
      request.profile_id !== undefined ||
      request.proxy !== undefined ||
      request.user_agent !== undefined ||
      !this.#remoteBrowser;
    // An open session holds the warm browsers' idle close (browser/idleBrowsers.ts) from its request to its end.
    const unhold = this.#idle?.hold();
    if (unhold) scope.defer(unhold, 'idle hold');
    const slot = this.#browserSlots?.acquire(actor.orgId, { session: true, localOnly });
    if (slot) scope.add(slot, (held) => held.release(), 'browser slot');
    const spec: SessionLaunchSpec = {
      screen: request.screen_config,
      ...(request.proxy && {
        proxy: {
          server: request.proxy.server,
          ...(request.proxy.bypass !== undefined && { bypass: request.proxy.bypass }),
        },
      }),
      ...(request.user_agent !== undefined && { userAgent: request.user_agent }),
    };
    // Set once the session is handed out: from then on its end is recorded, not undone.
    let opened = false;
    const profileId = request.profile_id;
    if (profileId !== undefined) {
      if (!this.#store.profiles.getForOrg(actor.orgId, profileId)) throw new NotFoundError(messages.profileNotFound);
      const lock = this.#locks.tryAcquire(profileId);
      if (!lock) throw new ConflictError(messages.profileInUse(profileId));
      scope.add(lock, (held) => held.release(), 'profile lock');
      // Released after the browser has exited, when the profile folder holds what the session changed.
      scope.defer(() => {
        if (opened) this.#store.profiles.touch(profileId, this.#clock.now().toISOString());
      }, 'profile saved');
      spec.userDataDir = this.#profileDir(profileId);
      await mkdir(spec.userDataDir, { recursive: true });
    }
    // The forwarder serves only this session's Chromium (its process group), once it is launched; where the
    // OS cannot tell who a local client is (no /proc), any local client (docs/security.md, residual risks).
    let peers: ProcessGroupPeers | undefined;
    const admits = canIdentifyLoopbackPeers
      ? { admits: async (socket: Socket) => (await peers?.admits(socket)) ?? false }
      : {};
    if (request.proxy && credentials && spec.proxy) {
      // The browser is gone before its proxy forwarder stops listening (no socket left behind).
      const forwarder = scope.add(
        await startProxyForwarder(
          {
            server: request.proxy.server,
            username: request.proxy.username ?? '',
            password: request.proxy.password ?? '',
          },
          { logger: this.#logger, logFields: { session_id: sessionId }, ...admits },
        ),
        (started) => started.close(),
        'proxy forwarder',
      );
      spec.proxy.server = forwarder.server;
    }
    let browser: SessionBrowser;
    if (slot === undefined || slot.host === LOCAL_HOST) {
      ({ browser } = await this.#pool.take(spec));
      scope.add(browser, (launched) => this.#closeBrowser(launched, sessionId), 'browser');
      peers = new ProcessGroupPeers(browser.pid);
    } else {
      browser = scope.add(
        await this.#remote(slot, spec.screen),
        (launched) => this.#closeBrowser(launched, sessionId),
        'browser',
      );
    }
    if (this.#closed) throw new ConflictError('The service is shutting down');
    const now = this.#clock.now();
    const ttlMs = request.timeout_minutes * MINUTE_MS;
    const row: SessionRow = {
      id: sessionId,
      workspace_id: actor.workspaceId,
      created_by: actor.userId,
      status: 'active',
      screen_width: request.screen_config.width,
      screen_height: request.screen_config.height,
      profile_id: profileId ?? null,
      proxy_server: request.proxy?.server ?? null,
      user_agent: request.user_agent ?? null,
      record_video: (request.record_video ?? this.#recorder?.recordVideoDefault?.() ?? false) ? 1 : 0,
      metadata: JSON.stringify(request.metadata),
      timeout_minutes: request.timeout_minutes,
      expires_at: new Date(now.getTime() + ttlMs).toISOString(),
      ended_at: null,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    };
    this.#store.sessions.insert(row);
    // A session that never opened leaves no row behind; an opened one's end is recorded by #end.
    scope.defer(() => {
      if (!opened) this.#store.sessions.remove(row.id);
    }, 'session row');
    const liveToken = newSecretToken('lv_');
    scope.add(
      this.#hub.register(liveToken, {
        title: `Session ${row.id.slice(0, 8)}…`,
        interactive: true,
        page: () => browser.currentPage(),
      }),
      (liveView) => liveView.dispose(),
      'live view',
    );
    const session: LiveSession = {
      id: row.id,
      workspaceId: actor.workspaceId,
      browser,
      cdpToken: newSecretToken(CDP_TOKEN_PREFIX),
      liveToken,
      sockets: new Set(),
      resources: scope,
      ending: undefined,
    };
    const timer = this.#clock.setTimeout(() => void this.#end(session, 'expired').catch(() => {}), ttlMs, {
      unref: true,
    });
    scope.defer(() => this.#clock.clearTimeout(timer), 'expiry timer');
    scope.defer(() => this.#stopRecording(session), 'recording');
    this.#byCdpToken.set(session.cdpToken, session);
    // Refuse new CDP connections and cut the open ones before the browser goes.
    scope.defer(() => {
      this.#byCdpToken.delete(session.cdpToken);
      for (const socket of session.sockets) socket.destroy();
      session.sockets.clear();
    }, 'CDP connections');
    this.#live.set(session.id, session);
    session.resources = scope.keep(`session ${session.id}`);
    opened = true;
    // A browser that goes away by itself (crash, a client's Browser.close) ends the session.
    void browser.exited.then(() => this.#end(session, 'terminated').catch(() => {}));
    // Portico's own client for the live view and pageFor (a warm browser has it already), connected
    // before the cdp_url is handed out: a page a client opens while Playwright is still attaching
    // (auto-attach waits for the debugger) could stay paused, its DOM never answering.
    await browser.connect().catch((error: unknown) => {
      if (!session.ending)
        this.#logger.warn('session browser: engine connection failed', {
          session_id: session.id,
          error: String(error),
        });
    });
    if (row.record_video === 1) session.recording = this.#startRecording(session, request.screen_config);
    this.#logger.info('session created', { session_id: session.id, workspace_id: actor.workspaceId });
    return this.#toSession(row, origin);
  }

  async #closeBrowser(browser: SessionBrowser, sessionId: string): Promise<void> {
    try {
      await browser.close();
    } catch (error) {
      this.#logger.warn('session browser did not close cleanly', { session_id: sessionId, error: String(error) });
    }
  }

  /** A workspace's sessions, newest first, with the count matching the filter. */
  list(workspaceId: string, query: SessionListQuery, origin: string): SessionList {
    const { rows, total } = this.#store.sessions.list(workspaceId, query.status_filter, query.limit, query.offset);
    return { sessions: rows.map((row) => this.#toSession(row, origin)), total };
  }

  /** One session of the workspace; 404 `Session not found` for a missing or another workspace's session. */
  get(workspaceId: string, sessionId: string, origin: string): Session {
    return this.#toSession(this.#row(workspaceId, sessionId), origin);
  }

  /** Ends a session: its browser closes, its CDP URL refuses connections, its profile is saved. An ended session is answered as it is. */
  async terminate(workspaceId: string, sessionId: string, origin: string): Promise<Session> {
    this.#row(workspaceId, sessionId);
    const live = this.#live.get(sessionId);
    if (live) await this.#end(live, 'terminated');
    return this.#toSession(this.#row(workspaceId, sessionId), origin);
  }

  /**
   * A Playwright page of the session's own browser (Portico's connection to it, not the client's),
   * for single actions and jobs run inside the session. 404 `Session not found` unless the session
   * is active and belongs to `workspaceId`.
   */
  async pageFor(sessionId: string, workspaceId: string): Promise<Page> {
    const live = this.#live.get(sessionId);
    if (!live || live.workspaceId !== workspaceId || live.ending) throw new NotFoundError(messages.sessionNotFound);
    // A job driving the page and an action acting on it at once would race: the action waits its turn as a 409.
    if (live.lease) throw new ConflictError(messages.sessionRunningJob);
    return this.#page(live);
  }

  async #page(live: LiveSession): Promise<Page> {
    try {
      return await live.browser.page();
    } catch (error) {
      if (!live.browser.alive || live.ending) throw new NotFoundError(messages.sessionNotFound);
      throw error;
    }
  }

  /**
   * For a job started with `browser_session_id` by organization `orgId`: a lease on the page of that
   * active session of one of the org's workspaces (404 `Session not found` otherwise). One job at a
   * time per session (409 while another holds it); the session outlives the job.
   */
  async leaseFor(sessionId: string, orgId: string): Promise<SessionLease> {
    const live = this.#live.get(sessionId);
    if (!live || live.ending || !this.#inOrg(live, orgId)) throw new NotFoundError(messages.sessionNotFound);
    if (live.lease) throw new ConflictError(messages.sessionBusy);
    const page = await this.#page(live);
    if (live.lease) throw new ConflictError(messages.sessionBusy);
    const lease: SessionLease = new SessionLease(page, () => {
      if (live.lease === lease) live.lease = undefined;
    });
    live.lease = lease;
    return lease;
  }

  /** Whether `sessionId` is an active session of one of `orgId`'s workspaces (job start checks it before queueing). */
  isActiveInOrg(sessionId: string, orgId: string): boolean {
    const live = this.#live.get(sessionId);
    return live !== undefined && !live.ending && this.#inOrg(live, orgId);
  }

  /** The workspace of an active session (a job in it may use only that workspace's credentials). */
  workspaceOf(sessionId: string): string | undefined {
    const live = this.#live.get(sessionId);
    return live === undefined || live.ending ? undefined : live.workspaceId;
  }

  #inOrg(live: LiveSession, orgId: string): boolean {
    return (this.#store.principals.workspaceOrg(live.workspaceId) ?? 'default') === orgId;
  }

  /** Whether the session is active right now (and in `workspaceId`). */
  isActive(sessionId: string, workspaceId: string): boolean {
    const live = this.#live.get(sessionId);
    return live !== undefined && live.workspaceId === workspaceId && !live.ending;
  }

  /** The browser endpoint behind a CDP token of an active session; undefined for any other token. */
  cdpTarget(token: string): CdpTarget | undefined {
    if (!token.startsWith(CDP_TOKEN_PREFIX)) return undefined;
    const live = this.#byCdpToken.get(token);
    if (!live || live.ending || !live.browser.alive) return undefined;
    return {
      accept: (request, socket, head) => {
        if (live.ending) {
          socket.destroy();
          return;
        }
        live.sockets.add(socket);
        socket.once('close', () => live.sockets.delete(socket));
        live.browser.acceptClient(request, socket, head);
      },
    };
  }

  /** A browser on the slot's remote host, moving on to the next host with room when one refuses. */
  async #remote(slot: BrowserSlot, screen: { width: number; height: number }): Promise<SessionBrowser> {
    const tried = new Set<string>();
    const refusals: string[] = [];
    for (;;) {
      try {
        const remoteBrowser = this.#remoteBrowser;
        if (!remoteBrowser) throw new Error('no remote browser hosts');
        const browser = await remoteBrowser(slot.host, screen);
        try {
          await browser.connect();
          await browser.fitWindow(screen);
        } catch (error) {
          await browser.close();
          throw error;
        }
        this.#logger.info('session browser on a remote host', { host: slot.host });
        return browser;
      } catch (error) {
        if (!(error instanceof HostRefusedError)) throw error;
        this.#logger.info('browser host refused the session', { host: slot.host, error: error.message });
        tried.add(slot.host);
        refusals.push(error.message);
        if (slot.host === LOCAL_HOST || !slot.moveOn(tried))
          throw new TooManyRequestsError(`No browser host could take the session: ${refusals.join('; ')}`);
        if (slot.host === LOCAL_HOST) return (await this.#pool.take({ screen })).browser;
      }
    }
  }

  /** How many sessions have a browser right now. */
  get activeCount(): number {
    return this.#live.size;
  }

  /** At shutdown: every live session ends `terminated` and its browser closes (its profile is saved). */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.allSettled([...this.#live.values()].map((live) => this.#end(live, 'terminated')));
  }

  #row(workspaceId: string, sessionId: string): SessionRow {
    const row = this.#store.sessions.getForWorkspace(workspaceId, sessionId);
    if (!row) throw new NotFoundError(messages.sessionNotFound);
    return row;
  }

  /**
   * Ends a session: its row says how (first, so a client reading it sees the end at once), then everything
   * it holds is released, newest first, each once, even when a step fails (base/lifecycle.ts). Rejects,
   * after all of that, with what failed.
   */
  #end(live: LiveSession, status: 'terminated' | 'expired'): Promise<void> {
    live.ending ??= (async () => {
      const failures: unknown[] = [];
      try {
        this.#store.sessions.end(live.id, status, this.#clock.now().toISOString());
      } catch (error) {
        failures.push(error);
      }
      live.lease?.sessionEnded(status);
      try {
        await live.resources.dispose();
      } catch (error) {
        failures.push(error);
      }
      this.#live.delete(live.id);
      if (failures.length > 0) {
        this.#logger.warn('session did not end cleanly', {
          session_id: live.id,
          status,
          errors: failures.map(String),
        });
        throw failures.length === 1
          ? failures[0]
          : new AggregateError(failures, `session ${live.id} did not end cleanly`);
      }
      this.#logger.info('session ended', { session_id: live.id, status });
    })();
    return live.ending;
  }

  /** Where a session's recording is kept. */
  recordingPath(sessionId: string): string | undefined {
    return this.#recorder && join(this.#recorder.dir, `${sessionId.replace(/[^A-Za-z0-9-]/g, '')}.webm`);
  }

  /** The recording of one of the workspace's sessions; 404 `Session not found`, or 404 when it has none (yet). */
  recording(workspaceId: string, sessionId: string): string {
    const row = this.#row(workspaceId, sessionId);
    const path = this.recordingPath(row.id);
    if (row.has_recording !== 1 || path === undefined) {
      throw new NotFoundError(
        row.record_video === 1 && row.status === 'active'
          ? 'The recording is available once the session has ended'
          : 'This session has no recording',
      );
    }
    return path;
  }

  /** Starts recording the session's page; one that cannot start is skipped with its reason logged, never failing the session. */
  async #startRecording(live: LiveSession, screen: { width: number; height: number }): Promise<Recording | undefined> {
    const path = this.recordingPath(live.id);
    try {
      if (!this.#recorder || path === undefined) throw new Error('screen recording is not set up in this service');
      const ffmpegPath = await this.#recorder.ffmpegPath();
      const page = await live.browser.page();
      if (live.ending) return undefined;
      return await startRecording(page, path, {
        ffmpegPath,
        width: screen.width,
        height: screen.height,
        clock: this.#clock,
      });
    } catch (error) {
      this.#logger.warn('session recording skipped', {
        session_id: live.id,
        reason: error instanceof Error ? error.message : String(error),
      });
      return undefined;
    }
  }

  async #stopRecording(live: LiveSession): Promise<void> {
    const recording = await live.recording;
    if (!recording) return;
    const outcome = await recording.stop();
    if (outcome.ok) this.#store.sessions.markRecorded(live.id);
    else this.#logger.warn('session recording failed', { session_id: live.id, reason: outcome.reason });
  }

  #toSession(row: SessionRow, origin: string): Session {
    const live = row.status === 'active' ? this.#live.get(row.id) : undefined;
    const wsOrigin = origin.replace(/^http/, 'ws');
    return {
      session_id: row.id,
      cdp_url: live && !live.ending ? `${wsOrigin}${cdpPath(live.cdpToken)}` : null,
      live_url: live && !live.ending ? `${origin}${LiveViewHub.path(live.liveToken)}` : null,
      screen_config: { width: row.screen_width, height: row.screen_height },
      status: row.status,
      expires_at: row.expires_at,
      metadata: JSON.parse(row.metadata) as Record<string, unknown>,
      created_at: row.created_at,
      updated_at: row.updated_at,
    };
  }
}
