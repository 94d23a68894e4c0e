import type { Readable, Writable } from 'node:stream';

import { guardCdpCommand, forbiddenTarget, trustedCdpParams, type CdpGuardContext } from './cdpGuard.ts';
import type { CdpContextScope } from './cdpScope.ts';

/**
 * One Chromium's `--remote-debugging-pipe` (fds 3/4, NUL-delimited JSON) shared by several CDP
 * clients, so the browser needs no TCP endpoint at all (docs/decisions.md, "Session browsers over the
 * pipe only").
 *
 * Each client gets a channel: its own browser session (`Target.attachToBrowserTarget`, which Chromium
 * treats like a separate DevTools connection — its own auto-attach, discovery and download settings).
 * A client's messages without `sessionId` go to its browser session; with one, only to sessions it
 * owns (attached through its channel). Ids are rewritten so clients never collide; answers and events
 * go back to the channel that owns their session. An untrusted channel's commands pass the guard
 * (cdpGuard.ts) first, and Chromium's own UI targets it auto-attaches are detached before it sees them.
 */

interface Pending {
  channel: CdpChannel | undefined;
  /** The command's method (a scoped pipe filters some answers). */
  method?: string;
  clientId: number;
  /** The sessionId the client wrote, echoed back; absent when it addressed its browser session. */
  clientSessionId: string | undefined;
  resolve?: (message: CdpMessage) => void;
}

interface CdpMessage {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  sessionId?: string;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/** A CDP error for an answer that never reached Chromium. */
function errorAnswer(id: number, sessionId: string | undefined, message: string, code = -32000): string {
  return JSON.stringify({ id, error: { code, message }, ...(sessionId !== undefined && { sessionId }) });
}

/**
 * `text` (Chromium's JSON of `message`) with its `id` replaced by `id` (an answer) and its `sessionId` by
 * `sessionId` (absent: none), without parsing and serializing it again; undefined when the text is not laid
 * out as Chromium writes it (`{"id":N,` first, `"sessionId":"…"` last), and the caller serializes instead.
 */
function reframed(
  text: string,
  message: CdpMessage,
  id: number | undefined,
  sessionId: string | undefined,
): string | undefined {
  let start = 1;
  if (id !== undefined) {
    const head = `{"id":${message.id},`;
    if (!text.startsWith(head)) return undefined;
    start = head.length;
  } else if (!text.startsWith('{')) return undefined;
  const tail = message.sessionId === undefined ? '}' : `,"sessionId":${JSON.stringify(message.sessionId)}}`;
  if (!text.endsWith(tail) || text.length < start + tail.length) return undefined;
  const body = text.slice(start, text.length - tail.length);
  const head = id === undefined ? '{' : `{"id":${id}${body === '' ? '' : ','}`;
  const end =
    sessionId === undefined
      ? '}'
      : `${body === '' && id === undefined ? '' : ','}"sessionId":${JSON.stringify(sessionId)}}`;
  return `${head}${body}${end}`;
}

/**
 * A root CDP connection other than a pipe (a remote host's, browser/remoteCdp.ts): JSON text both ways.
 * The pipe sets `onMessage` and `onClose`.
 */
export interface CdpTransport {
  send(text: string): void;
  onMessage: ((text: string) => void) | undefined;
  onClose: (() => void) | undefined;
}

export class CdpPipe {
  readonly #send: (text: string) => void;
  readonly #pending = new Map<number, Pending>();
  /** Every session a channel owns (its browser session and what it attached), to that channel. */
  readonly #owners = new Map<string, CdpChannel>();
  readonly #channels = new Set<CdpChannel>();
  #nextId = 1;
  #closed = false;
  /** Messages the browser has sent so far (answers and events): how busy its pages are (the warm pool's refill waits for a lull). */
  #received = 0;
  /** Client channels (guarded: `cdp_url` clients) opened so far. */
  #clientsOpened = 0;
  /** A session's share of a browser others use too (a `cdp` host's): what every channel is limited to. */
  #scope: CdpContextScope | undefined;

