import { EventEmitter } from 'node:events';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Browser, CDPSession } from 'playwright-core';

import { systemClock, type Clock } from '../base/clock.ts';
import { CdpPipe, type CdpTransport } from './cdpPipe.ts';
import { CdpContextScope } from './cdpScope.ts';
import { SessionBrowser, type SessionProcess } from './sessionBrowsers.ts';
import type { WebSocketPeer } from './webSocketPeer.ts';

/**
 * A session's browser on a `playwright` host (issue 22, docs/scale.md): the host's Playwright server
 * launched it for Portico's connection, and speaks Playwright's protocol, not CDP. Portico's CDP proxy
 * still serves a `cdp_url` for it, so clients never see the host or its token: this transport presents
 * the browser as a root CDP connection to the same CdpPipe (and guard) a local session browser has.
 *
 * Each browser-level session (`Target.attachToBrowserTarget`: Portico's own engine and each client) is a
 * `browser.newBrowserCDPSession()` of the Playwright connection. Such a session can send only on itself,
 * so the targets a client attaches to are attached in Chromium's non-flat mode (`flatten: false`), and
 * their messages travel wrapped in `Target.sendMessageToTarget` / `Target.receivedMessageFromTarget`;
 * the client sees flat sessions (`sessionId` on each message) as from any Chromium.
 */

interface Message {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  sessionId?: string;
  result?: unknown;
  error?: unknown;
}

/** The methods whose `flatten: true` becomes `false` on the way (the client never learns). */
const FLATTENED = new Set(['Target.attachToTarget', 'Target.setAutoAttach', 'Target.autoAttachRelated']);

/** CDP's TargetFilter: the first entry whose `type` matches (or that has none) decides. */
type TargetFilter = { type?: string; exclude?: boolean }[];

/** What auto-attach takes without a filter: everything but the browser and tabs. */
const DEFAULT_FILTER: TargetFilter = [{ type: 'browser', exclude: true }, { type: 'tab', exclude: true }, {}];

function matchesOne(filter: TargetFilter, type: string): boolean {
  const entry = filter.find((candidate) => candidate.type === undefined || candidate.type === type);
  return entry !== undefined && entry.exclude !== true;
}

/**
 * Whether auto-attach with `filter` takes a target of `type`. Chromium attaches tabs only in flat mode, so a
 * client that asks for tabs (Puppeteer) gets each tab's page attached directly, as Chromium did before tabs;
 * the browser's own targets are never auto-attached.
 */
function matches(filter: TargetFilter, type: string): boolean {
  if (type === 'tab' || type === 'browser') return false;
  return matchesOne(filter, type) || (type === 'page' && matchesOne(filter, 'tab'));
}

/** Ids Portico gives its own wrapping commands: far from any id a client or the pipe uses. */
const WRAP_ID_BASE = 1_000_000_000;

export class PlaywrightCdpTransport implements CdpTransport {
  onMessage: ((text: string) => void) | undefined;
  onClose: (() => void) | undefined;
  readonly #browser: Browser;
  /** Browser-level sessions by the id the pipe knows them by. */
  readonly #browserSessions = new Map<string, CDPSession>();
  /** Each attached (non-flat) target session: the session it was attached through (a browser-level one or another target's). */
  readonly #parents = new Map<string, string>();
  #root: Promise<CDPSession> | undefined;
  /** Browser-level sessions that asked for auto-attach (emulated: see #watchTargets). */
  readonly #autoAttach = new Map<string, TargetFilter>();
  /** Which targets each browser-level session has attached (so a page is attached once). */
  readonly #attached = new Map<string, Map<string, Promise<void>>>();
  #watching: Promise<void> | undefined;
  #next = 1;
  #wrapId = WRAP_ID_BASE;
  #closed = false;

