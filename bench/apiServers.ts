// The two servers bench/api.bench.ts drives, each in its own process so the client (autocannon, in the
// bench's process) never shares an event loop with them:
//   node bench/apiServers.ts portico <dataDir>   Portico as `serve` runs it (no browsers), prints {url, key}
//   node bench/apiServers.ts bare <bodies.json>  a bare Fastify 5 server answering the same paths with the
//                                                same JSON (a route returning the parsed object), prints {url}
// One JSON line on stdout once listening; the process runs until killed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Fastify from 'fastify';

const [mode, arg] = process.argv.slice(2);

if (mode === 'portico') {
  const { startApp } = await import('../src-main/app.ts');
  const { readConfig } = await import('../src-main/base/config.ts');
  const { BENCH_LIMITS } = await import('./lib.ts');
  const notices: string[] = [];
  const app = await startApp({
    dataDir: String(arg),
    port: 0,
    rendererDir: join(String(arg), 'no-console'),
    notice: (line) => notices.push(line),
    warmBrowser: false,
    sessionPoolSize: 0,
    samples: false,
    announceConsole: false,
    limits: BENCH_LIMITS,
    config: readConfig(process.env),
  });
  const key = /Organization API key[^:]*:\s+(\S+)/.exec(notices.join('\n'))?.[1] ?? '';
  process.stdout.write(`${JSON.stringify({ url: app.url, key, pid: process.pid })}\n`);
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
} else if (mode === 'bare') {
  // What a user would write: a route per path returning the object; Fastify serializes it (JSON.stringify).
  const bodies = JSON.parse(readFileSync(String(arg), 'utf8')) as Record<string, unknown>;
  const app = Fastify({ logger: false });
  for (const [path, body] of Object.entries(bodies)) app.get(path, async () => body);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}`, pid: process.pid })}\n`);
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
} else {
  process.stderr.write('usage: node bench/apiServers.ts portico <dataDir> | bare <bodies.json>\n');
  process.exit(2);
}
