import { spawn } from 'node:child_process';
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

/** What `npm run serve` had loaded when it printed `listening on`. */
async function loadedAtListening(dataDir: string): Promise<{ urls: string[]; builtins: string[] }> {
  const child = spawn(
    process.execPath,
    [...SERVICE_NODE_FLAGS, '--import', probe, SERVE_ENTRY, '--port', '0', '--data-dir', dataDir],
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
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
  return JSON.parse(readFileSync(report, 'utf8'));
}

describe('start-up weight: what the service has loaded when it says `listening` (docs/performance.md)', () => {
  it('none of the modules loaded on first use, and not undici (an ES import of node:http loads it)', async () => {
    const dataDir = mkdtempSync(join(root, 'data-'));
    // The second start is the one measured: the first one made the data folder (migrations, samples).
    await loadedAtListening(dataDir);
    const { urls, builtins } = await loadedAtListening(dataDir);
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
    ];
    expect(lazy.filter((name) => packages.has(name))).toEqual([]);
    expect(builtins).toContain('NativeModule http');
    expect(builtins.filter((name) => name.includes('undici'))).toEqual([]);
  });
});