  constructor(browser: Browser) {
    this.#browser = browser;
    browser.on('disconnected', () => this.#close());
  }

  send(text: string): void {
    let message: Message;
    try {
      message = JSON.parse(text) as Message;
    } catch {
      return;
    }
    void this.#handle(message).catch((error: unknown) => {
      if (message.id !== undefined)
        this.#deliver({
          id: message.id,
          error: { code: -32000, message: String(error instanceof Error ? error.message : error) },
          ...(message.sessionId !== undefined && { sessionId: message.sessionId }),
        });
    });
  }

  async #handle(message: Message): Promise<void> {
    const { id, method, sessionId } = message;
    if (this.#closed || id === undefined || method === undefined) return;
    const params = { ...(message.params ?? {}) };
    if (FLATTENED.has(method) && params.flatten === true) params.flatten = false;
    if (sessionId === undefined) return this.#rootCommand(id, method, params);
    const browserSession = this.#browserSessions.get(sessionId);
    // A browser session asked of a browser session (Playwright's newCDPSession does so): one more of Portico's.
    if (browserSession && method === 'Target.attachToBrowserTarget')
      return this.#rootCommand(id, method, params, sessionId);
    if (browserSession && method === 'Target.setAutoAttach') {
      // Chromium auto-attaches at browser level only in flat mode: new pages are attached to here, one by one.
      if (params.autoAttach === true)
        this.#autoAttach.set(
          sessionId,
          Array.isArray(params.filter) ? (params.filter as TargetFilter) : DEFAULT_FILTER,
        );
      else this.#autoAttach.delete(sessionId);
      // As Chromium does, the pages already there are attached before the answer (Puppeteer's connect reads
      // its pages as soon as auto-attach has answered).
      if (params.autoAttach === true) await this.#attachExisting(sessionId, browserSession);
      this.#deliver({ id, result: {}, sessionId });
      return;
    }
    if (browserSession && method === 'Target.createTarget' && this.#autoAttach.has(sessionId)) {
      // As with auto-attach, the new page is attached before the client hears its id (Playwright relies on it).
      const result = (await browserSession.send(method as never, params as never)) as unknown as { targetId: string };
      await this.#attach(sessionId, result.targetId, undefined);
      this.#deliver({ id, result, sessionId });
      return;
    }
    if (browserSession) {
      const result = await browserSession.send(method as never, params as never);
      this.#deliver({ id, result, sessionId });
      return;
    }
    // A target session: the command goes wrapped, through each session above it, to its browser-level session.
    let inner = JSON.stringify({ id, method, params });
    let target = sessionId;
    for (;;) {
      const parent = this.#parents.get(target);
      if (parent === undefined) throw new Error('Session with given id not found.');
      const wrapped = { method: 'Target.sendMessageToTarget', params: { sessionId: target, message: inner } };
      const top = this.#browserSessions.get(parent);
      if (top) {
        await top.send('Target.sendMessageToTarget' as never, wrapped.params as never);
        return;
      }
      inner = JSON.stringify({ id: this.#wrapId++, ...wrapped });
      target = parent;
    }
  }

  /** A command on the root connection: browser sessions are made here, the rest goes to one browser-level session of Portico's. */
  async #rootCommand(id: number, method: string, params: Record<string, unknown>, askedOn?: string): Promise<void> {
    if (method === 'Target.attachToBrowserTarget') {
      const session = await this.#browser.newBrowserCDPSession();
      const sessionId = `portico-browser-${this.#next++}`;
      this.#browserSessions.set(sessionId, session);
      this.#listen(sessionId, session);
      this.#deliver({ id, result: { sessionId }, ...(askedOn !== undefined && { sessionId: askedOn }) });
      return;
    }
    if (
      method === 'Target.detachFromTarget' &&
      typeof params.sessionId === 'string' &&
      this.#browserSessions.has(params.sessionId) &&
      askedOn === undefined
    ) {
      const session = this.#browserSessions.get(params.sessionId);
      this.#browserSessions.delete(params.sessionId);
      this.#autoAttach.delete(params.sessionId);
      this.#attached.delete(params.sessionId);
      for (const [child, parent] of this.#parents) if (parent === params.sessionId) this.#parents.delete(child);
      await session?.detach().catch(() => undefined);
      this.#deliver({ id, result: {} });
      return;
    }
    if (method === 'Browser.close') {
      await this.#browser.close().catch(() => undefined);
      return;
    }
    this.#root ??= this.#browser.newBrowserCDPSession();
    const result = await (await this.#root).send(method as never, params as never);
    this.#deliver({ id, result });
  }

  /** Attaches `sessionId` to every page there is, and from now on to each new one (Portico's own session watches for them). */
  async #attachExisting(sessionId: string, session: CDPSession): Promise<void> {
    await this.#watchTargets();
    const { targetInfos } = (await session.send(
      'Target.getTargets' as never,
      { filter: [{}] } as never,
    )) as unknown as { targetInfos: { targetId: string; type: string }[] };
    for (const info of targetInfos) await this.#attach(sessionId, info.targetId, info.type);
  }

  #attach(sessionId: string, targetId: string, type: string | undefined): Promise<void> {
    const session = this.#browserSessions.get(sessionId);
    const filter = this.#autoAttach.get(sessionId);
    if (!session || !filter || (type !== undefined && !matches(filter, type))) return Promise.resolve();
    const attached = this.#attached.get(sessionId) ?? new Map<string, Promise<void>>();
    this.#attached.set(sessionId, attached);
    const known = attached.get(targetId);
    if (known) return known;
    // Chromium tells the session `Target.attachedToTarget` for it (before this answers), as auto-attach would have.
    const attaching = session.send('Target.attachToTarget' as never, { targetId, flatten: false } as never).then(
      () => undefined,
      () => {
        attached.delete(targetId);
      },
    );
    attached.set(targetId, attaching);
    return attaching;
  }

  #watchTargets(): Promise<void> {
    this.#watching ??= (async () => {
      this.#root ??= this.#browser.newBrowserCDPSession();
      const root = await this.#root;
      root.on(
        'Target.targetCreated' as never,
        ((event: { targetInfo: { targetId: string; type: string } }) => {
          for (const sessionId of this.#autoAttach.keys())
            void this.#attach(sessionId, event.targetInfo.targetId, event.targetInfo.type);
        }) as never,
      );
      await root.send('Target.setDiscoverTargets' as never, { discover: true, filter: [{}] } as never);
    })();
    return this.#watching;
  }

  /** Every event of a browser-level session (Playwright's CDPSession emits each under its method's name). */
  #listen(sessionId: string, session: CDPSession): void {
    const emitter = session as unknown as { emit(event: string | symbol, ...args: unknown[]): boolean };
    const emit = emitter.emit.bind(session);
    emitter.emit = (event, ...args) => {
      if (typeof event === 'string' && event.includes('.'))
        this.#event(sessionId, event, (args[0] ?? {}) as Record<string, unknown>);
      return emit(event, ...args);
    };
  }

  /** An event of `sessionId` (a browser-level session or a target's): unwrapped when it carries a target's message. */
  #event(sessionId: string, method: string, params: Record<string, unknown>): void {
    if (
      method === 'Target.receivedMessageFromTarget' &&
      typeof params.sessionId === 'string' &&
      typeof params.message === 'string'
    ) {
      let inner: Message;
      try {
        inner = JSON.parse(params.message) as Message;
      } catch {
        return;
      }
      this.#fromTarget(params.sessionId, inner);
      return;
    }
    this.#note(sessionId, method, params);
    this.#deliver({ method, params, sessionId });
  }

  /** A message a target session sent: an answer to a client (ids of Portico's own wrappers are dropped) or an event. */
  #fromTarget(sessionId: string, message: Message): void {
    if (message.id !== undefined) {
      if (message.id >= WRAP_ID_BASE) return;
      this.#deliver({ ...message, sessionId });
      return;
    }
    if (message.method === undefined) return;
    this.#event(sessionId, message.method, message.params ?? {});
  }

  /** Keeps the tree of attached sessions up to date. */
  #note(sessionId: string, method: string, params: Record<string, unknown>): void {
    if (method === 'Target.attachedToTarget' && typeof params.sessionId === 'string')
      this.#parents.set(params.sessionId, sessionId);
    if (method === 'Target.detachedFromTarget' && typeof params.sessionId === 'string')
      this.#parents.delete(params.sessionId);
  }

  #deliver(message: Message): void {
    if (this.#closed) return;
    this.onMessage?.(JSON.stringify(message));
  }

  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onClose?.();
  }
}

