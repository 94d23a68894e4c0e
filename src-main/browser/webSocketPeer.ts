import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { request as httpRequest } from '../base/nodeHttp.ts';
import { request as httpsRequest } from 'node:https';
import type { Duplex } from 'node:stream';

/**
 * One WebSocket (RFC 6455), text messages only — what CDP speaks: the server side of a client's
 * connection (acceptWebSocket), or Portico's own client connection to a remote DevTools endpoint
 * (connectWebSocket). Small on purpose: no extensions (permessage-deflate is neither offered nor accepted),
 * fragments reassembled, pings answered, a message past `maxMessageBytes` closes the connection (1009).
 */
export interface WebSocketPeer {
  send(text: string): void;
  /** Sends a close frame and ends the socket. Idempotent. */
  close(code?: number): void;
  onMessage: ((text: string) => void) | undefined;
  onClose: (() => void) | undefined;
}

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

/** Answers the upgrade (101) and returns the peer; undefined (socket answered 400 and closed) when it is not a WebSocket handshake. */
export function acceptWebSocket(
  request: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  maxMessageBytes = 64 * 1024 * 1024,
): WebSocketPeer | undefined {
  const key = request.headers['sec-websocket-key'];
  const upgrade = request.headers.upgrade;
  if (
    typeof key !== 'string' ||
    !/^[A-Za-z0-9+/]{22}==$/.test(key) ||
    typeof upgrade !== 'string' ||
    upgrade.toLowerCase() !== 'websocket' ||
    request.headers['sec-websocket-version'] !== '13'
  ) {
    const body = '{"detail":"Expected a WebSocket upgrade"}';
    socket.end(
      `HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    return undefined;
  }
  const accept = createHash('sha1')
    .update(key + GUID)
    .digest('base64');
  socket.write(
    `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
  );
  return new SocketPeer(socket, head, maxMessageBytes, false);
}

/**
 * Opens a WebSocket to `url` (ws: or wss:) as a client. A server that answers with another status than 101
 * fails with `Unexpected server response: <status>` (as the `ws` package says it: a 429 is a host that is full).
 */
export function connectWebSocket(
  url: string,
  options: { timeoutMs: number; maxMessageBytes?: number },
): Promise<WebSocketPeer> {
  const target = new URL(url);
  const secure = target.protocol === 'wss:';
  if (!secure && target.protocol !== 'ws:') return Promise.reject(new Error(`not a WebSocket URL: ${target.protocol}`));
  const key = randomBytes(16).toString('base64');
  const request = (secure ? httpsRequest : httpRequest)({
    protocol: secure ? 'https:' : 'http:',
    hostname: target.hostname.replace(/^\[|\]$/g, ''),
    port: target.port,
    path: `${target.pathname}${target.search}`,
    headers: {
      connection: 'Upgrade',
      upgrade: 'websocket',
      'sec-websocket-version': '13',
      'sec-websocket-key': key,
    },
    timeout: options.timeoutMs,
  });
  return new Promise((resolve, reject) => {
    request.once('upgrade', (response, socket, head) => {
      const expected = createHash('sha1')
        .update(key + GUID)
        .digest('base64');
      if (response.headers['sec-websocket-accept'] !== expected) {
        socket.destroy();
        reject(new Error('the server did not accept the WebSocket handshake'));
        return;
      }
      socket.setTimeout(0);
      resolve(new SocketPeer(socket, head, options.maxMessageBytes ?? 256 * 1024 * 1024, true));
    });
    request.once('response', (response) => {
      response.resume();
      reject(new Error(`Unexpected server response: ${response.statusCode}`));
    });
    request.once('timeout', () => request.destroy(new Error(`no answer within ${options.timeoutMs} ms`)));
    request.once('error', reject);
    request.end();
  });
}

class SocketPeer implements WebSocketPeer {
  onMessage: ((text: string) => void) | undefined;
  onClose: (() => void) | undefined;
  readonly #socket: Duplex;
  readonly #max: number;
  #buffer: Buffer = Buffer.alloc(0);
  #fragments: Buffer[] = [];
  #fragmentBytes = 0;
  #closed = false;
  /** Portico's side of a client connection: its frames are masked, the server's are not. */
  readonly #client: boolean;

  constructor(socket: Duplex, head: Buffer, maxMessageBytes: number, client: boolean) {
    this.#client = client;
    this.#socket = socket;
    this.#max = maxMessageBytes;
    socket.on('data', (chunk: Buffer) => this.#receive(chunk));
    socket.on('close', () => this.#ended());
    socket.on('error', () => socket.destroy());
    if (head.length > 0) queueMicrotask(() => this.#receive(head));
  }

  send(text: string): void {
    if (this.#closed) return;
    this.#frame(0x1, Buffer.from(text, 'utf8'));
  }

  close(code = 1000): void {
    if (this.#closed) return;
    const payload = Buffer.alloc(2);
    payload.writeUInt16BE(code);
    this.#frame(0x8, payload);
    this.#closed = true;
    this.#socket.end();
    this.#ended();
  }

  #ended(): void {
    this.#closed = true;
    const onClose = this.onClose;
    this.onClose = undefined;
    onClose?.();
  }

  #frame(opcode: number, payload: Buffer): void {
    const length = payload.length;
    const maskBit = this.#client ? 0x80 : 0;
    let header: Buffer;
    if (length < 126) {
      header = Buffer.from([0x80 | opcode, maskBit | length]);
    } else if (length < 65_536) {
      header = Buffer.alloc(4);
      header[0] = 0x80 | opcode;
      header[1] = maskBit | 126;
      header.writeUInt16BE(length, 2);
    } else {
      header = Buffer.alloc(10);
      header[0] = 0x80 | opcode;
      header[1] = maskBit | 127;
      header.writeBigUInt64BE(BigInt(length), 2);
    }
    if (!this.#client) {
      this.#socket.write(Buffer.concat([header, payload]));
      return;
    }
    const mask = randomBytes(4);
    const masked = Buffer.alloc(length);
    for (let i = 0; i < length; i += 1) masked[i] = (payload[i] ?? 0) ^ (mask[i & 3] ?? 0);
    this.#socket.write(Buffer.concat([header, mask, masked]));
  }

  #receive(chunk: Buffer): void {
    if (this.#closed) return;
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    while (!this.#closed) {
      const buffer = this.#buffer;
      if (buffer.length < 2) return;
      const first = buffer[0] ?? 0;
      const second = buffer[1] ?? 0;
      const fin = (first & 0x80) !== 0;
      const opcode = first & 0x0f;
      const masked = (second & 0x80) !== 0;
      let length = second & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (buffer.length < 4) return;
        length = buffer.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (buffer.length < 10) return;
        const big = buffer.readBigUInt64BE(2);
        if (big > BigInt(this.#max)) {
          this.close(1009);
          return;
        }
        length = Number(big);
        offset = 10;
      }
      // A client masks every frame it sends; a server never does.
      if ((first & 0x70) !== 0 || masked === this.#client) {
        this.close(1002);
        return;
      }
      if (length + this.#fragmentBytes > this.#max) {
        this.close(1009);
        return;
      }
      const maskBytes = masked ? 4 : 0;
      if (buffer.length < offset + maskBytes + length) return;
      const payload = Buffer.from(buffer.subarray(offset + maskBytes, offset + maskBytes + length));
      if (masked) {
        const mask = buffer.subarray(offset, offset + 4);
        for (let i = 0; i < payload.length; i += 1) payload[i] = (payload[i] ?? 0) ^ (mask[i & 3] ?? 0);
      }
      this.#buffer = buffer.subarray(offset + maskBytes + length);
      this.#handle(opcode, fin, payload);
    }
  }

  #handle(opcode: number, fin: boolean, payload: Buffer): void {
    switch (opcode) {
      case 0x0:
      case 0x1:
      case 0x2: {
        if (opcode !== 0x0 && this.#fragments.length > 0) {
          this.close(1002);
          return;
        }
        this.#fragments.push(payload);
        this.#fragmentBytes += payload.length;
        if (!fin) return;
        const message = Buffer.concat(this.#fragments).toString('utf8');
        this.#fragments = [];
        this.#fragmentBytes = 0;
        this.onMessage?.(message);
        return;
      }
      case 0x8:
        this.close(1000);
        return;
      case 0x9:
        this.#frame(0xa, payload);
        return;
      case 0xa:
        return;
      default:
        this.close(1002);
        return;
    }
  }
}
