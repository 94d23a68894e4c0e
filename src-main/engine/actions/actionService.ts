import { createHash } from 'node:crypto';
import type { CDPSession, Page } from 'playwright-core';
import {
  ActionSyntaxError,
  actionVariables,
  findAgain,
  frameLocation,
  isStepRecipe,
  MissingVariableError,
  parseAction,
  replayRecipe,
  runParsedAction,
  runWithModel,
  type ActionOutcome,
  type StepRecipe,
  type Variables,
} from '../../agent/actions/index.ts';
import { systemClock, type Clock } from '../../base/clock.ts';
import { isAppError, InternalError } from '../../base/errors.ts';
import {
  singleActionMessages,
  type ActionCacheList,
  type ActionCacheQuery,
  type SingleActionRequest,
  type SingleActionResponse,
} from '../../contract/singleAction.ts';
import { LlmCallError, type LlmClient } from '../../llm/index.ts';
import type { ActionCacheRepository } from '../../store/actionCache.ts';
import { creditsFor } from '../jobs/credits.ts';

/** The page of a live session of this workspace; throws the 404 `Session not found` otherwise. */
export interface SessionPages {
  pageFor(sessionId: string, workspaceId: string): Promise<Page>;
}

/** The model an unreadable action may be handed to, when one is configured. */
export interface ActionModel {
  /** The `provider:model` id ready to call, or undefined when none is configured. */
  configured(): Promise<string | undefined>;
  create(modelId: string): Promise<LlmClient>;
}

export interface ActionServiceDeps {
  sessions: SessionPages;
  cache: ActionCacheRepository;
  model?: ActionModel;
  clock?: Pick<Clock, 'now'>;
}

/** Credits of one action before any model call (docs/credits.md). */
export const ACTION_CREDITS = 1;

/** Origin + path: what a hashed cache key ties an entry to (query and fragment vary too much to matter). */
function pageKey(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.origin === 'null' ? parsed.href : `${parsed.origin}${parsed.pathname}`;
  } catch {
    return url;
  }
}

/** How long an action waits for a navigation another client started (over cdp_url) to reach its new page. */
const PENDING_NAVIGATION_MS = 10_000;

/**
 * Navigations of a session page's main frame that were requested but have not yet reached a new
 * document, as the browser reports them on a CDP session of Portico's own (another client's
 * `location.href = …` or `Page.navigate` included).
 */
class NavigationWatch {
  #pending = false;
  #waiters: Array<() => void> = [];
  readonly #cdp: CDPSession;
  readonly #mainFrameId: string;

  private constructor(cdp: CDPSession, mainFrameId: string) {
    this.#cdp = cdp;
    this.#mainFrameId = mainFrameId;
    const isMain = (e: { frameId?: string; frame?: { id: string; parentId?: string } }): boolean =>
      (e.frameId ?? e.frame?.id) === this.#mainFrameId;
    cdp.on('Page.frameRequestedNavigation', (e) => {
      if (isMain(e)) this.#pending = true;
    });
    cdp.on('Page.frameStartedLoading', (e) => {
      if (isMain(e)) this.#pending = true;
    });
    cdp.on('Page.frameNavigated', (e) => {
      if (isMain(e)) this.#settle();
    });
    cdp.on('Page.frameStoppedLoading', (e) => {
      if (isMain(e)) this.#settle();
    });
    cdp.on('Page.frameClearedScheduledNavigation', (e) => {
      if (isMain(e)) this.#settle();
    });
  }

  static async start(page: Page): Promise<NavigationWatch> {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Page.enable');
    const { frameTree } = await cdp.send('Page.getFrameTree');
    return new NavigationWatch(cdp, frameTree.frame.id);
  }

  #settle(): void {
    this.#pending = false;
    for (const wake of this.#waiters.splice(0)) wake();
  }