/** A remote browser seen as a session's process: it "exits" when its connection closes. */
class RemoteProcess extends EventEmitter implements SessionProcess {
  readonly pid = undefined;
  exitCode: number | null = null;
  readonly signalCode = null;

  constructor(browser: Browser) {
    super();
    browser.on('disconnected', () => {
      this.exitCode = 0;
      this.emit('exit');
    });
    if (!browser.isConnected()) this.exitCode = 0;
  }
}

export interface RemoteSessionOptions {
  /** Parent of the session's local working folder (its downloads folder for the guard); default the OS temp folder. */
  tempDir?: string;
  closeTimeoutMs?: number;
  clock?: Clock;
}

/** A session browser on a `playwright` host's browser (a connection of its own; closing it closes the browser). */
export async function remoteSessionBrowser(
  browser: Browser,
  options: RemoteSessionOptions = {},
): Promise<SessionBrowser> {
  const parent = options.tempDir ?? tmpdir();
  await mkdir(parent, { recursive: true });
  const workDir = await mkdtemp(join(parent, 'portico-remote-session-'));
  try {
    await mkdir(join(workDir, 'downloads'), { recursive: true, mode: 0o700 });
    const pipe = new CdpPipe(new PlaywrightCdpTransport(browser));
    const answer = await pipe.call('Browser.getVersion');
    if (answer.error) throw new Error(`the remote browser did not answer: ${answer.error.message}`);
    return new SessionBrowser(
      new RemoteProcess(browser),
      pipe,
      workDir,
      options.closeTimeoutMs ?? 5_000,
      options.clock ?? systemClock,
      undefined,
      () => void browser.close().catch(() => undefined),
    );
  } catch (error) {
    await browser.close().catch(() => undefined);
    await rm(workDir, { recursive: true, force: true }).catch(() => undefined);
    throw error;
  }
}

