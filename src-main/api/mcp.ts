import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ForbiddenError, UnauthorizedError } from '../base/errors.ts';
import type { Logger } from '../base/logger.ts';
import { messages } from '../contract/messages.ts';
import { httpPorticoApi } from '../mcp/porticoApi.ts';
import type { McpIdentity } from '../mcp/tools.ts';
import type { ApiKeyRepository } from '../store/apiKeys.ts';
import { firstHeader, presentedKey } from './presentedKey.ts';

export interface McpEndpointDeps {
  apiKeys: ApiKeyRepository;
  logger: Logger;
  version: string;
}

/** 405 text for GET and DELETE: the endpoint keeps no sessions and pushes nothing outside a request. */
export const mcpStatelessOnly =
  'This MCP endpoint is stateless: POST each JSON-RPC message to /mcp (no GET stream, no session to delete)';

const LOOPBACK_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

const isLoopbackAddress = (address: string | undefined): boolean =>
  address !== undefined && (address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.'));

/** Loopback peers only, and a browser page only from a loopback origin (DNS rebinding, drive-by pages). */
function checkCaller(request: FastifyRequest): void {
  if (!isLoopbackAddress(request.socket.remoteAddress))
    throw new ForbiddenError('The MCP endpoint answers only on this machine (loopback)');
  const origin = firstHeader(request, 'origin');
  if (origin === undefined) return;
  let hostname: string | undefined;
  try {
    hostname = new URL(origin).hostname;
  } catch {
    hostname = undefined;
  }
  if (hostname === undefined || !LOOPBACK_HOSTNAMES.has(hostname))
    throw new ForbiddenError(`Origin '${origin.slice(0, 200)}' is not allowed to use the MCP endpoint`);
}

/** The URL this request reached the server at: the MCP tools call the HTTP API there with the same key. */
function ownUrl(request: FastifyRequest): string {
  const address = (request.socket.localAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
  const host = address.includes(':') ? `[${address}]` : address;
  return `http://${host}:${request.socket.localPort}`;
}

/**
 * `POST /mcp`: the MCP tools over Streamable HTTP, stateless (a server per request). Registered on Fastify
 * directly rather than in the route table: it speaks JSON-RPC (often as an event stream) to MCP clients, not a
 * contract operation (docs/decisions.md); its own refusals are still `{detail}`.
 */
export function installMcpEndpoint(app: FastifyInstance, deps: McpEndpointDeps): void {
  const authenticate = (request: FastifyRequest): { key: string; identity: McpIdentity } => {
    checkCaller(request);
    const key = presentedKey(request);
    const principal = key ? deps.apiKeys.authenticate(key) : undefined;
    if (!key || !principal) throw new UnauthorizedError(messages.invalidApiKey);
    return { key, identity: principal.kind === 'org' ? { kind: 'org', orgId: principal.orgId } : { kind: 'account' } };
  };

  app.post('/mcp', async (request, reply) => {
    const { key, identity } = authenticate(request);
    const serviceUrl = ownUrl(request);
    reply.hijack();
    try {
      // The MCP SDK is imported at the first MCP request, not at start (docs/performance.md).
      const { handleMcpHttpRequest } = await import('../mcp/mcpServer.ts');
      await handleMcpHttpRequest(request.raw, reply.raw, request.body, {
        api: httpPorticoApi({ baseUrl: serviceUrl, apiKey: key }),
        identity,
        serviceUrl,
        version: deps.version,
      });
    } catch (error) {
      deps.logger.error('mcp request failed', { error: error instanceof Error ? error.message : String(error) });
      if (!reply.raw.headersSent)
        reply.raw
          .writeHead(500, { 'content-type': 'application/json' })
          .end(JSON.stringify({ detail: messages.internal }));
      else reply.raw.end();
    }
  });
  const statelessOnly = async (request: FastifyRequest, reply: FastifyReply): Promise<never> => {
    authenticate(request);
    reply.header('allow', 'POST');
    throw new AppError(405, mcpStatelessOnly);
  };
  app.get('/mcp', statelessOnly);
  app.delete('/mcp', statelessOnly);
}
