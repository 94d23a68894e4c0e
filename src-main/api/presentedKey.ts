import type { FastifyRequest } from 'fastify';
import { sha256Hex } from '../base/ids.ts';

/** A header's first value, trimmed; undefined when absent or blank. */
export function firstHeader(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first.trim() === '' ? undefined : first.trim();
}

/** The API key a request presents: `X-API-Key`, else `Authorization: Bearer <key>` (what MCP clients send). */
export function presentedKey(request: FastifyRequest): string | undefined {
  const key = firstHeader(request, 'x-api-key');
  if (key) return key;
  return /^Bearer\s+(\S+)$/i.exec(firstHeader(request, 'authorization') ?? '')?.[1];
}

/** The last key hashed for each request: the rate limiter and authentication hash the same key once. */
const hashed = new WeakMap<FastifyRequest, { key: string; hash: string }>();

/** SHA-256 (hex) of a key the request presents — what the database stores — computed once per request. */
export function keyHashFor(request: FastifyRequest, key: string): string {
  const seen = hashed.get(request);
  if (seen?.key === key) return seen.hash;
  const hash = sha256Hex(key);
  hashed.set(request, { key, hash });
  return hash;
}
