import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { CdpTarget } from '../engine/sessions/sessionService.ts';

const CDP_PATH = /^\/devtools\/browser\/([A-Za-z0-9_-]{1,200})$/;

function refuse(socket: Duplex, status: string, detail: string): void {
  const body = JSON.stringify({ detail });
  socket.end(
    `HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/** What the proxy checks before a token is even looked up (see installCdpProxy). */
export interface CdpProxyChecks {
  /** Why this Host header is refused (the route guard's rule, api/hostGuard.ts), or undefined. */
  hostProblem(host: string | undefined): string | undefined;
  /** Browser origins (scheme://host[:port]) the operator trusts to open a CDP URL (settings `cdp_allowed_origins`). */
  allowedOrigins(): readonly string[];
}

/**
 * Serves session CDP URLs (`ws://<this server>/devtools/browser/<token>`): a WebSocket upgrade with
 * the token of an active session becomes a guarded CDP channel of that session's own browser (over
 * its pipe; no browser has a TCP endpoint). Like every route it checks Host (DNS rebinding), and it
 * refuses upgrades carrying a browser `Origin` unless the operator trusts that origin: scripts
 * (Playwright, Puppeteer) send none, a web page always does. Anything else is refused and closed.
 */
export function installCdpProxy(
  server: Server,
  resolve: (token: string) => CdpTarget | undefined,
  checks: CdpProxyChecks,
): CdpProxy {
  // Upgraded sockets are no longer the HTTP server's: it would wait for them at close. They are ours to end.
  const upgraded = new Set<Duplex>();
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    upgraded.add(socket);
    socket.once('close', () => upgraded.delete(socket));
    socket.on('error', () => socket.destroy());
    const hostProblem = checks.hostProblem(request.headers.host);
    if (hostProblem !== undefined) return refuse(socket, '403 Forbidden', hostProblem);
    const origin = request.headers.origin;
    if (origin !== undefined && !checks.allowedOrigins().includes(origin.toLowerCase())) {
      return refuse(
        socket,
        '403 Forbidden',
        `Origin '${origin}' may not open a CDP URL: add it to cdp_allowed_origins in the settings to trust that page`,
      );
    }
    const path = (request.url ?? '').split('?')[0] ?? '';
    const token = CDP_PATH.exec(path)?.[1];
    const target = token === undefined ? undefined : resolve(token);
    if (!target || request.method !== 'GET') return refuse(socket, '404 Not Found', 'Session not found');
    target.accept(request, socket, head);
  });
  return {
    disconnectAll: () => {
      for (const socket of upgraded) socket.destroy();
      upgraded.clear();
    },
  };
}

/** The installed proxy: `disconnectAll()` ends every client's CDP connection (the server is closing). */
export interface CdpProxy {
  disconnectAll(): void;
}
