import type { FastifyInstance } from 'fastify';
import { ForbiddenError } from '../base/errors.ts';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]', '::1'];

/** Host header names this server answers to: loopback names plus the bound host. */
export function allowedHostNames(boundHost: string): Set<string> {
  const names = new Set(LOOPBACK_NAMES);
  const bound = boundHost.includes(':') && !boundHost.startsWith('[') ? `[${boundHost}]` : boundHost;
  if (bound !== '0.0.0.0' && bound !== '[::]') names.add(bound.toLowerCase());
  return names;
}

function hostnameOf(hostHeader: string): string {
  const value = hostHeader.trim().toLowerCase();
  if (value.startsWith('[')) return value.slice(0, value.indexOf(']') + 1);
  const colon = value.lastIndexOf(':');
  return colon === -1 ? value : value.slice(0, colon);
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
    if (!host || !allowed.has(hostnameOf(host))) {
      throw new ForbiddenError(`Host '${host ?? ''}' is not allowed: this server answers only to ${[...allowed].join(', ')}`);
    }
  });
}
