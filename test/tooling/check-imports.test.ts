import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const repoRoot = join(import.meta.dirname, '..', '..');
const script = join(repoRoot, 'scripts', 'check-imports.mjs');

function runCheck(root: string) {
  const result = spawnSync(process.execPath, [script, '--root', root], { encoding: 'utf8' });
  return { status: result.status, lines: result.stdout.split('\n').filter((line) => line !== '') };
}

function writeTree(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

describe('scripts/check-imports.mjs', () => {
  const roots: string[] = [];
  const tempTree = (files: Record<string, string>): string => {
    const root = mkdtempSync(join(tmpdir(), 'portico-imports-'));
    roots.push(root);
    writeTree(root, files);
    return root;
  };
  afterEach(() => {
    for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
  });

  it('reports a store file importing the engine, with file, line and rule', () => {
    const root = tempTree({
      'src-main/engine/jobQueue.ts': 'export const jobQueue = 1;\n',
      'src-main/store/jobs.ts': "import { z } from 'zod';\n\nimport { jobQueue } from '../engine/jobQueue.ts';\n",
    });
    const { status, lines } = runCheck(root);
    expect(status).toBe(1);
    expect(lines).toEqual([
      'src-main/store/jobs.ts:3 imports ../engine/jobQueue.ts (src-main/store/ may import only itself, base/, contract/)',
    ]);
  });

  it('reports electron outside desktop/, index.ts and src-preload/', () => {
    const root = tempTree({
      'src-main/api/server.ts': "export { app } from 'electron';\n",
      'src-main/desktop/tray.ts': "import { Tray } from 'electron';\n",
      'src-main/index.ts': "import { app } from 'electron';\n",
      'src-main/serve.ts': "const electron = await import('electron');\n",
      'src-preload/index.ts': "import { contextBridge } from 'electron';\n",
    });
    const { status, lines } = runCheck(root);
    expect(status).toBe(1);
    expect(lines.map((line) => line.split(' ')[0])).toEqual(['src-main/api/server.ts:1', 'src-main/serve.ts:1']);
  });

  it('keeps the renderer to contract types and away from Node builtins', () => {
    const root = tempTree({
      'src-main/contract/portal.ts': "import { z } from 'zod';\nexport const Portal = z.object({});\n",
      'src-renderer/ok.tsx': "import type { Portal } from '../src-main/contract/portal.ts';\nimport { create } from 'zustand';\n",
      'src-renderer/bad.tsx': "import { Portal } from '../src-main/contract/portal.ts';\nimport { readFileSync } from 'node:fs';\n",
    });
    const { status, lines } = runCheck(root);
    expect(status).toBe(1);
    expect(lines.map((line) => line.split(' ')[0])).toEqual(['src-renderer/bad.tsx:1', 'src-renderer/bad.tsx:2']);
  });

  it('ignores imports inside comments', () => {
    const root = tempTree({
      'src-main/base/ids.ts': "// import { x } from '../engine/x.ts';\n/* import('../store/y.ts') */\nexport const ids = '**/*.ts';\n",
    });
    expect(runCheck(root)).toEqual({ status: 0, lines: [] });
  });

  it('passes on the real repository', () => {
    expect(runCheck(repoRoot)).toEqual({ status: 0, lines: [] });
  });
});
