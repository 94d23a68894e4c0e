// What the MCP layer costs: a cached single action through `POST /mcp` (the SDK's Streamable HTTP client,
// tool `run_action`) vs the same request straight to POST /public/single-actions/run-action, in the same run,
// the same session and page. Runs alternate so machine load hits both alike; the overhead is the difference of
// the medians (a stateless MCP request builds a server and transport, then calls the HTTP API itself).
import { writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { median, startSessionBench } from './lib.ts';

const RUNS = Number(process.env.BENCH_MCP_RUNS ?? 60);
const TARGET_MS = 25;
const PAGE = '<!doctype html><title>Bench</title><h1>Draft</h1><button>Save</button>';

const round = (v: number): number => Math.round(v * 10) / 10;

async function main(): Promise<void> {
  const { app, pageUrl, accountKey: key, post, close } = await startSessionBench('mcp', PAGE);
  const client = new Client({ name: 'bench', version: '1' });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { requestInit: { headers: { 'x-api-key': key } } }),
    );
    const session = await post('/public/sessions', {});
    const sessionId = String(session.session_id);
    const body = { session_id: sessionId, action: 'click the Save button', id: 'bench-save' };
    await post('/public/single-actions/run-action', { session_id: sessionId, action: `go to ${pageUrl}` });
    await post('/public/single-actions/run-action', body);

    const viaMcp = async (): Promise<Record<string, unknown>> => {
      const result = await client.callTool({ name: 'run_action', arguments: body });
      const text = (result.content as { type: string; text?: string }[])[0]?.text ?? '{}';
      return JSON.parse(text) as Record<string, unknown>;
    };
    const mcp: number[] = [];
    const http: number[] = [];
    for (let i = 0; i <= RUNS; i += 1) {
      const t0 = performance.now();
      const fromMcp = await viaMcp();
      const t1 = performance.now();
      const fromHttp = await post('/public/single-actions/run-action', body);
      const t2 = performance.now();
      if (fromMcp.used_cache !== true || fromHttp.used_cache !== true)
        throw new Error(`run ${i} did not replay: ${JSON.stringify({ fromMcp, fromHttp })}`);
      if (i === 0) continue; // warm-up
      mcp.push(t1 - t0);
      http.push(t2 - t1);
    }
    const overhead = median(mcp) - median(http);
    const result = {
      bench: 'mcp',
      date: new Date().toISOString(),
      runs: RUNS,
      target: `a cached run_action through POST /mcp ≤ ${TARGET_MS} ms over the same HTTP call (difference of medians)`,
      mcp_ms: { median: round(median(mcp)) },
      http_ms: { median: round(median(http)) },
      overhead_ms_median: round(overhead),
      met: overhead <= TARGET_MS,
      machine: { cpus: cpus().length, platform: process.platform, loadavg: loadavg().map(round) },
    };
    await writeFile(join(import.meta.dirname, 'results', 'mcp.json'), `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(
      `${JSON.stringify({ mcp: result.mcp_ms, http: result.http_ms, overhead_ms: result.overhead_ms_median, met: result.met })}\n`,
    );
  } finally {
    await client.close();
    await close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
