import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { PorticoApi } from './porticoApi.ts';
import { toolError, toolsFor, type McpIdentity, type ToolContext, type ToolResult } from './tools.ts';

export interface PorticoMcpOptions {
  api: PorticoApi;
  identity: McpIdentity;
  /** The service's base URL, for error texts. */
  serviceUrl: string;
  version: string;
}

/** Tool instructions every client sees at initialize. */
export const INSTRUCTIONS =
  'Portico runs web errands in a local browser. With an organization key: list_portals, then run_job; when a job asks, relay the question and call answer_question. With an account key: create_session, run_action step by step, terminate_session.';

/** An MCP server offering the tools of the key's kind, each calling the Portico HTTP API through `api`. */
export function createPorticoMcpServer(options: PorticoMcpOptions): McpServer {
  const server = new McpServer({ name: 'portico', version: options.version }, { instructions: INSTRUCTIONS });
  for (const tool of toolsFor(options.identity.kind)) {
    server.registerTool(
      tool.name,
      { description: tool.description, inputSchema: tool.input },
      async (args: Record<string, unknown>, extra): Promise<ToolResult> => {
        const progressToken = extra._meta?.progressToken;
        let sent = 0;
        const ctx: ToolContext = {
          api: options.api,
          identity: options.identity,
          serviceUrl: options.serviceUrl,
          signal: extra.signal,
          async progress(message) {
            if (progressToken === undefined) return;
            sent += 1;
            await extra.sendNotification({
              method: 'notifications/progress',
              params: { progressToken, progress: sent, message },
            });
          },
        };
        try {
          return await tool.call(args, ctx);
        } catch (error) {
          return toolError(error, options.serviceUrl);
        }
      },
    );
  }
  return server;
}

/**
 * Answers one Streamable HTTP request statelessly: a fresh server and transport for this request only, closed
 * when its response is. `body` is the JSON body the web framework already read.
 */
export async function handleMcpHttpRequest(
  request: IncomingMessage,
  response: ServerResponse,
  body: unknown,
  options: PorticoMcpOptions,
): Promise<void> {
  const server = createPorticoMcpServer(options);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: false });
  response.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(request, response, body);
}
