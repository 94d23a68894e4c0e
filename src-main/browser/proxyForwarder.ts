import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';

import { silentLogger, type Logger } from '../base/logger.ts';
import { Agent, createServer, request as httpRequest } from '../base/nodeHttp.ts';

/**
 * A local forwarding proxy for one session browser whose upstream proxy needs credentials.
 *
 * Chromium's `--proxy-server` takes no credentials, and answering the proxy's 407 from Portico's own
 * CDP connection races the session's clients (docs/decisions.md, "Session proxies with credentials").
 * So the session's Chromium talks to this forwarder (127.0.0.1, ephemeral port), and the forwarder adds
 * `Proxy-Authorization: Basic …` to everything it sends upstream. Chromium cannot send the forwarder a
 * secret, so who may use it is decided per connection by `admits` (the session passes a check that the
 * client is a process of its own Chromium, loopbackPeer.ts); anyone else gets 403 and nothing upstream.
 * - plain HTTP: the absolute-form request is forwarded as is, with the header added;
 * - HTTPS / WebSockets: `CONNECT host:port` is sent upstream with the header; on its 200 the tunnel is
 *   answered to Chromium and bytes are piped both ways.
 * An upstream refusal (407, any non-2xx CONNECT answer) or an unreachable upstream becomes a 502 to
 * Chromium — a failed tunnel (`net::ERR_TUNNEL_CONNECTION_FAILED`) or a page saying why — never a hang.
 * The password lives only in this object's memory (as the encoded header) and is never logged.
 */

/** An upstream proxy with credentials: `http://host:port` or `host:port`. */
export interface UpstreamProxy {
  server: string;
  username: string;
  password: string;
}

export interface ProxyForwarderOptions {
  logger?: Logger;
  /** Added to every log line (e.g. the session id). */
  logFields?: Record<string, unknown>;
  /** How long to wait for the upstream to accept a connection and answer a CONNECT (network guard, not business time). */
  upstreamTimeoutMs?: number;
  /**
   * Who may use the forwarder, asked once per connection before anything is sent upstream; a connection it
   * refuses gets 403 and is closed. Without it every local client is served (the forwarder's own tests).
   */
  admits?: (socket: Socket) => Promise<boolean>;
}

export interface ProxyForwarder {
  readonly port: number;
  /** What Chromium's `--proxy-server` gets: `http://127.0.0.1:<port>`. */
  readonly server: string;
  /** Stops listening and cuts every open connection; the port refuses from then on. Idempotent. */
  close(): Promise<void>;
}

