import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const START_CACHES = fileURLToPath(new URL('../../src-main/base/startCaches.mjs', import.meta.url));
const SERVE_ENTRY = fileURLToPath(new URL('../../scripts/serve.mjs', import.meta.url));
const APP = fileURLToPath(new URL('../../src-main/app.ts', import.meta.url));

const root = mkdtempSync(join(tmpdir(), 'portico-start-caches-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// A TypeScript module loaded the way scripts/serve.mjs loads src-main/serve.ts: caches on, then import.
writeFileSync(join(root, 'package.json'), '{"type":"module"}');
const entry = join(root, 'entry.mjs');
writeFileSync(
  entry,
  `import { enableStartCaches } from ${JSON.stringify(START_CACHES)};
enableStartCaches();
const { answer } = await import('./answer.ts');
// Node's type stripper is loaded only if some .ts file was stripped in this process.
const stripper = process.moduleLoadList.some((name) => name.includes('amaro'));
process.stdout.write(JSON.stringify({ answer: answer(), stripper }));
`,
);

function run(cacheDir: string): { answer: string; stripper: boolean } {
  const result = spawnSync(process.execPath, [entry], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NODE_COMPILE_CACHE: cacheDir },
  });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return JSON.parse(result.stdout);
}

function writeAnswer(text: string): void {
  writeFileSync(
    join(root, 'answer.ts'),
    `export function answer(): string {\n  const value: string = '${text}';\n  return value;\n}\n`,
  );
}

describe('start caches: stripped TypeScript is kept by source hash, so a warm start never loads the stripper', () => {
  it('the first start strips and keeps the text; the next one runs it without stripping; an edit is stripped again', () => {
    const cacheDir = join(root, 'cache-a');
    writeAnswer('first');
    expect(run(cacheDir)).toEqual({ answer: 'first', stripper: true });
    const kept = readdirSync(cacheDir, { recursive: true }).filter((name) => String(name).endsWith('.js'));
    expect(kept).toHaveLength(1);
    expect(run(cacheDir)).toEqual({ answer: 'first', stripper: false });
    writeAnswer('second');
    expect(run(cacheDir)).toEqual({ answer: 'second', stripper: true });
    expect(run(cacheDir)).toEqual({ answer: 'second', stripper: false });
  });

  it('a cache folder other users may write is not used: every start strips again', () => {
    const cacheDir = join(root, 'cache-b');
    writeAnswer('shared');
    expect(run(cacheDir)).toEqual({ answer: 'shared', stripper: true });
    const [versionDir] = readdirSync(cacheDir);
    chmodSync(join(cacheDir, String(versionDir), 'portico-stripped-ts'), 0o777);
    expect(run(cacheDir)).toEqual({ answer: 'shared', stripper: true });
  });

  it('scripts/serve.mjs, the entry of npm run serve, turns the caches on before the first TypeScript module', () => {
    const result = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', `await import(${JSON.stringify(SERVE_ENTRY)})`],
      {
        encoding: 'utf8',
        env: { ...process.env, NODE_COMPILE_CACHE: join(root, 'cache-c'), PORTICO_JOB_CONCURRENCY: 'abc' },
      },
    );
    // It stops at the bad variable (nothing is started), having cached the modules it loaded on the way.
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('PORTICO_JOB_CONCURRENCY');
    const kept = readdirSync(join(root, 'cache-c'), { recursive: true }).filter((name) => String(name).endsWith('.js'));
    expect(kept.length).toBeGreaterThan(3);
  });

  it('importing the app loads no playwright-core: it is loaded at the first browser call (browser/lazyChromium.ts)', () => {
    const script = `await import(${JSON.stringify(APP)});
const { createRequire } = await import('node:module');
const cache = createRequire(import.meta.url).cache;
// Its package.json is read for the version browser hosts must match: not the library.
process.stdout.write(JSON.stringify(Object.keys(cache).filter((file) => file.includes('playwright-core') && !file.endsWith('package.json'))));`;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([]);
  });
});
