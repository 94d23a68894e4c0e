// tier: unit
// CdpPipe passes the browser's answers and events on to a channel as Chromium wrote them, with only the
// client's id and session put back (no parse-and-serialize per message); text laid out otherwise is
// serialized from the parsed message. Driven over an in-memory transport standing in for Chromium.
import { describe, expect, it } from 'vitest';
import { CdpPipe, type CdpTransport } from '../../src-main/browser/cdpPipe.ts';

/** A transport that answers the channel's attach and records what the pipe sent. */
function fakeBrowser(): { transport: CdpTransport; sent: Array<Record<string, unknown>>; emit(text: string): void } {
  const sent: Array<Record<string, unknown>> = [];
  const transport: CdpTransport = {
    send(text) {
      const message = JSON.parse(text) as Record<string, unknown>;
      sent.push(message);
      if (message.method === 'Target.attachToBrowserTarget')
        queueMicrotask(() => transport.onMessage?.(`{"id":${message.id},"result":{"sessionId":"BROWSER1"}}`));
    },
    onMessage: undefined,
    onClose: undefined,
  };
  return { transport, sent, emit: (text) => transport.onMessage?.(text) };
}

async function channelOf(browser: ReturnType<typeof fakeBrowser>) {
  const pipe = new CdpPipe(browser.transport);
  const channel = await pipe.openChannel(undefined);
  const received: string[] = [];
  channel.onMessage = (text) => received.push(text);
  return { pipe, channel, received };
}

/** Lets the channel's command queue (a promise chain) forward what it was given. */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i += 1) await Promise.resolve();
};

describe('CdpPipe passes messages on without re-serializing them', () => {
  it("an answer keeps Chromium's text with the client's id and session; the browser session's is unnamed", async () => {
    const browser = fakeBrowser();
    const { channel, received } = await channelOf(browser);
    channel.receive('{"id":7,"method":"Target.attachToTarget","params":{"targetId":"T1","flatten":true}}');
    await settle();
    const attach = browser.sent.at(-1) as { id: number; sessionId: string };
    expect(attach.sessionId).toBe('BROWSER1');
    browser.emit(`{"id":${attach.id},"result":{"sessionId":"PAGE1"},"sessionId":"BROWSER1"}`);
    expect(received.at(-1)).toBe('{"id":7,"result":{"sessionId":"PAGE1"}}');

    channel.receive('{"id":8,"method":"Runtime.evaluate","params":{"expression":"1"},"sessionId":"PAGE1"}');
    await settle();
    const evaluate = browser.sent.at(-1) as { id: number; sessionId: string };
    expect(evaluate.sessionId).toBe('PAGE1');
    browser.emit(`{"id":${evaluate.id},"result":{"result":{"type":"string","value":"\\u003Cb>"}},"sessionId":"PAGE1"}`);
    // Chromium's own escapes (`<` as \u003C) are still there: the text was not parsed and serialized again.
    expect(received.at(-1)).toBe(
      '{"id":8,"result":{"result":{"type":"string","value":"\\u003Cb>"}},"sessionId":"PAGE1"}',
    );

    // An error answer, and one laid out otherwise (spaces, keys in another order): the same meaning either way.
    channel.receive('{"id":9,"method":"Page.reload","params":{},"sessionId":"PAGE1"}');
    await settle();
    const reload = browser.sent.at(-1) as { id: number };
    browser.emit(`{ "sessionId": "PAGE1", "id": ${reload.id}, "error": {"code": -32000, "message": "no"} }`);
    expect(JSON.parse(received.at(-1) ?? '')).toEqual({
      id: 9,
      error: { code: -32000, message: 'no' },
      sessionId: 'PAGE1',
    });
  });

  it("an event of a page's session passes as it came; one of the channel's browser session loses its session id", async () => {
    const browser = fakeBrowser();
    const { channel, received } = await channelOf(browser);
    channel.receive('{"id":1,"method":"Target.attachToTarget","params":{"targetId":"T1","flatten":true}}');
    await settle();
    browser.emit(
      `{"id":${(browser.sent.at(-1) as { id: number }).id},"result":{"sessionId":"PAGE1"},"sessionId":"BROWSER1"}`,
    );

    const pageEvent =
      '{"method":"Page.lifecycleEvent","params":{"name":"load","text":"\\u003C \\"sessionId\\":\\"x\\"}"},"sessionId":"PAGE1"}';
    browser.emit(pageEvent);
    expect(received.at(-1)).toBe(pageEvent);

    browser.emit(
      '{"method":"Target.targetInfoChanged","params":{"targetInfo":{"targetId":"T1"}},"sessionId":"BROWSER1"}',
    );
    expect(received.at(-1)).toBe('{"method":"Target.targetInfoChanged","params":{"targetInfo":{"targetId":"T1"}}}');
    // Laid out otherwise: serialized from the parsed event, still without the browser session's id.
    browser.emit('{"sessionId":"BROWSER1","method":"Target.targetDestroyed","params":{"targetId":"T2"}}');
    expect(JSON.parse(received.at(-1) ?? '')).toEqual({ method: 'Target.targetDestroyed', params: { targetId: 'T2' } });
    // Another channel's session, or none of a channel's: not delivered.
    const count = received.length;
    browser.emit('{"method":"Page.loadEventFired","params":{},"sessionId":"ELSEWHERE"}');
    expect(received).toHaveLength(count);
  });
});