/** Why an upstream proxy can't be forwarded to (undefined when it can); for a 422 before anything starts. */
export function forwardableUpstreamProblem(server: string): string | undefined {
  try {
    parseUpstream(server);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

function parseUpstream(server: string): { host: string; port: number } {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(server) ? server : `http://${server}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new Error('must be a proxy URL such as http://host:port');
  }
  if (url.protocol !== 'http:') throw new Error('a proxy with username and password must be an http:// proxy');
  if (url.username || url.password)
    throw new Error('put the credentials in username and password, not in the server URL');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host) throw new Error('must name a host');
  return { host, port: url.port ? Number(url.port) : 80 };
}

// Hop-by-hop headers (RFC 9110 §7.6.1) and the proxy credentials a client might send: never forwarded as they came.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);
const MAX_CONNECT_HEAD = 16 * 1024;

function forwardHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  }
  return out;
}

function errorPage(res: ServerResponse, reason: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = `<!doctype html><title>Proxy error</title><h1>Proxy error</h1><p>${reason.replace(/[<>&]/g, (c) => `&#${c.charCodeAt(0)};`)}</p>`;
  res
    .writeHead(502, {
      'content-type': 'text/html; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      connection: 'close',
    })
    .end(body);
}

const NOT_ADMITTED_TEXT = 'This proxy serves only the browser it was started for';
const NOT_ADMITTED = `HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n${NOT_ADMITTED_TEXT}`;

const refusedReason = (status: number): string =>
  status === 407
    ? "The upstream proxy refused the session's proxy credentials (407 Proxy Authentication Required)"
    : `The upstream proxy answered ${status}`;

/** Starts a forwarder on 127.0.0.1 with an ephemeral port. */
export async function startProxyForwarder(
  upstream: UpstreamProxy,
  options: ProxyForwarderOptions = {},
): Promise<ProxyForwarder> {
  const { host: upstreamHost, port: upstreamPort } = parseUpstream(upstream.server);
  const authorization = `Basic ${Buffer.from(`${upstream.username}:${upstream.password}`, 'utf8').toString('base64')}`;
  const logger = options.logger ?? silentLogger;
  const fields = { ...options.logFields, upstream: `${upstreamHost}:${upstreamPort}` };
  const timeoutMs = options.upstreamTimeoutMs ?? 30_000;
  const sockets = new Set<Duplex>();
  const track = (socket: Duplex): void => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  const agent = new Agent({ keepAlive: true, timeout: timeoutMs });
  let closed = false;
  // One verdict per connection, asked when it is accepted; every request on it waits for that verdict.
  const verdicts = new WeakMap<Socket, Promise<boolean>>();
  const admitted = (socket: Socket): Promise<boolean> => {
    const admits = options.admits;
    if (!admits) return Promise.resolve(true);
    let verdict = verdicts.get(socket);
    if (!verdict) {
      verdict = admits(socket).catch(() => false);
      verdicts.set(socket, verdict);
    }
    return verdict;
  };
  const notAdmitted = (): void =>
    logger.warn("proxy forwarder: a client other than the session's browser was refused", fields);

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    void admitted(req.socket).then((ok) => {
      if (ok) return forwardRequest(req, res);
      notAdmitted();
      res.writeHead(403, { 'content-type': 'text/plain', connection: 'close' }).end(NOT_ADMITTED_TEXT);
    });
  };

  const forwardRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const target = req.url ?? '';
    if (!/^http:\/\//i.test(target)) {
      // Only absolute-form requests are proxy requests; anything else is not for this forwarder.
      res
        .writeHead(400, { 'content-type': 'text/plain', connection: 'close' })
        .end('This is a forwarding proxy: absolute-form http:// requests and CONNECT only');
      return;
    }
    const upstreamReq = httpRequest({
      host: upstreamHost,
      port: upstreamPort,
      method: req.method,
      path: target,
      headers: { ...forwardHeaders(req.headers), 'proxy-authorization': authorization },
      agent,
      timeout: timeoutMs,
    });
    upstreamReq.on('socket', (socket) => track(socket));
    upstreamReq.on('timeout', () =>
      upstreamReq.destroy(new Error(`no answer from the upstream proxy within ${timeoutMs} ms`)),
    );
    upstreamReq.on('error', (error) => {
      logger.warn('proxy forwarder: upstream request failed', { ...fields, error: error.message });
      errorPage(res, `The upstream proxy could not be reached: ${error.message}`);
    });
    upstreamReq.on('response', (upstreamRes) => {
      const status = upstreamRes.statusCode ?? 502;
      if (status === 407) {
        upstreamRes.resume();
        logger.warn('proxy forwarder: upstream refused the credentials', { ...fields, status });
        errorPage(res, refusedReason(status));
        return;
      }
      res.writeHead(status, upstreamRes.statusMessage, forwardHeaders(upstreamRes.headers));
      upstreamRes.pipe(res);
      upstreamRes.on('error', () => res.destroy());
    });
    res.on('close', () => {
      if (!res.writableFinished) upstreamReq.destroy();
    });
    req.pipe(upstreamReq);
  };

  const onConnect = (req: IncomingMessage, client: Duplex, head: Buffer): void => {
    track(client);
    client.on('error', () => undefined);
    void admitted(req.socket).then((ok) => {
      if (ok) return tunnel(req, client, head);
      notAdmitted();
      client.end(NOT_ADMITTED);
    });
  };

  const tunnel = (req: IncomingMessage, client: Duplex, head: Buffer): void => {
    const authority = req.url ?? '';
    if (!/^[^\s/@]+:\d{1,5}$/.test(authority)) {
      client.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
      return;
    }
    const upstreamSocket: Socket = connect({ host: upstreamHost, port: upstreamPort });
    track(upstreamSocket);
    upstreamSocket.setTimeout(timeoutMs);
    let answered = false;
    let tunnelled = false;
    const refuse = (reason: string): void => {
      if (answered) return;
      answered = true;
      logger.warn('proxy forwarder: tunnel refused', { ...fields, reason });
      client.end(`HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n${reason}`);
      upstreamSocket.destroy();
    };
    upstreamSocket.on('timeout', () => refuse(`no answer from the upstream proxy within ${timeoutMs} ms`));
    upstreamSocket.on('error', (error) => {
      if (!answered) refuse(`The upstream proxy could not be reached: ${error.message}`);
      else if (tunnelled) client.destroy();
    });
    // The upstream hanging up before it answered the CONNECT is a refusal too, never a hang.
    upstreamSocket.on('close', () => {
      // (A refused client is left to flush its 502; an open tunnel is ended by the pipe, flushing what is buffered.)
      if (!answered) refuse('The upstream proxy closed the connection without answering');
    });
    client.on('close', () => upstreamSocket.destroy());
    upstreamSocket.once('connect', () => {
      upstreamSocket.write(
        `CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\nProxy-Authorization: ${authorization}\r\n\r\n`,
      );
    });
    let received = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) {
        if (received.length > MAX_CONNECT_HEAD) refuse('The upstream proxy sent an oversized answer to CONNECT');
        return;
      }
      upstreamSocket.off('data', onData);
      const statusLine = received.subarray(0, received.indexOf('\r\n')).toString('latin1');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
      if (status < 200 || status > 299) {
        refuse(status ? refusedReason(status) : 'The upstream proxy sent a malformed answer to CONNECT');
        return;
      }
      answered = true;
      tunnelled = true;
      upstreamSocket.setTimeout(0);
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      const rest = received.subarray(end + 4);
      if (rest.length > 0) client.write(rest);
      if (head.length > 0) upstreamSocket.write(head);
      upstreamSocket.pipe(client);
      client.pipe(upstreamSocket);
    };
    upstreamSocket.on('data', onData);
  };

  const server = createServer(onRequest);
  server.on('connect', onConnect);
  server.on('connection', (socket: Socket) => {
    if (closed) socket.destroy();
    else {
      track(socket);
      void admitted(socket);
    }
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    port,
    server: `http://127.0.0.1:${port}`,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        closed = true;
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
        sockets.clear();
        agent.destroy();
      });
      return closing;
    },
  };
}
