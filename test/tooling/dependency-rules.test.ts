import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cruise as cruiseTree, type ICruiseOptions } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';

// The import rules of docs/architecture.md as dependency-cruiser runs them (`npm run check:imports`,
// a step of `npm test`): each fixture tree is cruised with the project's own .dependency-cruiser.cjs,
// through dependency-cruiser's API in this process (a CLI process per tree spent its time starting
// Node and loading the parser); the last test runs the CLI exactly as `npm run check:imports` does.
const repoRoot = join(import.meta.dirname, '..', '..');
const depcruise = join(repoRoot, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruiser.mjs');
const config = join(repoRoot, '.dependency-cruiser.cjs');
const knownViolationsFile = join(repoRoot, '.dependency-cruiser-known-violations.json');

interface Violation {
  rule: string;
  from: string;
  to: string;
}

/** `  error folder-store: src-main/store/jobs.ts → src-main/engine/jobQueue.ts` → its parts. */
function parseViolations(stdout: string): Violation[] {
  return [...stdout.matchAll(/^\s*error ([\w-]+): (\S+) → (\S+)$/gm)].map(([, rule = '', from = '', to = '']) => ({
    rule,
    from,
    // npm packages resolve through the fixture's node_modules link; keep the package-relative part.
    to: to.replace(/^.*?node_modules\//, 'node_modules/'),
  }));
}

/** `node_modules/@scope/name/lib/x.js` → `@scope/name`. */
function packageOf(resolved: string): string {
  const [first = '', second = ''] = resolved.replace(/^node_modules\//, '').split('/');
  return first.startsWith('@') ? `${first}/${second}` : first;
}

let options: ICruiseOptions;

/** `depcruise --config .dependency-cruiser.cjs --output-type err src-main src-preload src-renderer` run in `root`. */
async function cruise(root: string) {
  const result = await cruiseTree(['src-main', 'src-preload', 'src-renderer'], {
    ...options,
    baseDir: root,
    outputType: 'err',
  });
  const output = String(result.output);
  return { status: result.exitCode, violations: parseViolations(output), output };
}

function writeTree(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

describe('the import rules (.dependency-cruiser.cjs)', () => {
  beforeAll(async () => {
    options = await extractDepcruiseOptions(config);
  });
  const roots: string[] = [];
  /** A project tree with the real package.json and node_modules, so npm imports resolve as in the repo. */
  const tempTree = (files: Record<string, string>): string => {
    const root = mkdtempSync(join(tmpdir(), 'portico-imports-'));
    roots.push(root);
    copyFileSync(join(repoRoot, 'package.json'), join(root, 'package.json'));
    symlinkSync(join(repoRoot, 'node_modules'), join(root, 'node_modules'), 'dir');
    writeTree(root, {
      'src-preload/bridge.ts': 'export const bridge = 1;\n',
      'src-renderer/main.tsx': 'export {};\n',
      ...files,
    });
    return root;
  };
  afterEach(() => {
    for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
  });

  it('fails on a store file importing the engine, naming the rule, the file and the target', async () => {
    const root = tempTree({
      'src-main/engine/jobQueue.ts': 'export const jobQueue = 1;\n',
      'src-main/store/jobs.ts':
        "import { z } from 'zod';\n\nimport { jobQueue } from '../engine/jobQueue.ts';\nexport const x = [z, jobQueue];\n",
    });
    const { status, violations, output } = await cruise(root);
    expect(status).not.toBe(0);
    expect(violations).toEqual([
      { rule: 'folder-store', from: 'src-main/store/jobs.ts', to: 'src-main/engine/jobQueue.ts' },
    ]);
    expect(output).toContain('1 dependency violations');
  });

  it('passes a tree that keeps to the table, with .ts specifiers, type imports and imports only in comments', async () => {
    const root = tempTree({
      'src-main/contract/portal.ts':
        "import { z } from 'zod';\nexport const Portal = z.object({});\nexport type PortalT = z.infer<typeof Portal>;\n",
      'src-main/base/ids.ts':
        "// import { x } from '../engine/x.ts';\n/* import('../store/y.ts') */\nexport const glob = '**/*.ts';\nexport const text = \"import '../engine/x.ts'\";\n",
      'src-main/store/database.ts':
        "import Database from 'better-sqlite3';\nimport { glob } from '../base/ids.ts';\nexport const open = () => new Database(glob);\n",
      'src-main/browser/runtime.ts':
        "import { chromium } from 'playwright-core';\nexport const launch = () => chromium;\n",
      'src-main/agent/agentTypes.ts':
        "import type { Page } from 'playwright-core';\nimport { type BrowserContext } from 'playwright-core';\nexport type Ctx = { page: Page; context: BrowserContext };\n",
      'src-main/llm/openaiClient.ts':
        "import OpenAI from 'openai';\nexport const client = () => new OpenAI({ apiKey: 'k' });\n",
      'src-main/desktop/tray.ts': "import { Tray } from 'electron';\nexport { Tray };\n",
      'src-main/index.ts':
        "import { app } from 'electron';\nimport { Tray } from './desktop/tray.ts';\nexport { app, Tray };\n",
      'src-preload/index.ts':
        "import { contextBridge } from 'electron';\nimport type { PortalT } from '../src-main/contract/portal.ts';\nexport type { PortalT };\nexport { contextBridge };\n",
      'src-renderer/App.tsx':
        "import type { PortalT } from '../src-main/contract/portal.ts';\nimport { create } from 'zustand';\nimport { useState } from 'react';\nexport const x: [PortalT?, unknown?, unknown?] = [undefined, create, useState];\n",
    });
    const { status, violations, output } = await cruise(root);
    expect(violations).toEqual([]);
    expect(status, output).toBe(0);
  });

  it('keeps electron to desktop/, index.ts and src-preload/, static, re-exported or dynamic', async () => {
    const root = tempTree({
      'src-main/api/server.ts': "export { app } from 'electron';\n",
      'src-main/desktop/tray.ts': "import { Tray } from 'electron';\nexport { Tray };\n",
      'src-main/index.ts': "import { app } from 'electron';\nexport { app };\n",
      'src-main/serve.ts': "const electron = await import('electron');\nexport { electron };\n",
      'src-preload/index.ts': "import { contextBridge } from 'electron';\nexport { contextBridge };\n",
    });
    const { status, violations } = await cruise(root);
    expect(status).not.toBe(0);
    expect(
      violations
        .filter((v) => v.rule === 'electron-only-in-hosts')
        .map((v) => v.from)
        .sort(),
    ).toEqual(['src-main/api/server.ts', 'src-main/serve.ts']);
  });

  it('keeps the renderer to contract types, its own packages and away from Node builtins', async () => {
    const root = tempTree({
      'src-main/contract/portal.ts': "import { z } from 'zod';\nexport const Portal = z.object({});\n",
      'src-main/engine/jobs.ts': 'export const jobs = 1;\n',
      'src-renderer/ok.tsx':
        "import type { Portal } from '../src-main/contract/portal.ts';\nimport { create } from 'zustand';\nexport const x: [typeof Portal?, unknown?] = [undefined, create];\n",
      'src-renderer/bad.tsx':
        "import { Portal } from '../src-main/contract/portal.ts';\nimport { readFileSync } from 'node:fs';\nimport { jobs } from '../src-main/engine/jobs.ts';\nimport { z } from 'zod';\nexport const x = [Portal, readFileSync, jobs, z];\n",
    });
    const { status, violations } = await cruise(root);
    expect(status).not.toBe(0);
    expect(violations.map((v) => `${v.from} ${v.rule}`).sort()).toEqual([
      'src-renderer/bad.tsx renderer-contract-types-only',
      'src-renderer/bad.tsx renderer-no-node-builtins',
      'src-renderer/bad.tsx renderer-only-contract',
      'src-renderer/bad.tsx renderer-own-packages-only',
    ]);
  });

  it('lets the renderer use the typed API client as a value only while the client holds no schemas', async () => {
    const root = tempTree({
      'src-main/contract/portal.ts': "import { z } from 'zod';\nexport const Portal = z.object({});\n",
      'src-main/contract/generated/operationRoutes.ts':
        "export const operationRoutes = { listPortals: ['GET', '/portals'] } as const;\n",
      'src-main/contract/client.ts':
        "import type { z } from 'zod';\nimport { operationRoutes } from './generated/operationRoutes.ts';\nimport { Portal } from './portal.ts';\nexport const client = [operationRoutes, Portal] as unknown as z.ZodType;\n",
      'src-renderer/api.ts': "import { client } from '../src-main/contract/client.ts';\nexport { client };\n",
    });
    const { status, violations } = await cruise(root);
    expect(status).not.toBe(0);
    expect(violations).toEqual([
      {
        rule: 'renderer-runtime-contract-types-only',
        from: 'src-main/contract/client.ts',
        to: 'src-main/contract/portal.ts',
      },
    ]);
  });

  it('lets only the owning folder import model SDKs, SQLite, the keychain, Fastify and Playwright', async () => {
    const root = tempTree({
      'src-main/engine/providerCheck.ts': "import OpenAI from 'openai';\nexport { OpenAI };\n",
      'src-main/agent/modelAgent.ts':
        "import Anthropic from '@anthropic-ai/sdk';\nimport { chromium } from 'playwright-core';\nexport { Anthropic, chromium };\n",
      'src-main/engine/jobs.ts':
        "import Database from 'better-sqlite3';\nimport { Entry } from '@napi-rs/keyring';\nexport { Database, Entry };\n",
      'src-main/webhooks/server.ts':
        "import type { FastifyInstance } from 'fastify';\nimport multipart from '@fastify/multipart';\nexport type F = FastifyInstance;\nexport { multipart };\n",
      'src-main/store/ajv.ts': "import Ajv from 'ajv';\nexport { Ajv };\n",
    });
    const { status, violations } = await cruise(root);
    expect(status).not.toBe(0);
    expect(violations.map((v) => `${v.from} ${v.rule} ${packageOf(v.to)}`).sort()).toEqual([
      'src-main/agent/modelAgent.ts model-sdks-only-in-llm @anthropic-ai/sdk',
      'src-main/agent/modelAgent.ts playwright-only-in-browser-types-only playwright-core',
      'src-main/engine/jobs.ts keyring-only-in-secrets @napi-rs/keyring',
      'src-main/engine/jobs.ts sqlite-only-in-store better-sqlite3',
      'src-main/engine/providerCheck.ts model-sdks-only-in-llm openai',
      'src-main/store/ajv.ts ajv-only-in-json-schema-service ajv',
      'src-main/webhooks/server.ts fastify-only-in-api @fastify/multipart',
      'src-main/webhooks/server.ts fastify-only-in-api fastify',
    ]);
  });

  it('fails on a src-main folder missing from the table and on an import that does not resolve', async () => {
    const root = tempTree({
      'src-main/plugins/loader.ts': "import { x } from './missing.ts';\nexport { x };\n",
    });
    const { status, violations } = await cruise(root);
    expect(status).not.toBe(0);
    expect(violations.map((v) => v.rule).sort()).toEqual(['folder-not-in-table', 'not-to-unresolvable']);
  });

  it('passes on the real repository, and every known violation it tolerates still exists', async () => {
    const known = JSON.parse(readFileSync(knownViolationsFile, 'utf8')) as { from: string; rule: { name: string } }[];
    const strict = await cruise(repoRoot);
    const stillThere = (entry: { from: string; rule: { name: string } }) =>
      strict.violations.some((v) => v.from === entry.from && v.rule === entry.rule.name);
    expect(known.filter((entry) => !stillThere(entry))).toEqual([]);

    // Exactly what `npm run check:imports` (and so `npm test`) runs.
    const scripts = (
      JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    const [command, ...args] = (scripts['check:imports'] ?? '').split(' ');
    expect(command).toBe('depcruise');
    const result = spawnSync(process.execPath, [depcruise, ...args], { cwd: repoRoot, encoding: 'utf8' });
    expect(parseViolations(result.stdout)).toEqual([]);
    expect(result.status, result.stdout + result.stderr).toBe(0);
  });
});