  constructor(input: Writable | CdpTransport, output?: Readable) {
    if (!('write' in input)) {
      const transport = input;
      this.#send = (text) => transport.send(text);
      transport.onMessage = (text) => this.#dispatch(text);
      transport.onClose = () => this.#close();
      return;
    }
    this.#send = (text) => input.write(`${text}\0`);
    if (!output) throw new Error('a pipe needs its output stream');
    let chunks: Buffer[] = [];
    output.on('data', (chunk: Buffer) => {
      let start = 0;
      for (let end = chunk.indexOf(0); end !== -1; end = chunk.indexOf(0, start)) {
        chunks.push(chunk.subarray(start, end));
        const text = Buffer.concat(chunks).toString('utf8');
        chunks = [];
        start = end + 1;
        this.#dispatch(text);
      }
      if (start < chunk.length) chunks.push(chunk.subarray(start));
    });
    output.on('error', () => undefined);
    input.on('error', () => undefined);
    output.on('close', () => this.#close());
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** How many messages the browser has sent, and how many `cdp_url` clients have opened a channel, so far. */
  get activity(): { clients: number; messages: number } {
    return { clients: this.#clientsOpened, messages: this.#received };
  }

  /** Limits every channel to the session's browser contexts (cdpScope.ts); set before any channel opens. */
  setScope(scope: CdpContextScope): void {
    this.#scope = scope;
  }

  /** @internal */
  get scope(): CdpContextScope | undefined {
    return this.#scope;
  }

  /** Sends a command on the root connection (or a session Portico owns) and waits for its answer. */
  call(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<CdpMessage> {
    if (this.#closed) return Promise.reject(new Error('the browser pipe is closed'));
    return new Promise((resolve) => {
      const id = this.#nextId++;
      this.#pending.set(id, { channel: undefined, clientId: id, clientSessionId: sessionId, resolve });
      this.#write({ id, method, params, ...(sessionId !== undefined && { sessionId }) });
    });
  }

  /** Sends without waiting (Browser.close at shutdown). */
  notify(method: string): void {
    if (this.#closed) return;
    this.#write({ id: this.#nextId++, method, params: {} });
  }

  /** A new client channel: trusted (Portico's own Playwright) or guarded by `guard`. */
  async openChannel(guard: CdpGuardContext | undefined): Promise<CdpChannel> {
    const answer = await this.call('Target.attachToBrowserTarget');
    const sessionId = answer.result?.sessionId;
    if (typeof sessionId !== 'string')
      throw new Error(`the browser refused a new CDP session: ${answer.error?.message ?? 'no session id'}`);
    const channel = new CdpChannel(this, sessionId, guard);
    if (guard) this.#clientsOpened += 1;
    this.#owners.set(sessionId, channel);
    this.#channels.add(channel);
    return channel;
  }

  /** @internal a channel's command, already checked, with a fresh id. */
  forward(
    channel: CdpChannel,
    clientId: number,
    clientSessionId: string | undefined,
    method: string,
    params: Record<string, unknown>,
    sessionId: string,
  ): void {
    const id = this.#nextId++;
    this.#pending.set(id, { channel, clientId, clientSessionId, method });
    this.#write({ id, method, params, sessionId });
  }

  /** @internal */
  ownerOf(sessionId: string): CdpChannel | undefined {
    return this.#owners.get(sessionId);
  }

  /** @internal a channel is done: its browser session is detached (which detaches what it attached). */
  release(channel: CdpChannel): void {
    this.#channels.delete(channel);
    for (const [sessionId, owner] of this.#owners) if (owner === channel) this.#owners.delete(sessionId);
    for (const [id, pending] of this.#pending) if (pending.channel === channel) this.#pending.delete(id);
    if (!this.#closed) void this.call('Target.detachFromTarget', { sessionId: channel.browserSessionId });
  }

  #write(message: CdpMessage): void {
    try {
      this.#send(JSON.stringify(message));
    } catch {
      this.#close();
    }
  }

  #dispatch(text: string): void {
    this.#received += 1;
    let message: CdpMessage;
    try {
      message = JSON.parse(text) as CdpMessage;
    } catch {
      return;
    }
    if (typeof message.id === 'number') {
      const pending = this.#pending.get(message.id);
      if (!pending) return;
      this.#pending.delete(message.id);
      if (pending.resolve) {
        pending.resolve(message);
        return;
      }
      const channel = pending.channel;
      if (!channel) return;
      if (this.#scope && pending.method !== undefined && message.result)
        message.result = this.#scope.result(pending.method, message.result);
      const attached = message.result?.sessionId;
      if (typeof attached === 'string' && !this.#owners.has(attached)) this.#owners.set(attached, channel);
      const answer = { ...message, id: pending.clientId, sessionId: pending.clientSessionId };
      // Unchanged by a scope, the answer is Chromium's own text with the client's id and session put back.
      channel.deliverText(
        (!this.#scope && reframed(text, message, pending.clientId, pending.clientSessionId)) || JSON.stringify(answer),
      );
      return;
    }
    const sessionId = message.sessionId;
    if (sessionId === undefined) {
      // The root connection: a browser session of a channel detached by Chromium (the browser is closing).
      if (message.method === 'Target.detachedFromTarget') {
        const detached = message.params?.sessionId;
        const owner = typeof detached === 'string' ? this.#owners.get(detached) : undefined;
        if (owner && owner.browserSessionId === detached) owner.close();
      }
      return;
    }
    const owner = this.#owners.get(sessionId);
    if (!owner) return;
    const params = message.params ?? {};
    if (this.#scope && message.method !== undefined && !this.#scope.event(message.method, params)) {
      // Another context's target: a page attached by auto-attach is let go (resumed, detached) unseen.
      if (message.method === 'Target.attachedToTarget' && typeof params.sessionId === 'string') {
        const child = params.sessionId;
        if (params.waitingForDebugger === true) void this.call('Runtime.runIfWaitingForDebugger', {}, child);
        void this.call('Target.detachFromTarget', { sessionId: child }, sessionId);
      }
      return;
    }
    if (message.method === 'Target.attachedToTarget' && typeof params.sessionId === 'string') {
      const child = params.sessionId;
      const info = params.targetInfo as { type?: unknown; url?: unknown } | undefined;
      if (
        owner.guarded &&
        forbiddenTarget({ type: String(info?.type ?? ''), url: String(info?.url ?? '') }) !== undefined
      ) {
        // Chromium's own UI is not the client's to drive: detached before the client hears of it.
        void this.call('Target.detachFromTarget', { sessionId: child }, sessionId);
        return;
      }
      this.#owners.set(child, owner);
    } else if (message.method === 'Target.detachedFromTarget' && typeof params.sessionId === 'string') {
      if (this.#owners.get(params.sessionId) !== owner) return;
      this.#owners.delete(params.sessionId);
    }
    // Passed on as Chromium wrote it (an event is never changed; only the channel's browser session is unnamed).
    if (sessionId !== owner.browserSessionId) owner.deliverText(text);
    else
      owner.deliverText(
        reframed(text, message, undefined, undefined) || JSON.stringify({ ...message, sessionId: undefined }),
      );
  }

  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const pending of this.#pending.values())
      pending.resolve?.({ error: { code: -32000, message: 'the browser has closed' } });
    this.#pending.clear();
    for (const channel of [...this.#channels]) channel.close();
  }
}

/** One client's view of the browser: messages in (`receive`), messages out (`onMessage`). */
export class CdpChannel {
  readonly browserSessionId: string;
  onMessage: ((text: string) => void) | undefined;
  onClose: (() => void) | undefined;
  readonly #pipe: CdpPipe;
  readonly #guard: CdpGuardContext | undefined;
  /** A client's commands are checked and sent in the order they came, even when a check waits. */
  #queue: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(pipe: CdpPipe, browserSessionId: string, guard: CdpGuardContext | undefined) {
    this.#pipe = pipe;
    this.browserSessionId = browserSessionId;
    this.#guard = guard;
  }

  get guarded(): boolean {
    return this.#guard !== undefined;
  }

  /** A message from the client (one CDP command as JSON text). */
  receive(text: string): void {
    if (this.#closed) return;
    let message: CdpMessage;
    try {
      message = JSON.parse(text) as CdpMessage;
    } catch {
      this.#answer(errorAnswer(0, undefined, 'Message must be a valid JSON', -32700));
      return;
    }
    const { id, method, sessionId } = message;
    const params = message.params ?? {};
    if (
      typeof id !== 'number' ||
      !Number.isSafeInteger(id) ||
      typeof method !== 'string' ||
      typeof params !== 'object' ||
      params === null ||
      Array.isArray(params) ||
      (sessionId !== undefined && typeof sessionId !== 'string')
    ) {
      this.#answer(
        errorAnswer(
          typeof id === 'number' ? id : 0,
          undefined,
          'Message must have an integer id, a string method and an object params',
          -32600,
        ),
      );
      return;
    }
    const target = sessionId ?? this.browserSessionId;
    this.#queue = this.#queue.then(async () => {
      if (this.#closed) return;
      if (this.#pipe.ownerOf(target) !== this) {
        this.#answer(errorAnswer(id, sessionId, 'Session with given id not found.', -32001));
        return;
      }
      const verdict = this.#guard
        ? await guardCdpCommand(method, params, this.#guard).catch((error: unknown) => ({ refused: String(error) }))
        : { params: trustedCdpParams(method, params) };
      if (this.#closed) return;
      if ('refused' in verdict) {
        this.#answer(errorAnswer(id, sessionId, `Portico refused ${method}: ${verdict.refused}`));
        return;
      }
      const scope = this.#pipe.scope;
      const scoped = scope
        ? await scope.command(method, verdict.params, sessionId).catch((error: unknown) => ({ refused: String(error) }))
        : verdict;
      if (this.#closed) return;
      if ('refused' in scoped) {
        this.#answer(errorAnswer(id, sessionId, `Portico refused ${method}: ${scoped.refused}`));
        return;
      }
      if ('result' in scoped) {
        this.#answer(JSON.stringify({ id, result: scoped.result, ...(sessionId !== undefined && { sessionId }) }));
        return;
      }
      this.#pipe.forward(this, id, sessionId, method, scoped.params, target);
    });
  }

  /** @internal an answer or event for this client, as JSON text. */
  deliverText(text: string): void {
    if (this.#closed) return;
    this.#answer(text);
  }

  #answer(text: string): void {
    this.onMessage?.(text);
  }

  /** Ends this client's channel (its sessions are detached; the browser lives on). Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#pipe.release(this);
    const onClose = this.onClose;
    this.onClose = undefined;
    onClose?.();
  }
}
