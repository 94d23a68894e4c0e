#!/usr/bin/env node
// Compiles the scripts that run inside web pages (src-main/agent/injected/*.ts, typed against the
// DOM) into self-contained function sources, written to src-main/agent/injected/generated/scripts.ts.
// Each entry's default export becomes one function expression with every helper it uses inlined
// (no imports left), which the engine hands to Playwright's evaluate.
//
//   node scripts/build-injected.mjs            regenerate (the file is rewritten only when it changes)
//   node scripts/build-injected.mjs --if-stale regenerate only when a source is newer than the output
//   node scripts/build-injected.mjs --check    exit 1 when the committed output differs from a fresh build
//
// The output is committed, so every way of running the code from a clone (node on the sources,
// vitest, tsc) finds it; bootstrap.mjs, run-tests.mjs and electron-vite build regenerate it first.
import { mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const sourceDir = join(root, 'src-main/agent/injected');
export const outputPath = join(sourceDir, 'generated/scripts.ts');

/** Entry file (default export: the function to run in the page) → the exported name. */
export const entries = {
  'pageScan.ts': 'scanPage',
  'findListbox.ts': 'findListbox',
  'readOptions.ts': 'readOptions',
  'shownValue.ts': 'shownValue',
  'pageFacts.ts': 'pageFacts',
  'readAndLeave.ts': 'readAndLeave',
  'uniqueSelector.ts': 'uniqueSelector',
  'loginScan.ts': 'loginScan',
  'calendarOpen.ts': 'calendarOpen',
  'calendarGrid.ts': 'calendarGrid',
  'sliderSettled.ts': 'sliderSettled',
  'sliderSettledAt.ts': 'sliderSettledAt',
  'clickSettled.ts': 'clickSettled',
  'pointerTarget.ts': 'pointerTarget',
  'modelScan.ts': 'modelScan',
  'recordingMask.ts': 'recordingMask',
  'secretFieldsShown.ts': 'secretFieldsShown',
  'liveView.ts': 'liveView',
  'tagChips.ts': 'tagChips',
  'enterGuard.ts': 'enterGuard',
  'markField.ts': 'markField',
  'pageText.ts': 'pageText',
  'frameLocation.ts': 'frameLocation',
  'controlState.ts': 'controlState',
  'controlRead.ts': 'controlRead',
  'describeElements.ts': 'describeElements',
  'drawnByLabel.ts': 'drawnByLabel',
  'toggleByLabel.ts': 'toggleByLabel',
  'clickToggle.ts': 'clickToggle',
  'isNativeSelect.ts': 'isNativeSelect',
  'nativeOptions.ts': 'nativeOptions',
  'optionNames.ts': 'optionNames',
  'elementText.ts': 'elementText',
  'bodyText.ts': 'bodyText',
  'resourceStarts.ts': 'resourceStarts',
  'scrollPage.ts': 'scrollPage',
  'perceivable.ts': 'perceivable',
  'matchRows.ts': 'matchRows',
  'pairedValue.ts': 'pairedValue',
  'probe.ts': 'probe',
  'controlNames.ts': 'controlNames',
  'segmentReading.ts': 'segmentReading',
  'selectedLabel.ts': 'selectedLabel',
  'hasFocus.ts': 'hasFocus',
  'twoFrames.ts': 'twoFrames',
  'framesDrawn.ts': 'framesDrawn',
  'markFocused.ts': 'markFocused',
  'takeMarked.ts': 'takeMarked',
  'ariaCheckedState.ts': 'ariaCheckedState',
  'markFilterBox.ts': 'markFilterBox',
  'markListsBefore.ts': 'markListsBefore',
  'markCascadeList.ts': 'markCascadeList',
  'cascadeLabels.ts': 'cascadeLabels',
  'nextTreeItem.ts': 'nextTreeItem',
  'markTried.ts': 'markTried',
  'treeNodes.ts': 'treeNodes',
  'listTakesMany.ts': 'listTakesMany',
  'optionsCheckable.ts': 'optionsCheckable',
  'optionStates.ts': 'optionStates',
};

/** Style sheets of the pages served from here (liveView.css) → the exported name of their text. */
export const styles = {
  'liveView.css': 'liveViewStyle',
};

const GLOBAL = '__porticoInjected';

function mtimeOf(path) {
  return statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0;
}

const require = createRequire(import.meta.url);

function bundlerInstalled() {
  try {
    require.resolve('rolldown/package.json');
    return true;
  } catch {
    return false;
  }
}

/** Whether a source (or this script, or the bundler) changed after the output was written. */
export function isStale() {
  const builtAt = mtimeOf(outputPath);
  if (builtAt === 0) return true;
  const sources = readdirSync(sourceDir)
    .filter((name) => name.endsWith('.ts') || name.endsWith('.css'))
    .map((name) => mtimeOf(join(sourceDir, name)));
  const bundler = bundlerInstalled() ? mtimeOf(require.resolve('rolldown/package.json')) : 0;
  return Math.max(...sources, mtimeOf(fileURLToPath(import.meta.url)), bundler) > builtAt;
}

/**
 * One module of src-main/agent/injected/ and everything it imports as a classic script defining
 * `var <globalName>`: the default export (`exports: 'default'`) or an object of the named ones.
 */
export async function bundleScript(file, globalName, exports = 'default') {
  const { build } = await import('rolldown');
  const result = await build({
    input: join(sourceDir, file),
    write: false,
    platform: 'browser',
    logLevel: 'warn',
    output: { format: 'iife', name: globalName, exports, comments: false },
  });
  const chunks = result.output.filter((o) => o.type === 'chunk');
  if (chunks.length !== 1) throw new Error(`${file}: expected one bundle, got ${chunks.length}`);
  return chunks[0].code.trim();
}

async function compileEntry(file) {
  const code = await bundleScript(file, GLOBAL);
  if (/^\s*(import|export)\s/m.test(code)) throw new Error(`${file}: the bundle still has a module import or export`);
  // A function expression: evaluating the bundle defines the helpers, then the entry runs.
  return `(...args) => {\n${code}\nreturn ${GLOBAL}(...args);\n}`;
}

/** The text of the generated module. */
export async function generate() {
  const lines = [
    '// Generated by scripts/build-injected.mjs from src-main/agent/injected/: do not edit.',
    '// Each function runs inside a web page; index.ts turns the sources into typed functions.',
  ];
  const literal = (text) => `\`${text.replace(/\\/g, '\\\\').replace(/`/g, '\\`').replace(/\$\{/g, '\\${')}\``;
  for (const [file, name] of Object.entries(entries)) {
    lines.push('', `/** ${file} */`, `export const ${name}Source = ${literal(await compileEntry(file))};`);
  }
  for (const [file, name] of Object.entries(styles)) {
    lines.push('', `/** ${file} */`, `export const ${name} = ${literal(readFileSync(join(sourceDir, file), 'utf8'))};`);
  }
  return `${lines.join('\n')}\n`;
}

/** Writes the output when its text changes; always leaves it newer than the sources. */
export async function buildInjected() {
  const text = await generate();
  const current = mtimeOf(outputPath) ? readFileSync(outputPath, 'utf8') : '';
  mkdirSync(dirname(outputPath), { recursive: true });
  if (current !== text) writeFileSync(outputPath, text);
  else {
    const now = new Date();
    utimesSync(outputPath, now, now);
  }
  return current !== text;
}

async function main() {
  const args = process.argv.slice(2);
  const shown = relative(root, outputPath);
  if (args.includes('--check')) {
    const current = mtimeOf(outputPath) ? readFileSync(outputPath, 'utf8') : '';
    if (current === (await generate())) return;
    process.stderr.write(`${shown} is stale: run node scripts/build-injected.mjs\n`);
    process.exitCode = 1;
    return;
  }
  if (args.includes('--if-stale')) {
    if (!isStale()) return;
    // A production install has no devDependencies: the committed output is what runs.
    if (!bundlerInstalled()) {
      process.stderr.write(`portico: rolldown is not installed; using the committed ${shown}\n`);
      return;
    }
  }
  if (await buildInjected()) process.stderr.write(`portico: regenerated ${shown}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