  /**
   * Waits (bounded) until no main-frame navigation is under way. Each check starts with a round trip, which
   * lets every event the browser sent before it arrive (Playwright's own included, so page.url() is current
   * afterwards); a navigation that settled while another began is waited for too.
   */
  async settled(): Promise<number | undefined> {
    const deadline = performance.now() + PENDING_NAVIGATION_MS;
    for (;;) {
      // The document's time origin tells one document from the next (a reload keeps the address, not the origin).
      const doc = await this.#cdp
        .send('Runtime.evaluate', { expression: 'performance.timeOrigin', returnByValue: true })
        .then(
          (r) => (typeof r.result.value === 'number' ? r.result.value : undefined),
          () => undefined,
        );
      const left = deadline - performance.now();
      if (!this.#pending || left <= 0) return doc;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
}

const watches = new WeakMap<Page, Promise<NavigationWatch | undefined>>();

/**
 * The page's address as the page itself reports it now, and (read by the watch) its main document's time
 * origin. Another client (over cdp_url) may have just navigated: a navigation under way is waited out
 * first, then the address is read (`page.url()` is only as fresh as the events this connection has handled).
 */
async function currentDocument(page: Page): Promise<{ url: string; doc?: number }> {
  let watch = watches.get(page);
  if (!watch) {
    watch = NavigationWatch.start(page).catch(() => undefined);
    watches.set(page, watch);
  }
  const watching = await watch;
  if (watching) {
    // Its round trip came back after every event the browser sent before it, Playwright's own included: page.url() is current.
    const doc = await watching.settled();
    return { url: page.url(), ...(doc !== undefined && { doc }) };
  }
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      const { href } = await page.mainFrame().evaluate(frameLocation);
      if (href === page.url()) return { url: href };
    } catch {
      // The document went away mid-read: a navigation is committing; read again once it has.
    }
    await page.waitForLoadState('domcontentloaded', { timeout: 5_000 }).catch(() => undefined);
  }
  return { url: page.url() };
}

/** Whether any string of a recipe carries a variable's value (then it is not stored: values never reach the cache). */
function carriesValue(recipe: StepRecipe, variables: Variables): boolean {
  const strings = [
    recipe.text,
    recipe.key,
    recipe.target?.name,
    recipe.target?.selector,
    recipe.target?.frame,
    recipe.row,
    recipe.column,
  ].filter((s): s is string => typeof s === 'string');
  return Object.values(variables).some((value) => value.length >= 2 && strings.some((s) => s.includes(value)));
}

async function overrideUserAgent(page: Page, userAgent: string): Promise<CDPSession> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.setUserAgentOverride', { userAgent });
  await cdp.send('Emulation.setUserAgentOverride', { userAgent });
  return cdp;
}

/**
 * Runs single actions in live sessions (local-service.md §5.3): replays the step cache when its
 * target still has the same role and name, otherwise resolves afresh with the built-in interpreter
 * (or, for a sentence it cannot read, one model call) and stores the new recipe.
 */
export class ActionService {
  readonly #deps: ActionServiceDeps;
  /** One action at a time per session: two at once would race on the same page. */
  readonly #queues = new Map<string, Promise<unknown>>();

  constructor(deps: ActionServiceDeps) {
    this.#deps = deps;
  }

