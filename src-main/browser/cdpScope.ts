/**
 * A session's share of a browser other connections use too: a `cdp` host's Chromium (issue 22,
 * docs/scale.md), where jobs and other sessions have browser contexts of their own. The session gets a
 * browser context of its own, and every channel of its CdpPipe (Portico's own Playwright and each
 * `cdp_url` client) sees that context as the browser's default one and nothing else: targets, events and
 * answers of other contexts are dropped, commands naming another context or another context's target are
 * refused, new pages open in the session's context, and browser-level commands that would act on the host's
 * default context or the whole browser are refused (default-deny, BROWSER_SAFE). Contexts a client creates itself are the session's
 * too (disposed with it).
 */

interface TargetInfo {
  targetId?: unknown;
  type?: unknown;
  browserContextId?: unknown;
}

export type ScopeVerdict =
  | { params: Record<string, unknown> }
  | { refused: string }
  /** Answered by Portico without reaching the browser. */
  | { result: Record<string, unknown> };

/** Commands whose `browserContextId` (absent: the browser's default context) means the session's context. */
const CONTEXT_PARAM = new Set([
  'Target.createTarget',
  'Browser.setDownloadBehavior',
  'Browser.grantPermissions',
  'Browser.resetPermissions',
  'Browser.setPermission',
  'Browser.cancelDownload',
  'Storage.getCookies',
  'Storage.setCookies',
  'Storage.clearCookies',
]);

/** Commands naming a target by `targetId`: only the session's own targets. */
const TARGET_PARAM = new Set([
  'Target.attachToTarget',
  'Target.activateTarget',
  'Target.closeTarget',
  'Target.getTargetInfo',
  'Browser.getWindowForTarget',
  'Target.autoAttachRelated',
]);

/**
 * Browser-level commands (on a channel's browser session) that act on no context's data and may pass as
 * they are. Any other browser-level command of the `Browser` and `Storage` domains (and of every domain but
 * `Target`) acts on the host browser as a whole or on its default context — other clients' cookies and
 * storage — and is refused: default-deny, so a command Chromium adds later is refused until it is known.
 * Storage commands on a page's own session (`Storage.clearDataForOrigin`, …) act on that page's context and
 * pass; `Browser.*` acts on the browser whatever session sends it, so its allow-list applies everywhere.
 */
const BROWSER_SAFE = new Set([
  'Browser.getVersion',
  'Schema.getDomains',
  'SystemInfo.getInfo',
  'SystemInfo.getFeatureState',
]);

/** `Browser.*` commands on a window: only windows of the session's targets (`Browser.getWindowForTarget`). */
const WINDOW_PARAM = new Set(['Browser.getWindowBounds', 'Browser.setWindowBounds', 'Browser.setContentsSize']);

/** Events that carry a `targetInfo`. */
const TARGET_INFO_EVENTS = new Set(['Target.targetCreated', 'Target.targetInfoChanged', 'Target.attachedToTarget']);

const SHARED = 'the browser is shared on its host';

export class CdpContextScope {
  /** The context the session was given (its clients' "default" context). */
  readonly primary: string;
  readonly #contexts: Set<string>;
  /** Targets known to be in the session's contexts (for events that name only a targetId). */
  readonly #targets = new Set<string>();
  /** Windows of the session's targets (answers of `Browser.getWindowForTarget`). */
  readonly #windows = new Set<number>();
  /** Extra browser-level sessions of the channels (`Target.attachToBrowserTarget`). */
  readonly #browserSessions = new Set<string>();
  readonly #lookup: (targetId: string) => Promise<TargetInfo | undefined>;

  constructor(primary: string, lookup: (targetId: string) => Promise<TargetInfo | undefined>) {
    this.primary = primary;
    this.#contexts = new Set([primary]);
    this.#lookup = lookup;
  }

  /** Every context of the session (disposed when it ends). */
  get contexts(): readonly string[] {
    return [...this.#contexts];
  }

  #ours(info: TargetInfo | undefined): boolean {
    if (!info) return false;
    if (typeof info.browserContextId === 'string' && this.#contexts.has(info.browserContextId)) {
      if (typeof info.targetId === 'string') this.#targets.add(info.targetId);
      return true;
    }
    return false;
  }

