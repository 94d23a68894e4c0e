import type { Page } from 'playwright-core';

import { ConflictError, NotFoundError } from '../base/errors.ts';
import type { Logger } from '../base/logger.ts';
import { LiveView, type ScreencastFrame } from '../browser/liveView.ts';
import type { LiveInput } from '../contract/liveView.ts';
import { messages } from '../contract/messages.ts';
import type { LiveTarget, LiveViewHub } from './liveViewHub.ts';

// How often a channel checks that its target is still registered and still on the same page.
const WATCH_MS = 300;

/** One watcher of a live view (e.g. an SSE response): frames as they come, then `end()` once. */
export interface LiveViewer {
  frame(frame: ScreencastFrame): void;
  end(): void;
}

/**
 * One live view's screencast, shared by all its viewers: started on the page when the first viewer
 * (or an input) needs it, moved when the target switches pages, stopped when nobody needs it.
 */
export class LiveChannel {
  readonly target: LiveTarget;
  readonly #token: string;
  readonly #hub: LiveViewHub;
  readonly #onIdle: () => void;
  readonly #logger: Logger;
  readonly #viewers = new Set<LiveViewer>();
  #holds = 0;
  #view: LiveView | undefined;
  #page: Page | undefined;
  #last: ScreencastFrame | undefined;
  #switching: Promise<void> = Promise.resolve();
  #watch: NodeJS.Timeout | undefined;
  #ended = false;

  constructor(token: string, target: LiveTarget, hub: LiveViewHub, logger: Logger, onIdle: () => void) {
    this.#token = token;
    this.target = target;
    this.#hub = hub;
    this.#logger = logger;
    this.#onIdle = onIdle;
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** Adds a viewer; it gets the latest frame at once, then every new one, then `end()`. Returns the detach. */
  attach(viewer: LiveViewer): () => void {
    this.#viewers.add(viewer);
    if (this.#last) viewer.frame(this.#last);
    this.#ensureRunning();
    return () => {
      this.#viewers.delete(viewer);
      this.#stopIfUnused();
    };
  }

  /** Runs `action` against the current page's LiveView, starting one for the duration if none runs; 409 without a page. */
  async withView(action: (view: LiveView) => Promise<void>): Promise<void> {
    this.#holds += 1;
    try {
      this.#ensureRunning();
      await this.#switching;
      const view = this.#view;
      if (!view) throw new ConflictError('The live view has no page to control right now');
      await action(view);
    } finally {
      this.#holds -= 1;
      this.#stopIfUnused();
    }
  }

  /** Ends every viewer's stream and stops the screencast. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    for (const viewer of this.#viewers) viewer.end();
    this.#viewers.clear();
    this.#shutDown();
  }

  #ensureRunning(): void {
    this.#watch ??= setInterval(() => this.#check(), WATCH_MS);
    this.#check();
  }

  #check(): void {
    if (this.#hub.get(this.#token) !== this.target) {
      this.end();
      return;
    }
    const page = this.target.page();
    if (page !== this.#page || page?.isClosed()) this.#switchTo(page?.isClosed() ? undefined : page);
  }

  #switchTo(page: Page | undefined): void {
    this.#page = page;
    this.#switching = this.#switching.then(async () => {
      const previous = this.#view;
      this.#view = undefined;
      await previous?.stop();
      if (!page || this.#ended || this.#page !== page) return;
      try {
        const view = await LiveView.start(page);
        if (this.#ended || this.#page !== page) {
          await view.stop();
          return;
        }
        view.onDidFrame((frame) => {
          this.#last = frame;
          for (const viewer of this.#viewers) viewer.frame(frame);
        });
        this.#view = view;
      } catch (error) {
        // The page closed or navigated away mid-attach; the next check picks up whatever page comes next.
        this.#logger.debug('live view could not attach', { error: String(error) });
        if (this.#page === page) this.#page = undefined;
      }
    });
  }

  #stopIfUnused(): void {
    if (this.#viewers.size === 0 && this.#holds === 0) this.#shutDown();
  }

  #shutDown(): void {
    clearInterval(this.#watch);
    this.#watch = undefined;
    this.#page = undefined;
    this.#last = undefined;
    const view = this.#view;
    this.#view = undefined;
    this.#switching = this.#switching.then(() => view?.stop());
    this.#onIdle();
  }
}

/** The channels of every live view someone is watching or driving right now, by token. */
export class LiveChannels {
  readonly #hub: LiveViewHub;
  readonly #logger: Logger;
  readonly #channels = new Map<string, LiveChannel>();

  constructor(hub: LiveViewHub, logger: Logger) {
    this.#hub = hub;
    this.#logger = logger;
  }

  /** The registered target of `token`, or 404. */
  target(token: string): LiveTarget {
    const target = this.#hub.get(token);
    if (!target) throw new NotFoundError(messages.liveViewNotFound);
    return target;
  }

  /** The running channel of `token`'s current target (a new one when the target changed), or 404. */
  channel(token: string): LiveChannel {
    const target = this.target(token);
    const current = this.#channels.get(token);
    if (current && current.target === target && !current.ended) return current;
    current?.end();
    const channel: LiveChannel = new LiveChannel(token, target, this.#hub, this.#logger, () => {
      if (this.#channels.get(token) === channel) this.#channels.delete(token);
    });
    this.#channels.set(token, channel);
    return channel;
  }

  /**
   * Delivers one input to the page: 404 for an unknown token, 409 when read-only or the page cannot take
   * it. A navigation input resolves the page's address afterwards.
   */
  async sendInput(token: string, input: LiveInput): Promise<string | undefined> {
    const target = this.target(token);
    if (!target.interactive) throw new ConflictError(messages.liveViewReadOnly);
    let url: string | undefined;
    await this.channel(token).withView(async (view) => {
      try {
        url = await dispatchInput(view, input);
      } catch (error) {
        this.#logger.debug('live view input failed', { error: String(error) });
        throw new ConflictError('The page could not take the input (it closed or is navigating); try again');
      }
    });
    return url;
  }
}

/** One live-view input (CSS pixels) as the CDP events Chromium expects. */
export async function dispatchInput(view: LiveView, input: LiveInput): Promise<string | undefined> {
  switch (input.kind) {
    case 'navigation':
      if (input.action === 'where') return view.currentUrl();
      return view.navigate(input.action, input.url);
    case 'mouse':
      if (input.type === 'click') await view.click(input.x, input.y, input.button ?? 'left');
      else await view.dispatchMouse({ ...input, type: input.type });
      return undefined;
    case 'wheel':
      await view.dispatchWheel(input);
      return undefined;
    case 'key':
      await view.dispatchKey({
        // Chromium types a character only for a keyDown that carries text; other keys are raw key downs.
        type: input.type === 'keyDown' && !input.text ? 'rawKeyDown' : input.type,
        key: input.key,
        ...(input.code !== undefined ? { code: input.code } : {}),
        ...(input.text !== undefined ? { text: input.text } : {}),
        ...(input.keyCode !== undefined ? { windowsVirtualKeyCode: input.keyCode } : {}),
        ...(input.modifiers !== undefined ? { modifiers: input.modifiers } : {}),
      });
      return undefined;
    case 'text':
      await view.insertText(input.text);
      return undefined;
  }
}
