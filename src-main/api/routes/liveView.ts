import type { ServerResponse } from 'node:http';

import type { Logger } from '../../base/logger.ts';
import { messages } from '../../contract/messages.ts';
import { LiveChannels } from '../../engine/liveChannel.ts';
import type { LiveViewHub } from '../../engine/liveViewHub.ts';
import { LIVE_VIEW_HEADERS, liveViewPage } from '../liveViewPage.ts';
import type { OperationsTagged } from '../../contract/operations.ts';
import type { Handlers } from '../operationTable.ts';

const HEARTBEAT_MS = 15_000;
// A viewer this far behind skips frames instead of buffering without bound.
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

function writeEvent(raw: ServerResponse, event: string, data: unknown): void {
  raw.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

export interface LiveViewRouteOptions {
  logger: Logger;
  /** Called after each input is delivered, e.g. to keep a profile-login session from idling out. */
  onInput: (token: string) => void;
}

/** Live view (local-service §6): the page, its frame stream and its input, credentialed by the unguessable token. */
export function liveViewHandlers(
  hub: LiveViewHub,
  options: LiveViewRouteOptions,
): Handlers<OperationsTagged<'live view'>> {
  const channels = new LiveChannels(hub, options.logger);
  return {
    getLiveView: ({ params, reply }) => {
      const target = channels.target(params.token);
      const base = `/live/${encodeURIComponent(params.token)}`;
      reply.headers(LIVE_VIEW_HEADERS).type('text/html; charset=utf-8');
      reply.send(
        liveViewPage({
          title: target.title,
          framesUrl: `${base}/frames`,
          inputUrl: `${base}/input`,
          interactive: target.interactive,
        }),
      );
    },

    streamLiveFrames: ({ params, reply }) => {
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

    sendLiveInput: async ({ params, body }) => {
      const url = await channels.sendInput(params.token, body);
      // Reading the address is the page's own upkeep, not the person acting: it must not keep a session awake.
      if (!(body.kind === 'navigation' && body.action === 'where')) options.onInput(params.token);
      return url === undefined ? { ok: true as const } : { ok: true as const, url };
    },
  };
}
