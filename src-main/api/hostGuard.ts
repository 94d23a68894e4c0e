import type { FastifyInstance } from 'fastify';
import { BadRequestError, ForbiddenError } from '../base/errors.ts';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]', '::1'];

/** Host header names this server answers to: loopback names plus the bound host. */
export function allowedHostNames(boundHost: string): Set<string> {
  const names = new Set(LOOPBACK_NAMES);
  const bound = boundHost.includes(':') && !boundHost.startsWith('[') ? `[${boundHost}]` : boundHost;
  if (bound !== '0.0.0.0' && bound !== '[::]') names.add(bound.toLowerCase());
  return names;
}

// RFC 9110 Host: a name or IPv4 address, or a bracketed IPv6 address, then an optional port of digits only.
const HOST_HEADER = /^(\[[0-9a-f:.]+\]|[a-z0-9._~-]+)(?::\d{1,5})?$/;

/** The hostname a Host header names, or undefined when it is not exactly `hostname[:port]` (`a:1@b`, `localhost:evil`). */
export function hostnameOf(hostHeader: string): string | undefined {
  return HOST_HEADER.exec(hostHeader.trim().toLowerCase())?.[1];
}

/**
 * Refuses requests whose Host is not a name of this server, so a web page cannot reach the local API
 * through DNS rebinding. `extraNames` lets an operator who binds 0.0.0.0 name the hosts to accept.
 */
export function installHostGuard(app: FastifyInstance, boundHost: string, extraNames: readonly string[] = []): void {
  const allowed = allowedHostNames(boundHost);
  for (const name of extraNames) allowed.add(name.toLowerCase());
  app.addHook('onRequest', async (request) => {
    const host = request.headers.host;
    // Node's own check would answer an empty 400 (server.ts turns it off so this one answers with {detail}).
    if (host === undefined) throw new BadRequestError(`Missing Host header: this server answers only to ${[...allowed].join(', ')}`);
    const hostname = hostnameOf(host);
    if (hostname === undefined || !allowed.has(hostname)) {
      throw new ForbiddenError(`Host '${host}' is not allowed: this server answers only to ${[...allowed].join(', ')}`);
    }
  });
}
