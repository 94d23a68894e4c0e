import type { IncomingMessage, Server } from 'node:http';
import { connect } from 'node:net';
import type { Duplex } from 'node:stream';
import type { CdpTarget } from '../engine/sessions/sessionService.ts';

const CDP_PATH = /^\/devtools\/browser\/([A-Za-z0-9_-]{1,200})$/;

// Hop-by-hop and identifying headers the browser must not see from the client: the upstream is always loopback.
const DROPPED = new Set(['host', 'origin', 'x-api-key', 'x-console-token', 'cookie']);

function refuse(socket: Duplex, status: string): void {
  socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${'{"detail":"Session not found"}'.length}\r\n\r\n{"detail":"Session not found"}`);
}

/**
 * Serves session CDP URLs (`ws://<this server>/devtools/browser/<token>`): a WebSocket upgrade with
 * the token of an active session is spliced, bytes as they are, onto that session's own browser;
 * any other upgrade is refused with 404 and the socket closed.
 */
export function installCdpProxy(server: Server, resolve: (token: string) => CdpTarget | undefined): void {
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const path = (request.url ?? '').split('?')[0] ?? '';
    const token = CDP_PATH.exec(path)?.[1];
    const target = token === undefined ? undefined : resolve(token);
    if (!target || request.method !== 'GET') {
      refuse(socket, '404 Not Found');
      return;
    }
    const upstream = connect(target.port, '127.0.0.1');
    target.adopt(socket);
    target.adopt(upstream);
    const closeBoth = (): void => {
      socket.destroy();
      upstream.destroy();
    };
    upstream.on('error', closeBoth);
    socket.on('close', closeBoth);
    upstream.on('close', closeBoth);
    upstream.once('connect', () => {
      const lines = [`GET ${target.path} HTTP/1.1`, `Host: 127.0.0.1:${target.port}`];
      for (let i = 0; i + 1 < request.rawHeaders.length; i += 2) {
        const name = request.rawHeaders[i] ?? '';
        if (!DROPPED.has(name.toLowerCase())) lines.push(`${name}: ${request.rawHeaders[i + 1] ?? ''}`);
      }
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length > 0) upstream.write(head);
      socket.pipe(upstream);
      upstream.pipe(socket);
    });
  });
}
