#!/usr/bin/env node
// `npm test`: type-check (three programs: scripts/typecheck.mjs), import rules, lint, Electron bundles, then vitest (extra arguments go to vitest).
// Vitest runs inside a private D-Bus session with an unlocked gnome-keyring (the real Secret Service
// the keychain tests need) and, where there is no display, inside Xvfb for headed browsers.
// PORTICO_TEST_SKIP_BUILD=1 skips the first four steps for fast iteration.
import { spawnSync } from 'node:child_process';
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
  requireStep(
    'typecheck (scripts/typecheck.mjs: tsconfig.json, tsconfig.node.json, tsconfig.dom.json)',
    process.execPath,
    [join(root, 'scripts/typecheck.mjs')],
  );
  requireStep('import rules (dependency-cruiser, .dependency-cruiser.cjs)', bin('depcruise'), importRulesArgs);
  if (lintEnabled) requireStep('lint (biome lint, biome.json)', bin('biome'), ['lint', '.']);
  else process.stderr.write(`skipping biome lint (PORTICO_LINT=${process.env.PORTICO_LINT ?? 'unset, default off'})\n`);
  // The formatter's word on every source file (biome.json; `npx biome format --write .` applies it).
  requireStep('format (biome format, biome.json)', bin('biome'), ['format', '.']);
  requireStep('build (electron-vite build)', bin('electron-vite'), ['build']);
}

const vitest = vitestCommand(vitestArgs);
const label = vitest.wrappers.length > 0 ? ` under ${vitest.wrappers.join(', ')}` : '';
const [command, ...rest] = vitest.command;
const code = step(`vitest run${label}`, command, rest, vitest.keyringEnv);
if (vitest.keyringDir) rmSync(vitest.keyringDir, { recursive: true, force: true });
process.exit(code);
