import type { Readable, Writable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { INSTRUCTIONS } from './mcpServer.ts';
import { isUnreachable, serviceNotRunning } from './porticoApi.ts';
import { porticoTools } from './tools.ts';

export const DEFAULT_PORTICO_URL = 'http://127.0.0.1:8787';

/** How long one tool call may run: a job can wait on a slow portal for long; progress resets nothing here. */
const TOOL_CALL_TIMEOUT_MS = 24 * 60 * 60 * 1000;

export interface StdioMcpOptions {
  /** PORTICO_URL: where the service runs. */
  serviceUrl: string;
  /** PORTICO_API_KEY: an organization or account key. */
  apiKey: string | undefined;
  version: string;
  stdin?: Readable;
  stdout?: Writable;
}

/** Checks PORTICO_URL: an http(s) URL, else a message naming the variable. */
export function parseServiceUrl(value: string | undefined): string {
  const text = value?.trim() || DEFAULT_PORTICO_URL;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(
      `PORTICO_URL must be the service's http(s) address such as ${DEFAULT_PORTICO_URL}; got '${text.slice(0, 200)}'`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(
      `PORTICO_URL must be an http(s) address such as ${DEFAULT_PORTICO_URL}; got '${text.slice(0, 200)}'`,
    );
  return url.origin;
}

const errorResult = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });

/** The `{detail}` a refused /mcp request carried, else the error's own message. */
function remoteFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const detail = /\{"detail":.*\}/.exec(message)?.[0];
  if (detail) {
    try {
      const status = error instanceof StreamableHTTPError && error.code !== undefined ? `${error.code}: ` : '';
      return `Portico refused the request (${status}${(JSON.parse(detail) as { detail: string }).detail})`;
    } catch {
      return message;
    }
  }
  return message;
}

/** Every tool as listed when the service cannot be asked which ones the key gets: each call then says why. */
function offlineTools(): Tool[] {
  return porticoTools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
  }));
}

/**
 * `portico mcp`: an MCP server on stdio that is a client of the running service. It forwards tool listing and
 * calls to the service's `POST /mcp` with the key (so the service decides which tools the key gets and runs
 * them against its own HTTP API); it never opens the data folder. Progress notifications are passed on.
 */
export async function runStdioMcpServer(options: StdioMcpOptions): Promise<void> {
  const endpoint = new URL('/mcp', options.serviceUrl);
  let remote: Promise<Client> | undefined;
  const connect = (): Promise<Client> => {
    remote ??= (async () => {
      const client = new Client({ name: 'portico-stdio', version: options.version });
      const transport = new StreamableHTTPClientTransport(endpoint, {
        requestInit: { headers: { 'x-api-key': options.apiKey ?? '' } },
      });
      await client.connect(transport);
      return client;
    })();
    // A failed connect is retried on the next request: the service may have been started since.
    remote.catch(() => {
      remote = undefined;
    });
    return remote;
  };
  const missingKey =
    'PORTICO_API_KEY is not set: give this MCP server an organization key (portal and job tools) or an account key (session, action and credential tools), e.g. `claude mcp add portico --env PORTICO_API_KEY=pk_org_… -- npx portico mcp`';

  const server = new Server(
    { name: 'portico', version: options.version },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    if (!options.apiKey) return { tools: offlineTools() };
    try {
      return await (await connect()).listTools();
    } catch {
      return { tools: offlineTools() };
    }
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    if (!options.apiKey) return errorResult(missingKey);
    const progressToken = request.params._meta?.progressToken;
    // Progress notes are passed on in order, and all of them before the result.
    let forwarded = Promise.resolve();
    try {
      const client = await connect();
      const result = (await client.callTool(
        { name: request.params.name, arguments: request.params.arguments },
        undefined,
        {
          signal: extra.signal,
          timeout: TOOL_CALL_TIMEOUT_MS,
          onprogress:
            progressToken === undefined
              ? undefined
              : (progress) => {
                  forwarded = forwarded
                    .then(() =>
                      extra.sendNotification({
                        method: 'notifications/progress',
                        params: { ...progress, progressToken },
                      }),
                    )
                    .catch(() => undefined);
                },
        },
      )) as CallToolResult;
      await forwarded;
      return result;
    } catch (error) {
      if (isUnreachable(error)) {
        remote = undefined;
        return errorResult(serviceNotRunning(options.serviceUrl));
      }
      return errorResult(remoteFailure(error));
    }
  });

  const transport = new StdioServerTransport(options.stdin, options.stdout);
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  await server.connect(transport);
  (options.stdin ?? process.stdin).once('end', () => void server.close());
  await closed;
  const client = await remote?.catch(() => undefined);
  await client?.close();
}
