// Page code in one place (issue 23, item 4): the engine is compiled without the DOM library and the
// page code without Node's types, so a DOM use outside src-main/agent/injected/ (or src-renderer/)
// fails to compile, and so does a Node use inside. `npm run typecheck` (scripts/typecheck.mjs, the
// typecheck step of `npm test`) runs both programs besides tsconfig.json.
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

import { describe, expect, it } from 'vitest';

import { inlinePageCode, judgeNodeProgram, parseErrors, runTsc } from '../../scripts/typecheck.mjs';

const root = join(import.meta.dirname, '../..');
const probes = 'test/fixtures/typecheck';

function sourcesUnder(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts'))
    .map((e) => relative(root, join(e.parentPath, e.name)).replaceAll('\\', '/'));
}

describe('two programs: page code (DOM, no Node) and the rest (Node, no DOM)', () => {
  it('a DOM use in engine code fails to compile under tsconfig.node.json', async () => {
    const { code, output } = await runTsc(`${probes}/tsconfig.node-probe.json`);
    expect(code).not.toBe(0);
    const errors = parseErrors(output).map((e) => e.text);
    expect(errors.some((e) => e.includes('domInEngine.ts(3,') && e.includes("'document'"))).toBe(true);
    expect(errors.some((e) => e.includes('domInEngine.ts(7,') && e.includes("'HTMLInputElement'"))).toBe(true);
    // The types Playwright's signatures name exist without members (types/opaque-dom.d.ts): no silent `any`.
    expect(errors.some((e) => e.includes('domInEngine.ts(12,') && e.includes("'getAttribute'"))).toBe(true);
  });

  it('a Node use in page code fails to compile under tsconfig.dom.json', async () => {
    const { code, output } = await runTsc(`${probes}/tsconfig.dom-probe.json`);
    expect(code).not.toBe(0);
    const text = parseErrors(output)
      .map((e) => e.text)
      .join('\n');
    expect(text).toMatch(/nodeInPageCode\.ts\(2,.*'node:fs'/);
    expect(text).toMatch(/nodeInPageCode\.ts\(5,.*'process'/);
  });

  it('the Node program holds every engine source and no page code but its DOM-free face', async () => {
    const { output } = await runTsc('tsconfig.node.json', ['--listFilesOnly']);
    const listed = new Set(
      output
        .split('\n')
        .map((line) => relative(root, line.trim()).replaceAll('\\', '/'))
        .filter((path) => path.startsWith('src-') || path.startsWith('types/')),
    );
    expect(listed.has('types/opaque-dom.d.ts')).toBe(true);
    const engine = [...sourcesUnder('src-main'), ...sourcesUnder('src-preload')].filter(
      (path) => !path.startsWith('src-main/agent/injected/'),
    );
    expect(engine.filter((path) => !listed.has(path))).toEqual([]);
    // From injected/ only what names no DOM type: index.ts, the signatures, the shared types, the built texts.
    expect([...listed].filter((path) => path.startsWith('src-main/agent/injected/')).sort()).toEqual([
      'src-main/agent/injected/generated/scripts.ts',
      'src-main/agent/injected/index.ts',
      'src-main/agent/injected/scanTypes.ts',
      'src-main/agent/injected/signatures.ts',
    ]);
    expect([...listed].filter((path) => path.startsWith('src-renderer/'))).toEqual([]);
  });

  it('the DOM program holds all page code: every file of injected/ and the console', async () => {
    const { output } = await runTsc('tsconfig.dom.json', ['--listFilesOnly']);
    const listed = new Set(output.split('\n').map((line) => relative(root, line.trim()).replaceAll('\\', '/')));
    const page = [...sourcesUnder('src-main/agent/injected'), ...sourcesUnder('src-renderer')];
    expect(page.filter((path) => !listed.has(path))).toEqual([]);
  });

  it('no engine file holds inline page code: the list is empty and only shrinks (a listed file that compiles clean must leave it)', () => {
    expect(inlinePageCode).toEqual([]);
    const error = (file: string) => ({ file, text: `${file}(1,1): error TS2584: Cannot find name 'document'.` });
    expect(judgeNodeProgram([error('src-main/engine/new.ts')])).toEqual([
      "src-main/engine/new.ts(1,1): error TS2584: Cannot find name 'document'.",
    ]);
    const listed = ['src-main/engine/a.ts', 'src-main/engine/b.ts'];
    expect(judgeNodeProgram(listed.map(error), listed)).toEqual([]);
    expect(judgeNodeProgram([error('src-main/engine/b.ts')], listed)).toEqual([
      'src-main/engine/a.ts compiles without the DOM now: take it off inlinePageCode in scripts/typecheck.mjs',
    ]);
  });
});
