import { spawn } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { SERVICE_NODE_FLAGS } from '../../scripts/serviceFlags.mjs';

const SERVE_ENTRY = fileURLToPath(new URL('../../scripts/serve.mjs', import.meta.url));

const root = mkdtempSync(join(tmpdir(), 'portico-start-weight-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// Loaded with --import before the service: notes every module resolved (ES modules and require() alike),
// and at the `listening on` line writes them and Node's own built-in modules loaded so far.
const probe = join(root, 'probe.mjs');
const report = join(root, 'loaded.json');
writeFileSync(
  probe,
  `import { registerHooks } from 'node:module';
import { writeFileSync } from 'node:fs';
const urls = new Set();
registerHooks({ resolve(specifier, context, next) { const resolved = next(specifier, context); urls.add(resolved.url); return resolved; } });
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, ...rest) => {
  if (String(chunk).includes('listening on'))
    writeFileSync(${JSON.stringify(report)}, JSON.stringify({ urls: [...urls], builtins: process.moduleLoadList }));
  return write(chunk, ...rest);
};
`,
);

interface Started {
  /** Where it listens. */
  url: string;
  /** What it wrote to stderr so far (the first start prints its API keys there). */
  stderr: () => string;
}

/**
 * What `npm run serve` had loaded when it printed `listening on`; `whileUp` runs right after that line,
 * before the service is stopped (what a first request finds).
 */
async function loadedAtListening(
  dataDir: string,
  port: number,
  whileUp: (started: Started) => Promise<void> = async () => {},
): Promise<{ urls: string[]; builtins: string[] }> {
  const child = spawn(
    process.execPath,
    [...SERVICE_NODE_FLAGS, '--import', probe, SERVE_ENTRY, '--port', String(port), '--data-dir', dataDir],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PORTICO_HEADLESS: '1' } },
  );
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('listening on')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`serve exited (${code}) before listening: ${err}`)));
    });
    const loaded = JSON.parse(readFileSync(report, 'utf8'));
    await whileUp({ url: /listening on (\S+)/.exec(out)?.[1] ?? '', stderr: () => err });
    return loaded;
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

describe('start-up weight: what the service has loaded when it says `listening` (docs/performance.md)', () => {
  it('none of the modules loaded on first use, and not undici (an ES import of node:http loads it); the first requests find them', async () => {
    const dataDir = mkdtempSync(join(root, 'data-'));
    // The second start is the one measured: the first one made the data folder (migrations, samples).
    // The same port for both, as a user's 8787: on a new port the samples are re-pointed, which compiles
    // their schemas (Ajv) before the `listening on` line.
    const port = await new Promise<number>((resolve) => {
      const probePort = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probePort.address() as AddressInfo;
        probePort.close(() => resolve(free));
      });
    });
    let orgKey = '';
    await loadedAtListening(dataDir, port, async ({ stderr }) => {
      orgKey = /Organization API key \(org 'default'\):\s+(\S+)/.exec(stderr())?.[1] ?? '';
    });
    expect(orgKey).not.toBe('');
    // What is loaded on first use answers the first requests, made the moment the service says `listening`.
    const firstRequests = async ({ url }: Started): Promise<void> => {
      const send = (path: string, init: RequestInit = {}) =>
        fetch(`${url}${path}`, {
          ...init,
          headers: { 'x-api-key': orgKey, 'content-type': 'application/json', ...init.headers },
        });
      const [openApi, created, refused] = await Promise.all([
        // The OpenAPI document, built at its first request.
        send('/openapi.json'),
        // A portal's form schema compiled by Ajv (loaded at the first schema), the answer written by
        // the route's serializer (Fastify's compiler, loaded at the first response).
        send('/portals/default', {
          method: 'POST',
          body: JSON.stringify({
            endpoint_name: 'first',
            start_url: 'https://example.test/',
            task: 't',
            form_schema: { type: 'object', properties: { email: { type: 'string', format: 'email' } } },
          }),
        }),
        send('/portals/default', {
          method: 'POST',
          body: JSON.stringify({
            endpoint_name: 'broken',
            start_url: 'https://example.test/',
            task: 't',
            form_schema: { type: 'object', properties: { n: { type: 'nonsense' } } },
          }),
        }),
      ]);
      expect(openApi.status).toBe(200);
      const document = (await openApi.json()) as { openapi: string; paths: Record<string, unknown> };
      expect(document.openapi).toMatch(/^3\./);
      expect(Object.keys(document.paths)).toContain('/portals/{org_id}');
      expect(created.status).toBe(200);
      expect(await created.json()).toMatchObject({ endpoint_name: 'first', form_schema: { type: 'object' } });
      expect(refused.status).toBe(422);
    };
    const { urls, builtins } = await loadedAtListening(dataDir, port, firstRequests);
    const packageOf = (url: string): string | undefined => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];
    const packages = new Set(urls.filter((url) => !url.endsWith('/package.json')).map(packageOf));
    expect(packages).toContain('fastify');
    const lazy = [
      'playwright-core',
      '@anthropic-ai/sdk',
      'openai',
      '@modelcontextprotocol/sdk',
      'yaml',
      'unpdf',
      'mammoth',
      'exceljs',
      'tesseract.js',
      '@napi-rs/canvas',
      '@napi-rs/keyring',
      'otplib',
      'yauzl',
      'yazl',
      // Form schemas' validator and Fastify's own schema compilers (api/server.ts, base/jsonSchema.ts).
      'ajv',
      'ajv-formats',
      'ajv-draft-04',
      '@fastify/ajv-compiler',
      '@fastify/fast-json-stringify-compiler',
    ];
    expect(lazy.filter((name) => packages.has(name))).toEqual([]);
    // The agents load at their first run (app.ts), the model's single actions at the first one (agent/actions).
    const lazySources = [
      'src-main/agent/autofill/index.ts',
      'src-main/agent/model/modelAgent.ts',
      'src-main/agent/actions/modelAction.ts',
      'src-main/agent/model/tools/index.ts',
    ];
    expect(lazySources.filter((file) => urls.some((url) => url.endsWith(file)))).toEqual([]);
    expect(urls.some((url) => url.endsWith('src-main/agent/actions/index.ts'))).toBe(true);
    expect(builtins).toContain('NativeModule http');
    expect(builtins.filter((name) => name.includes('undici'))).toEqual([]);
  });
});
