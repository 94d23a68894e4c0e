import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

// `npm run lint` (and `npm test` with PORTICO_LINT on) is `biome lint .` with the project's biome.json:
// each fixture tree gets that file and is linted as the repository is.
const repoRoot = join(import.meta.dirname, '..', '..');
const biome = join(repoRoot, 'node_modules', '.bin', 'biome');

function lint(root: string) {
  const result = spawnSync(biome, ['lint', '.', '--reporter=json'], { cwd: root, encoding: 'utf8' });
  const report = JSON.parse(result.stdout) as {
    diagnostics: { category: string; location?: { path?: string | { file: string } } }[];
  };
  const found = report.diagnostics.map((d) => {
    const path = d.location?.path;
    return `${typeof path === 'string' ? path : (path?.file ?? '?')} ${d.category}`;
  });
  return { status: result.status, found: [...new Set(found)].sort() };
}

describe('the lint rules (biome.json)', () => {
  const roots: string[] = [];
  const tempTree = (files: Record<string, string>): string => {
    const root = mkdtempSync(join(tmpdir(), 'portico-lint-'));
    roots.push(root);
    for (const name of ['biome.json', '.gitignore']) copyFileSync(join(repoRoot, name), join(root, name));
    symlinkSync(join(repoRoot, 'node_modules'), join(root, 'node_modules'), 'dir');
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    return root;
  };
  afterEach(() => {
    for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
  });

  it('fails on a hook called conditionally and on an effect that leaves out what it reads', () => {
    const component = [
      "import { useEffect, useState } from 'react';",
      '',
      'export function Card(props: { id: string; open: boolean }) {',
      '  if (props.open) {',
      '    const [count] = useState(0);',
      '    return <p>{count}</p>;',
      '  }',
      '  return <p>{props.id}</p>;',
      '}',
      '',
      'export function Title(props: { id: string }) {',
      '  useEffect(() => {',
      '    document.title = props.id;',
      '  }, []);',
      '  return null;',
      '}',
      '',
    ].join('\n');
    const root = tempTree({ 'src-renderer/Card.tsx': component });
    const { status, found } = lint(root);
    expect(status).not.toBe(0);
    expect(found).toEqual([
      'src-renderer/Card.tsx lint/correctness/useExhaustiveDependencies',
      'src-renderer/Card.tsx lint/correctness/useHookAtTopLevel',
    ]);
  });

  it('lint passes correct hooks in any layout; the formatter, a step of its own, refuses that layout and fixes it', () => {
    const component = [
      "import {useEffect,useState} from 'react'",
      'export function Title(props:{id:string}){',
      '      const [n,setN]=useState(0)',
      "  useEffect(()=>{ document.title=[props.id,n].join(' ') },[props.id,n])",
      '  return <button type="button" onClick={()=>setN(n+1)}>{n}</button>',
      '}',
      '',
    ].join('\n');
    const root = tempTree({ 'src-renderer/Title.tsx': component });
    expect(lint(root)).toEqual({ status: 0, found: [] });
    // `npm test` runs `biome format .` after lint: the same file fails it, and `--write` makes it pass.
    const format = (...args: string[]) => spawnSync(biome, ['format', ...args, '.'], { cwd: root, encoding: 'utf8' });
    expect(format().status).not.toBe(0);
    expect(format('--write').status).toBe(0);
    expect(format().status).toBe(0);
    const formatted = readFileSync(join(root, 'src-renderer/Title.tsx'), 'utf8');
    expect(formatted).toContain("import { useEffect, useState } from 'react';");
    expect(formatted).toContain('  const [n, setN] = useState(0);');
    expect(lint(root)).toEqual({ status: 0, found: [] });
    const config = JSON.parse(readFileSync(join(repoRoot, 'biome.json'), 'utf8')) as {
      formatter?: { enabled?: boolean };
    };
    expect(config.formatter?.enabled).toBe(true);
  });
});
