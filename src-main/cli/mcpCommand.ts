import { readFileSync } from 'node:fs';
import { parseServiceUrl, runStdioMcpServer } from '../mcp/stdioServer.ts';

/** Portico's version for the MCP handshake; read as data, since cli/ may not import the project root's modules. */
function porticoVersion(): string {
  try {
    const parsed = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version?: unknown;
    };
    return typeof parsed.version === 'string' ? parsed.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}

/**
 * `portico mcp`: the MCP server on stdio, a client of the running service (`PORTICO_URL`, `PORTICO_API_KEY`).
 * Runs until the assistant closes stdin; a bad PORTICO_URL is the one failure before that, as a message.
 */
export async function runMcpCommand(
  env: Readonly<Record<string, string | undefined>>,
  fail: (code: number, detail: string) => number,
): Promise<number> {
  let serviceUrl: string;
  try {
    serviceUrl = parseServiceUrl(env.PORTICO_URL);
  } catch (error) {
    return fail(1, error instanceof Error ? error.message : String(error));
  }
  await runStdioMcpServer({ serviceUrl, apiKey: env.PORTICO_API_KEY?.trim() || undefined, version: porticoVersion() });
  return 0;
}
