#!/usr/bin/env node
// Enforces the import table of docs/architecture.md: which folder may import which, and who may
// import `electron`. Usage: node scripts/check-imports.mjs [--root DIR]. Exit 1 on any violation.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** src-main folder → the other src-main folders it may import. Do not relax these rules. */
export const allowedFolders = {
  contract: [],
  base: ['contract'],
  store: ['base', 'contract'],
  secrets: ['base', 'contract'],
  browser: ['base', 'contract'],
  llm: ['base', 'contract', 'secrets'],
  agent: ['browser', 'llm', 'store', 'base', 'contract'],
  engine: ['agent', 'browser', 'store', 'secrets', 'base', 'contract', 'llm'],
  webhooks: ['engine', 'store', 'base', 'contract', 'secrets'],
  api: ['engine', 'store', 'contract', 'base', 'secrets', 'browser', 'webhooks'],
  cli: ['store', 'secrets', 'engine', 'base', 'contract', 'webhooks'],
  desktop: '*',
};

/** The only npm packages `src-main/contract/` may use: it is shared with the renderer. */
const contractPackages = ['zod'];

const scannedRoots = ['src-main', 'src-preload', 'src-renderer'];
const sourceFile = /\.(?:ts|tsx|mts|cts|js|mjs|cjs|jsx)$/;
const builtins = new Set(builtinModules.filter((name) => !name.startsWith('_')));

function isBuiltin(specifier) {
  return specifier.startsWith('node:') || builtins.has(specifier.split('/')[0]);
}

function isElectron(specifier) {
  return specifier === 'electron' || specifier.startsWith('electron/');
}

function packageName(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function listFiles(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : listFiles(path);
    return sourceFile.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

// Strips comments but keeps line breaks so reported line numbers stay right.
function stripComments(text) {
  // `(?<![*\w'"])` keeps globs such as '**/*.ts' from opening a comment; `[^:…]` keeps 'http://'.
  return text.replace(/(?<![*\w'"])\/\*[\s\S]*?\*\/|(^|[^:\\'"`])\/\/[^\n]*/gm, (match, lead) =>
    lead === undefined ? match.replace(/[^\n]/g, ' ') : lead,
  );
}

const importPatterns = [
  // import x from '…' · import type { X } from '…' · export { x } from '…' · export * from '…'
  /\b(import|export)(\s+type)?\s+(?:[\w*${}\s,]+?\s+from\s+)?['"]([^'"\n]+)['"]/g,
  // import('…') · require('…')
  /\b(import|require)()\s*\(\s*['"]([^'"\n]+)['"]\s*\)/g,
];

/** Every module specifier in `text`, with its line and whether the import is type-only. */
export function findImports(text) {
  const code = stripComments(text);
  const found = [];
  for (const pattern of importPatterns) {
    for (const match of code.matchAll(pattern)) {
      const line = code.slice(0, match.index).split('\n').length;
      found.push({ specifier: match[3], line, typeOnly: Boolean(match[2]) });
    }
  }
  return found.sort((a, b) => a.line - b.line);
}

/** Where a file sits in the layout: `{ area, folder }`, e.g. `{ area: 'src-main', folder: 'store' }`. */
function locate(relativePath) {
  const parts = relativePath.split(sep);
  const area = parts[0];
  if (area !== 'src-main') return { area, folder: undefined };
  return { area, folder: parts.length > 2 ? parts[1] : undefined };
}

/** The rule an import breaks, or undefined when it is allowed. */
function violation(from, specifier, typeOnly, root) {
  const source = locate(from);
  const topFile = source.area === 'src-main' && source.folder === undefined;

  if (isElectron(specifier)) {
    const allowed = source.folder === 'desktop' || from === join('src-main', 'index.ts') || source.area === 'src-preload';
    return allowed ? undefined : 'only src-main/desktop/, src-main/index.ts and src-preload/ may import electron';
  }

  if (!specifier.startsWith('.') && !specifier.startsWith('/')) {
    if (source.area === 'src-renderer' && isBuiltin(specifier)) return 'src-renderer/ runs in a browser: no Node builtins';
    if (source.folder === 'contract' && !contractPackages.includes(packageName(specifier))) {
      return 'src-main/contract/ may import zod only';
    }
    return undefined;
  }

  const target = relative(root, resolve(root, dirname(from), specifier));
  if (target.startsWith('..')) return 'imports outside the project';
  const dest = locate(target);

  if (source.area === 'src-renderer') {
    if (dest.area === 'src-renderer') return undefined;
    if (dest.area === 'src-main' && dest.folder === 'contract') {
      return typeOnly ? undefined : 'src-renderer/ may import src-main/contract types only (use `import type`)';
    }
    if (dest.area === 'src-preload' && typeOnly) return undefined;
    return 'src-renderer/ may import src-main/contract types only';
  }

  if (source.area === 'src-preload') {
    if (dest.area === 'src-preload') return undefined;
    if (dest.area === 'src-main' && dest.folder === 'contract' && typeOnly) return undefined;
    return 'src-preload/ may import electron and src-main/contract types only';
  }

  // From here on the importer is in src-main.
  // The composition roots (serve.ts, index.ts, app.ts, …) build everything and may import anything.
  if (topFile) return undefined;
  const rule = allowedFolders[source.folder];
  if (rule === undefined) return `src-main/${source.folder}/ is not in the import table (scripts/check-imports.mjs, docs/architecture.md)`;
  if (dest.area === 'src-main' && dest.folder === source.folder) return undefined;
  if (rule === '*') return dest.area === 'src-renderer' ? 'src-main/ may not import src-renderer/' : undefined;
  if (dest.area !== 'src-main' || dest.folder === undefined) {
    return `src-main/${source.folder}/ may import only ${describe(rule)}`;
  }
  return rule.includes(dest.folder) ? undefined : `src-main/${source.folder}/ may import only ${describe(rule)}`;
}

function describe(rule) {
  return rule.length === 0 ? 'itself' : `itself, ${rule.map((folder) => `${folder}/`).join(', ')}`;
}

/** All violations under `root`, as `{ file, line, specifier, rule }`. */
export function checkImports(root) {
  const violations = [];
  for (const area of scannedRoots) {
    for (const path of listFiles(join(root, area))) {
      const from = relative(root, path);
      for (const { specifier, line, typeOnly } of findImports(readFileSync(path, 'utf8'))) {
        const rule = violation(from, specifier, typeOnly, root);
        if (rule !== undefined) violations.push({ file: from.split(sep).join('/'), line, specifier, rule });
      }
    }
  }
  return violations;
}

function main(argv) {
  const rootIndex = argv.indexOf('--root');
  const root = resolve(rootIndex === -1 ? join(dirname(fileURLToPath(import.meta.url)), '..') : argv[rootIndex + 1] ?? '.');
  if (!statSync(root, { throwIfNoEntry: false })?.isDirectory()) {
    console.error(`check-imports: no such folder: ${root}`);
    return 2;
  }
  const violations = checkImports(root);
  for (const v of violations) console.log(`${v.file}:${v.line} imports ${v.specifier} (${v.rule})`);
  if (violations.length > 0) console.error(`check-imports: ${violations.length} violation(s)`);
  return violations.length > 0 ? 1 : 0;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
