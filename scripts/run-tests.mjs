#!/usr/bin/env node
// `npm test`: type-check (three programs: scripts/typecheck.mjs), import rules, lint, format and the Electron
// bundles — at once, each one's output printed whole once all have ended — then vitest (extra arguments go to vitest).
// Vitest runs inside a private D-Bus session with an unlocked gnome-keyring (the real Secret Service
// the keychain tests need) and, where there is no display, inside Xvfb for headed browsers.
// PORTICO_TEST_SKIP_BUILD=1 skips the first four steps for fast iteration.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
// The keyring password of the throwaway test keyring; it guards nothing.
const keyringPassword = 'portico-test';

// Tools launched through `#!/usr/bin/env node` must get this Node, not an older one on PATH.
// IBM_TELEMETRY_DISABLED: Carbon's packages (test fixtures) ship a telemetry client; nothing leaves this machine.
const env = {
  ...process.env,
  IBM_TELEMETRY_DISABLED: 'true',
  PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`,
};

function onPath(command) {
  return env.PATH.split(delimiter).some((dir) => dir !== '' && existsSync(join(dir, command)));
}

function step(name, command, args, extraEnv = {}) {
  process.stderr.write(`\n▶ ${name}\n`);
  const started = Date.now();
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...env, ...extraEnv } });
  const code = result.error ? 1 : (result.status ?? 1);
  if (result.error) process.stderr.write(`could not run ${command}: ${result.error.message}\n`);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (code !== 0)
    process.stderr.write(`✖ ${name} failed (exit ${result.status ?? result.signal ?? code}, ${seconds}s)\n`);
  else process.stderr.write(`✔ ${name} (${seconds}s)\n`);
  return code;
}

/** Runs a step and stops the whole run at its failure, with its exit code. */
function requireStep(name, command, args) {
  const code = step(name, command, args);
  if (code !== 0) process.exit(code);
}

/** Runs a step with its output held back: its name, exit code (1 when it could not run), output and seconds. */
function heldStep({ name, command, args }) {
  const started = Date.now();
  return new Promise((resolve) => {
    let output = '';
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env });
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    const seconds = () => ((Date.now() - started) / 1000).toFixed(1);
    child.on('error', (error) =>
      resolve({
        name,
        code: 1,
        how: 'could not run',
        output: `${output}could not run ${command}: ${error.message}\n`,
        seconds: seconds(),
      }),
    );
    child.on('close', (code, signal) =>
      resolve({ name, code: code ?? 1, how: `exit ${code ?? signal}`, output, seconds: seconds() }),
    );
  });
}

/**
 * Runs independent steps at once (they read the tree, none writes what another reads) and prints each one's
 * output whole, in the order given, once all have ended; stops the run with the first failed one's exit code.
 */
async function requireSteps(steps) {
  process.stderr.write(`\n▶ at once: ${steps.map((s) => s.name.split(' (')[0]).join(', ')}\n`);
  const started = Date.now();
  const results = await Promise.all(steps.map(heldStep));
  for (const result of results) {
    process.stderr.write(`\n▶ ${result.name}\n${result.output}`);
    if (result.code !== 0) process.stderr.write(`✖ ${result.name} failed (${result.how}, ${result.seconds}s)\n`);
    else process.stderr.write(`✔ ${result.name} (${result.seconds}s)\n`);
  }
  process.stderr.write(`\nchecks and build: ${((Date.now() - started) / 1000).toFixed(1)}s\n`);
  const failed = results.find((result) => result.code !== 0);
  if (failed) process.exit(failed.code);
}

/** The vitest command, wrapped in Xvfb and a D-Bus session with an unlocked keyring where needed. */
function vitestCommand(args) {
  let command = [bin('vitest'), 'run', ...args];
  const keyringEnv = {};
  const wrappers = [];
  let keyringDir;

  if (!env.DBUS_SESSION_BUS_ADDRESS && onPath('dbus-run-session')) {
    if (onPath('gnome-keyring-daemon')) {
      // A fresh keyring folder per run: no stale login keyring with another password, no leftovers.
      keyringDir = mkdtempSync(join(tmpdir(), 'portico-keyring-'));
      keyringEnv.PORTICO_TEST_KEYRING_DIR = keyringDir;
      const unlock =
        `printf '%s' '${keyringPassword}' | XDG_DATA_HOME="$PORTICO_TEST_KEYRING_DIR" ` +
        'gnome-keyring-daemon --unlock --components=secrets >/dev/null';
      command = ['sh', '-c', `${unlock} && exec "$@"`, 'sh', ...command];
      wrappers.push('gnome-keyring');
    }
    command = ['dbus-run-session', '--', ...command];
    wrappers.push('dbus-run-session');
  }
  if (!env.DISPLAY && !env.WAYLAND_DISPLAY && process.platform === 'linux' && onPath('xvfb-run')) {
    command = ['xvfb-run', '-a', ...command];
    wrappers.push('xvfb-run');
  }
  return { command, keyringEnv, keyringDir, wrappers };
}

// Exactly `npm run check:imports`: the import table of docs/architecture.md, known violations listed apart.
const importRulesArgs = [
  '--config',
  '.dependency-cruiser.cjs',
  '--ignore-known',
  '.dependency-cruiser-known-violations.json',
  'src-main',
  'src-preload',
  'src-renderer',
];
// `biome lint .` (npm run lint). On by default; PORTICO_LINT=0 skips it.
const lintDefault = true;
const lintEnabled = process.env.PORTICO_LINT === undefined ? lintDefault : process.env.PORTICO_LINT !== '0';

const args = process.argv.slice(2);
const vitestArgs = args[0] === '--' ? args.slice(1) : args;

// The in-page scripts (src-main/agent/injected/) compile to a generated module that tsc, vitest and
// the build all read: refresh it first when a source is newer (cheap otherwise, even with SKIP_BUILD).
requireStep('injected scripts (scripts/build-injected.mjs --if-stale)', process.execPath, [
  join(root, 'scripts/build-injected.mjs'),
  '--if-stale',
]);

if (process.env.PORTICO_TEST_SKIP_BUILD === '1') {
  process.stderr.write('PORTICO_TEST_SKIP_BUILD=1: skipping typecheck, import rules, lint and build\n');
} else {
  // tsconfig.json (everything), tsconfig.node.json (no DOM) and tsconfig.dom.json (no Node): scripts/typecheck.mjs.
  // The checks and the build are independent (each only reads the tree; the build writes out/, which none of
  // them reads), so they run at once: on 2 cores ~15 s instead of ~19 s one after another. The build must end
  // before vitest (the console tests serve out/renderer).
  const steps = [
    {
      name: 'typecheck (scripts/typecheck.mjs: tsconfig.json, tsconfig.node.json, tsconfig.dom.json)',
      command: process.execPath,
      args: [join(root, 'scripts/typecheck.mjs')],
    },
    {
      name: 'import rules (dependency-cruiser, .dependency-cruiser.cjs)',
      command: bin('depcruise'),
      args: importRulesArgs,
    },
  ];
  if (lintEnabled) steps.push({ name: 'lint (biome lint, biome.json)', command: bin('biome'), args: ['lint', '.'] });
  else process.stderr.write(`skipping biome lint (PORTICO_LINT=${process.env.PORTICO_LINT ?? 'unset, default off'})\n`);
  // The formatter's word on every source file (biome.json; `npx biome format --write .` applies it).
  steps.push({ name: 'format (biome format, biome.json)', command: bin('biome'), args: ['format', '.'] });
  steps.push({ name: 'build (electron-vite build)', command: bin('electron-vite'), args: ['build'] });
  await requireSteps(steps);
}

const vitest = vitestCommand(vitestArgs);
// Node's compile cache for what the test workers load natively (playwright-core, fastify, zod…): each of the ~220
// files imports them again in a fresh fork; V8's cached code saves part of that parse and compile. A folder
// of node_modules, so a fresh clone starts empty; a variable already set wins.
const compileCache = process.env.NODE_COMPILE_CACHE ?? join(root, 'node_modules', '.cache', 'portico-test-compile');
const label = vitest.wrappers.length > 0 ? ` under ${vitest.wrappers.join(', ')}` : '';
const [command, ...rest] = vitest.command;
const code = step(`vitest run${label}`, command, rest, { ...vitest.keyringEnv, NODE_COMPILE_CACHE: compileCache });
if (vitest.keyringDir) rmSync(vitest.keyringDir, { recursive: true, force: true });
process.exit(code);
