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

/** Why a Host header is refused (undefined: it names this server); `extraNames` are the operator's --allow-host names. */
export function hostChecker(
  boundHost: string,
  extraNames: readonly string[] = [],
): (host: string | undefined) => string | undefined {
  const allowed = allowedHostNames(boundHost);
  for (const name of extraNames) allowed.add(name.toLowerCase());
  return (host) => {
    const answersTo = `this server answers only to ${[...allowed].join(', ')}`;
    if (host === undefined) return `Missing Host header: ${answersTo}`;
    const hostname = hostnameOf(host);
    if (hostname !== undefined && allowed.has(hostname)) return undefined;
    return `Host '${host}' is not allowed: ${answersTo}`;
  };
}

/** A name that answers only under one path (the sample site's own name, which Portico's browsers may reach). */
export interface SiteHost {
  hostname: string;
  pathPrefix: string;
}

/**
 * Refuses requests whose Host is not a name of this server, so a web page cannot reach the local API
 * through DNS rebinding. `extraNames` lets an operator who binds 0.0.0.0 name the hosts to accept;
 * `sites` are names accepted only for their own path.
 */
export function installHostGuard(
  app: FastifyInstance,
  boundHost: string,
  extraNames: readonly string[] = [],
  sites: readonly SiteHost[] = [],
): void {
  const problem = hostChecker(boundHost, extraNames);
  // Clients send the same few Host headers again and again: each one's hostname and verdict, worked out once.
  const verdicts = new Map<string, { hostname: string | undefined; why: string | undefined }>();
  const verdictOf = (host: string) => {
    let verdict = verdicts.get(host);
    if (verdict === undefined) {
      verdict = { hostname: hostnameOf(host), why: problem(host) };
      if (verdicts.size >= 256) verdicts.clear();
      verdicts.set(host, verdict);
    }
    return verdict;
  };
  // A callback hook, not an async one: no promise per request.
  app.addHook('onRequest', (request, _reply, done) => {
    const host = request.headers.host;
    const verdict = host === undefined ? { hostname: undefined, why: problem(undefined) } : verdictOf(host);
    // The matched route's pattern, not the raw URL: `/samples/../admin` is not under `/samples/`.
    const route = request.routeOptions.url ?? '';
    if (sites.some((site) => site.hostname === verdict.hostname && route.startsWith(site.pathPrefix))) return done();
    // Node's own check would answer an empty 400 (server.ts turns it off so this one answers with {detail}).
    if (verdict.why === undefined) return done();
    done(host === undefined ? new BadRequestError(verdict.why) : new ForbiddenError(verdict.why));
  });
}
