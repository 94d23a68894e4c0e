import type { ServerResponse } from 'node:http';

import type { Page } from 'playwright-core';
import { z } from 'zod';

import { ConflictError, NotFoundError } from '../../base/errors.ts';
import type { Logger } from '../../base/logger.ts';
import { LiveView, type ScreencastFrame } from '../../browser/liveView.ts';
import { LiveFrame, LiveInput, LiveInputAccepted, LiveViewParams } from '../../contract/liveView.ts';
import { messages } from '../../contract/messages.ts';
import type { LiveTarget, LiveViewHub } from '../../engine/liveViewHub.ts';
import { LIVE_VIEW_CSP, liveViewPage } from '../liveViewPage.ts';
import type { RouteTable } from '../routeTable.ts';

// How often a channel checks that its target is still registered and still on the same page.
const WATCH_MS = 300;
const HEARTBEAT_MS = 15_000;
// A viewer this far behind skips frames instead of buffering without bound.
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

interface Viewer {
  frame(frame: ScreencastFrame): void;
  end(): void;
}

/**
 * One live view's screencast, shared by all its viewers: started on the page when the first viewer
 * (or an input) needs it, moved when the target switches pages, stopped when nobody needs it.
 */
class LiveChannel {
  readonly target: LiveTarget;
  readonly #token: string;
  readonly #hub: LiveViewHub;
  readonly #onIdle: () => void;
  readonly #logger: Logger;
  readonly #viewers = new Set<Viewer>();
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

  /** Adds a viewer; it gets the latest frame at once, then every new one, then `end()`. */
  attach(viewer: Viewer): () => void {
    this.#viewers.add(viewer);
    if (this.#last) viewer.frame(this.#last);
    this.#ensureRunning();
    return () => {
      this.#viewers.delete(viewer);
      this.#stopIfUnused();
    };
  }

  /** Runs `action` against the current page's LiveView, starting one for the duration if none runs. */
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
    if (page !== this.#page || (page && page.isClosed())) this.#switchTo(page?.isClosed() ? undefined : page);
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

/** The channels of every live view someone is watching or driving right now. */
class LiveChannels {
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
}

function writeEvent(raw: ServerResponse, event: string, data: unknown): void {
  raw.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

export interface LiveViewRouteOptions {
  logger: Logger;
  /** Called after each input is delivered, e.g. to keep a profile-login session from idling out. */
  onInput?: (token: string) => void;
}

/** Live view (local-service §6): the page, its frame stream and its input, credentialed by the unguessable token. */
export function addLiveViewRoutes(routes: RouteTable, hub: LiveViewHub, options: LiveViewRouteOptions): void {
  const channels = new LiveChannels(hub, options.logger);

  routes.add({
    method: 'GET', url: '/live/:token', tag: 'live view', summary: 'The live-view page of a browser (no API key: the token is the credential)', auth: 'none',
    params: LiveViewParams, produces: { type: 'text/html', schema: z.string() },
    handler: ({ params, reply }) => {
      const target = channels.target(params.token);
      const base = `/live/${encodeURIComponent(params.token)}`;
      reply
        .header('content-security-policy', LIVE_VIEW_CSP)
        .header('referrer-policy', 'no-referrer')
        .header('cache-control', 'no-store')
        .type('text/html; charset=utf-8');
      reply.send(liveViewPage({ title: target.title, framesUrl: `${base}/frames`, inputUrl: `${base}/input`, interactive: target.interactive }));
    },
  });

  routes.add({
    method: 'GET', url: '/live/:token/frames', tag: 'live view', summary: 'Screen frames as server-sent events (`frame`, then `end`)', auth: 'none',
    params: LiveViewParams, produces: { type: 'text/event-stream', schema: LiveFrame },
    handler: ({ params, reply }) => {
      const channel = channels.channel(params.token);
      reply.hijack();
      const raw = reply.raw;
      raw.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      raw.write(': live view\n\n');
      let finished = false;
      const heartbeat = setInterval(() => raw.write(': ping\n\n'), HEARTBEAT_MS);
      const finish = (): void => {
        if (finished) return;
        finished = true;
        clearInterval(heartbeat);
        detach();
      };
      const detach = channel.attach({
        frame: (frame) => {
          if (!finished && raw.writableLength < MAX_BUFFERED_BYTES) writeEvent(raw, 'frame', frame);
        },
        end: () => {
          if (finished) return;
          writeEvent(raw, 'end', { detail: messages.liveViewNotFound });
          raw.end();
          finish();
        },
      });
      raw.on('close', finish);
      if (channel.ended) finish();
    },
  });

  routes.add({
    method: 'POST', url: '/live/:token/input', tag: 'live view', summary: 'Send one mouse, wheel, key or text input to the page (CSS pixels)', auth: 'none',
    params: LiveViewParams, body: LiveInput, response: LiveInputAccepted,
    handler: async ({ params, body }) => {
      const target = channels.target(params.token);
      if (!target.interactive) throw new ConflictError(messages.liveViewReadOnly);
      await channels.channel(params.token).withView(async (view) => {
        try {
          await dispatch(view, body);
        } catch (error) {
          options.logger.debug('live view input failed', { error: String(error) });
          throw new ConflictError('The page could not take the input (it closed or is navigating); try again');
        }
      });
      options.onInput?.(params.token);
      return { ok: true as const };
    },
  });
}

async function dispatch(view: LiveView, input: LiveInput): Promise<void> {
  switch (input.kind) {
    case 'mouse':
      if (input.type === 'click') return view.click(input.x, input.y, input.button ?? 'left');
      return view.dispatchMouse({ ...input, type: input.type });
    case 'wheel':
      return view.dispatchWheel(input);
    case 'key':
      return view.dispatchKey({
        // Chromium types a character only for a keyDown that carries text; other keys are raw key downs.
        type: input.type === 'keyDown' && !input.text ? 'rawKeyDown' : input.type,
        key: input.key,
        ...(input.code !== undefined ? { code: input.code } : {}),
        ...(input.text !== undefined ? { text: input.text } : {}),
        ...(input.keyCode !== undefined ? { windowsVirtualKeyCode: input.keyCode } : {}),
        ...(input.modifiers !== undefined ? { modifiers: input.modifiers } : {}),
      });
    case 'text':
      return view.insertText(input.text);
  }
}