  /** Runs one action; target and page failures are `success: false`, a fault is the 500 of interface §7. */
  async run(workspaceId: string, request: SingleActionRequest): Promise<SingleActionResponse> {
    const page = await this.#deps.sessions.pageFor(request.session_id, workspaceId);
    return this.#serialized(request.session_id, async () => {
      try {
        return await this.#runOn(page, workspaceId, request);
      } catch (error) {
        if (isAppError(error)) throw error;
        throw new InternalError(singleActionMessages.internal, { cause: error });
      }
    });
  }

  /** The workspace's cache entries with their hit and miss counts. */
  listCache(workspaceId: string, query: ActionCacheQuery): ActionCacheList {
    const { entries, total } = this.#deps.cache.list(workspaceId, query.limit, query.offset);
    return {
      total,
      entries: entries.map((e) => {
        const recipe = isStepRecipe(e.recipe) ? e.recipe : undefined;
        return {
          cache_key: e.cacheKey,
          id: e.stepId,
          action: e.action,
          page: e.page,
          operation: recipe?.op ?? 'unknown',
          target: recipe?.target ? { role: recipe.target.role, name: recipe.target.name } : null,
          hits: e.hits,
          misses: e.misses,
          created_at: e.createdAt,
          updated_at: e.updatedAt,
          last_used_at: e.lastUsedAt,
        };
      }),
    };
  }

  async #serialized<T>(sessionId: string, work: () => Promise<T>): Promise<T> {
    const before = this.#queues.get(sessionId) ?? Promise.resolve();
    const mine = before.catch(() => undefined).then(work);
    const settled = mine.catch(() => undefined);
    this.#queues.set(sessionId, settled);
    try {
      return await mine;
    } finally {
      if (this.#queues.get(sessionId) === settled) this.#queues.delete(sessionId);
    }
  }

  async #runOn(page: Page, workspaceId: string, request: SingleActionRequest): Promise<SingleActionResponse> {
    const variables: Variables = Object.fromEntries(Object.entries(request.variables).map(([k, v]) => [k, String(v)]));
    const noCache = { used_cache: false, set_cache: false, cache_failed: false };
    let names: string[];
    try {
      names = actionVariables(request.action);
    } catch (error) {
      if (error instanceof ActionSyntaxError)
        return { success: false, error: `Could not read this action: ${error.message}`, credits: 0, ...noCache };
      throw error;
    }
    const missing = names.find((name) => !Object.hasOwn(variables, name));
    if (missing !== undefined)
      return { success: false, error: singleActionMessages.missingVariable(missing), credits: 0, ...noCache };

    const cdp = request.user_agent ? await overrideUserAgent(page, request.user_agent) : undefined;
    try {
      return await this.#cachedOrFresh(page, workspaceId, request, variables, names);
    } catch (error) {
      if (error instanceof MissingVariableError)
        return {
          success: false,
          error: singleActionMessages.missingVariable(error.variable),
          credits: ACTION_CREDITS,
          ...noCache,
        };
      throw error;
    } finally {
      // Detaching the session drops its overrides: the next action has the browser's own user agent again.
      await cdp?.detach().catch(() => undefined);
    }
  }

  async #cachedOrFresh(
    page: Page,
    workspaceId: string,
    request: SingleActionRequest,
    variables: Variables,
    names: string[],
  ): Promise<SingleActionResponse> {
    const cache = this.#deps.cache;
    const keyFor = (where: string): string =>
      request.id !== undefined
        ? `id:${request.id}`
        : `h:${createHash('sha256')
            .update(JSON.stringify([request.action, where, [...names].sort()]))
            .digest('hex')
            .slice(0, 40)}`;
    const usable = (found: { action: string; recipe: unknown } | undefined): StepRecipe | undefined =>
      found && found.action === request.action && isStepRecipe(found.recipe) ? found.recipe : undefined;
    // The step the page's last known address files this action under is looked for while the page is checked
    // for a navigation under way (two calls into the page at once, not one after the other). The look is
    // read-only; it counts only if the page is still at that address and on the same document afterwards.
    const seen = pageKey(page.url());
    const guess = usable(cache.get(workspaceId, keyFor(seen)));
    const early =
      guess?.target?.frame === '' && guess.row === undefined
        ? findAgain(page, guess.target, undefined, guess.op).catch(() => undefined)
        : undefined;
    const now = await currentDocument(page);
    const where = pageKey(now.url);
    const probed = await early;
    const cacheKey = keyFor(where);
    const entry = cache.get(workspaceId, cacheKey);
    const recipe = usable(entry);
    if (recipe) {
      const sameStep =
        guess !== undefined && recipe.op === guess.op && JSON.stringify(recipe.target) === JSON.stringify(guess.target);
      const ready =
        probed && where === seen && sameStep && now.doc !== undefined && probed.doc === now.doc ? probed : undefined;
      const replayed = await replayRecipe(page, recipe, variables, ready);
      if (replayed) {
        cache.count(workspaceId, cacheKey, 'hit');
        return this.#response(replayed, ACTION_CREDITS, { used_cache: true, set_cache: false, cache_failed: false });
      }
    }
    const cacheFailed = entry !== undefined;
    const { outcome, credits } = await this.#fresh(page, request.action, variables);
    const store =
      outcome.success && outcome.recipe !== undefined && request.set_cache && !carriesValue(outcome.recipe, variables);
    if (store && outcome.recipe) {
      cache.put(
        {
          workspaceId,
          cacheKey,
          stepId: request.id ?? null,
          action: request.action,
          page: where,
          recipe: outcome.recipe,
        },
        true,
      );
    } else if (cacheFailed) {
      cache.count(workspaceId, cacheKey, 'miss');
    }
    return this.#response(outcome, credits, { used_cache: false, set_cache: store, cache_failed: cacheFailed });
  }

  async #fresh(page: Page, action: string, variables: Variables): Promise<{ outcome: ActionOutcome; credits: number }> {
    const parsed = parseAction(action);
    if (parsed) return { outcome: await runParsedAction(page, parsed, variables), credits: ACTION_CREDITS };
    const modelId = await this.#deps.model?.configured();
    if (!this.#deps.model || modelId === undefined) {
      return {
        outcome: {
          success: false,
          error: singleActionMessages.noModel('the sentence is not one the built-in interpreter knows'),
        },
        credits: ACTION_CREDITS,
      };
    }
    const clock = this.#deps.clock ?? systemClock;
    const client = await this.#deps.model.create(modelId);
    const started = clock.now().getTime();
    const outcome = await runWithModel(client, page, action, variables, new AbortController().signal).catch(
      (error: unknown) => {
        // A provider that cannot be reached fails this action, not the service.
        if (error instanceof LlmCallError) return { success: false, error: error.message } satisfies ActionOutcome;
        throw error;
      },
    );
    return { outcome, credits: ACTION_CREDITS + creditsFor(modelId, clock.now().getTime() - started) };
  }

  #response(
    outcome: ActionOutcome,
    credits: number,
    cache: Pick<SingleActionResponse, 'used_cache' | 'set_cache' | 'cache_failed'>,
  ): SingleActionResponse {
    return {
      success: outcome.success,
      ...(outcome.result !== undefined && { result: outcome.result }),
      ...(outcome.error !== undefined && { error: outcome.error }),
      credits,
      ...cache,
    };
  }
}
