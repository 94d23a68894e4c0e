import type { FastifyRequest } from 'fastify';

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