/** A session's share of a `cdp` host's browser seen as its process: it "exits" when Portico's connection closes. */
class SocketProcess extends EventEmitter implements SessionProcess {
  readonly pid = undefined;
  exitCode: number | null = null;
  readonly signalCode = null;

  ended(): void {
    if (this.exitCode !== null) return;
    this.exitCode = 0;
    this.emit('exit');
  }
}

/**
 * A session browser on a `cdp` host (docs/scale.md): one Chromium there serves every connection (jobs and
 * other sessions too), so the session is a browser context of its own on Portico's own DevTools WebSocket
 * to it, and every channel of its pipe sees only that context (cdpScope.ts). Flat sessions, tab targets
 * and auto-attach are Chromium's own here: Playwright and Puppeteer clients work as on a local browser.
 * Ending the session disposes its contexts (their pages close) and closes the connection; the host's
 * browser lives on.
 */
export async function remoteCdpSessionBrowser(
  socket: WebSocketPeer,
  screen: { width: number; height: number },
  options: RemoteSessionOptions = {},
): Promise<SessionBrowser> {
  const lifeline = new SocketProcess();
  const transport: CdpTransport = {
    send: (text) => socket.send(text),
    onMessage: undefined,
    onClose: undefined,
  };
  socket.onMessage = (text) => transport.onMessage?.(text);
  socket.onClose = () => {
    lifeline.ended();
    transport.onClose?.();
  };
  const parent = options.tempDir ?? tmpdir();
  let workDir: string | undefined;
  try {
    await mkdir(parent, { recursive: true });
    workDir = await mkdtemp(join(parent, 'portico-remote-session-'));
    await mkdir(join(workDir, 'downloads'), { recursive: true, mode: 0o700 });
    const pipe = new CdpPipe(transport);
    const created = await pipe.call('Target.createBrowserContext', { disposeOnDetach: true });
    const contextId = created.result?.browserContextId;
    if (typeof contextId !== 'string')
      throw new Error(`the host's browser made no browser context: ${created.error?.message ?? 'no id'}`);
    const scope = new CdpContextScope(contextId, async (targetId) => {
      const answer = await pipe.call('Target.getTargetInfo', { targetId });
      return answer.result?.targetInfo as { targetId?: unknown; browserContextId?: unknown } | undefined;
    });
    pipe.setScope(scope);
    // A first page, as a local session browser starts with (about:blank), the window as large as screen_config.
    const page = await pipe.call('Target.createTarget', {
      url: 'about:blank',
      browserContextId: contextId,
      width: screen.width,
      height: screen.height,
    });
    if (page.error) throw new Error(`the host's browser opened no page: ${page.error.message}`);
    scope.result('Target.createTarget', page.result ?? {});
    const disposeAll = async () => {
      await Promise.allSettled(
        scope.contexts.map((browserContextId) => pipe.call('Target.disposeBrowserContext', { browserContextId })),
      );
      socket.close();
    };
    return new SessionBrowser(
      lifeline,
      pipe,
      workDir,
      options.closeTimeoutMs ?? 5_000,
      options.clock ?? systemClock,
      undefined,
      () => socket.close(),
      () => void disposeAll(),
    );
  } catch (error) {
    socket.close();
    if (workDir !== undefined) await rm(workDir, { recursive: true, force: true }).catch(() => undefined);
    throw error;
  }
}