  /**
   * What becomes of a channel's command; `sessionId` as the channel sent it (undefined: its browser
   * session).
   */
  async command(method: string, params: Record<string, unknown>, sessionId?: string): Promise<ScopeVerdict> {
    switch (method) {
      case 'Browser.close':
        return { refused: `${SHARED}: end the session with POST /public/sessions/{id}/terminate` };
      case 'Browser.crash':
      case 'Browser.crashGpuProcess':
      case 'Target.setRemoteLocations':
        return { refused: `${SHARED}: not available in a session there` };
      case 'Target.getBrowserContexts':
        // The primary context plays the default one; the others are those the session created.
        return { result: { browserContextIds: [...this.#contexts].filter((id) => id !== this.primary) } };
      case 'Target.createBrowserContext':
        return { params };
      case 'Target.disposeBrowserContext':
        if (params.browserContextId === this.primary || !this.#contexts.has(String(params.browserContextId)))
          return { refused: 'browserContextId: not a context of this session' };
        return { params };
      default:
        break;
    }
    if (CONTEXT_PARAM.has(method)) {
      const given = params.browserContextId;
      if (given === undefined) return { params: { ...params, browserContextId: this.primary } };
      if (typeof given !== 'string' || !this.#contexts.has(given))
        return { refused: 'browserContextId: not a context of this session' };
      return { params };
    }
    if (TARGET_PARAM.has(method) && params.targetId !== undefined) {
      const targetId = params.targetId;
      if (typeof targetId !== 'string') return { refused: 'targetId must be a string' };
      if (this.#targets.has(targetId)) return { params };
      if (this.#ours(await this.#lookup(targetId))) return { params };
      return { refused: 'No target with given id found' };
    }
    if (WINDOW_PARAM.has(method)) {
      if (typeof params.windowId === 'number' && this.#windows.has(params.windowId)) return { params };
      return { refused: 'windowId: not a window of this session (Browser.getWindowForTarget names it)' };
    }
    if (TARGET_PARAM.has(method) || BROWSER_SAFE.has(method)) return { params };
    const domain = method.slice(0, method.indexOf('.'));
    const browserLevel = sessionId === undefined || this.#browserSessions.has(sessionId);
    if (domain === 'Browser' || (browserLevel && domain !== 'Target'))
      return {
        refused: `${SHARED}: a browser-level ${domain} command there would act on other clients' contexts (send it on a page's session, or use a local browser)`,
      };
    return { params };
  }

  /** An answer to a channel's command, as the channel may see it (contexts and targets recorded on the way). */
  result(method: string, result: Record<string, unknown>): Record<string, unknown> {
    if (method === 'Target.createBrowserContext' && typeof result.browserContextId === 'string') {
      this.#contexts.add(result.browserContextId);
    } else if (method === 'Target.attachToBrowserTarget' && typeof result.sessionId === 'string') {
      this.#browserSessions.add(result.sessionId);
    } else if (method === 'Browser.getWindowForTarget' && typeof result.windowId === 'number') {
      this.#windows.add(result.windowId);
    } else if (method === 'Target.createTarget' && typeof result.targetId === 'string') {
      this.#targets.add(result.targetId);
    } else if (method === 'Target.getTargets' && Array.isArray(result.targetInfos)) {
      return {
        ...result,
        targetInfos: (result.targetInfos as TargetInfo[]).filter((info) => info.type === 'browser' || this.#ours(info)),
      };
    }
    return result;
  }

  /** Whether a channel sees an event (`attachedToTarget` of another context: the caller detaches it unseen). */
  event(method: string, params: Record<string, unknown>): boolean {
    if (TARGET_INFO_EVENTS.has(method)) {
      const info = params.targetInfo as TargetInfo | undefined;
      if (method === 'Target.attachedToTarget' && info?.type === 'browser' && typeof params.sessionId === 'string')
        this.#browserSessions.add(params.sessionId);
      return info?.type === 'browser' || this.#ours(info);
    }
    if (method === 'Target.targetDestroyed' || method === 'Target.targetCrashed') {
      const targetId = params.targetId;
      if (typeof targetId !== 'string' || !this.#targets.has(targetId)) return false;
      if (method === 'Target.targetDestroyed') this.#targets.delete(targetId);
      return true;
    }
    // Target.detachedFromTarget: the pipe delivers it only for sessions the channel owns.
    return true;
  }
}
