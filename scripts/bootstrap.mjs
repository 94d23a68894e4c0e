#!/usr/bin/env node
// The one entry point behind every npm script: `node scripts/bootstrap.mjs <command> [args...]`.
// Runs on any Node (it is plain JS, no syntax newer than Node 18) and makes a fresh clone work:
// Node >= 22.18 (the first 22.x that strips TypeScript types by default, so the engine runs from
// source), node_modules, the built console, then the command itself.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVICE_NODE_FLAGS } from './serviceFlags.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const minimumNode = [22, 18];
const node22Prefix = join(homedir(), '.node22');
const node22Bin = join(node22Prefix, 'bin');
const reexecMarker = 'PORTICO_BOOTSTRAP_NODE';

const commands = {
  serve: (args) =>
    run(process.execPath, [...SERVICE_NODE_FLAGS, join(root, 'scripts/serve.mjs'), ...args], { console: true }),
  cli: (args) => run(process.execPath, [join(root, 'src-main/cli/main.ts'), ...args]),
  test: (args) => run(process.execPath, [join(root, 'scripts/run-tests.mjs'), ...args]),
  bench: (args) => run(process.execPath, [join(root, 'bench/run.mjs'), ...args]),
  start: (args) => startDesktop(args),
};

function note(line) {
  process.stderr.write(`portico: ${line}\n`);
}

function nodeIsRecentEnough(version) {
  const [major, minor] = version.replace(/^v/, '').split('.').map(Number);
  return major > minimumNode[0] || (major === minimumNode[0] && minor >= minimumNode[1]);
}

function versionOf(nodePath) {
  const result = spawnSync(nodePath, ['--version'], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

/** A recent enough Node binary: the one in ~/.node22, installed there from npm if needed. */
function ensureNode22() {
  const candidate = join(node22Bin, 'node');
  const current = existsSync(candidate) ? versionOf(candidate) : undefined;
  if (current !== undefined && nodeIsRecentEnough(current)) return candidate;
  if (process.platform === 'win32') {
    note(
      `Node ${process.versions.node} is too old; install Node ${minimumNode.join('.')} or newer from https://nodejs.org`,
    );
    process.exit(1);
  }
  note(
    `Node ${process.versions.node} is older than ${minimumNode.join('.')}; installing Node 22 from npm into ${node22Prefix} (once)`,
  );
  // `node@22` only fetches `node-<os>-<cpu>@22` in a preinstall script, which npm 12 blocks unless
  // allowed; the platform package holds the same binary with no install script.
  const packages = [`node-${process.platform}-${process.arch}@22`, 'node@22'];
  for (const spec of packages) {
    const install = spawnSync(
      'npm',
      ['install', '--global', '--no-fund', '--no-audit', '--prefix', node22Prefix, spec],
      {
        stdio: ['ignore', 2, 2],
      },
    );
    if (install.status === 0 && existsSync(candidate)) break;
  }
  const installed = existsSync(candidate) ? versionOf(candidate) : undefined;
  if (installed === undefined || !nodeIsRecentEnough(installed)) {
    note(`could not install Node 22 with npm; install Node ${minimumNode.join('.')}+ and run again`);
    process.exit(1);
  }
  return candidate;
}

function mtimeOf(path) {
  return statSync(path, { throwIfNoEntry: false })?.mtimeMs;
}

/** `npm install` when node_modules is missing or older than package-lock.json. */
function ensureDependencies() {
  const installedMarker = join(root, 'node_modules', '.package-lock.json');
  const installedAt = mtimeOf(installedMarker) ?? mtimeOf(join(root, 'node_modules'));
  const lockedAt = mtimeOf(join(root, 'package-lock.json')) ?? mtimeOf(join(root, 'package.json'));
  if (installedAt !== undefined && lockedAt !== undefined && installedAt >= lockedAt) return;
  note('installing dependencies (npm install)');
  const install = spawnSync('npm', ['install', '--no-fund', '--no-audit', '--loglevel=warn'], {
    cwd: root,
    stdio: ['ignore', 2, 2],
    env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' },
  });
  if (install.status !== 0) {
    note(`npm install failed (exit ${install.status ?? install.signal})`);
    process.exit(install.status ?? 1);
  }
  // npm leaves an unchanged tree untouched; mark it current so the next run skips the install.
  if (existsSync(installedMarker)) {
    const now = new Date();
    utimesSync(installedMarker, now, now);
  }
}

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : (mtimeOf(path) ?? 0));
  }
  return newest;
}

/** Builds out/renderer (the console the server serves at `/`) when src-renderer/ changed since. */
function ensureConsoleBuilt() {
  const builtAt = mtimeOf(join(root, 'out/renderer/index.html'));
  const sources = [newestMtime(join(root, 'src-renderer')), mtimeOf(join(root, 'electron.vite.config.ts')) ?? 0];
  if (builtAt !== undefined && builtAt >= Math.max(...sources)) return;
  note('building the console (out/renderer)');
  // Build output goes to stderr: `serve` owes stdout exactly one line.
  const build = spawnSync(process.execPath, [join(root, 'scripts/build-renderer.mjs')], {
    cwd: root,
    stdio: ['ignore', 2, 2],
  });
  if (build.status !== 0) {
    note(`building the console failed (exit ${build.status ?? build.signal})`);
    process.exit(build.status ?? 1);
  }
}

/**
 * Regenerates src-main/agent/injected/generated/scripts.ts (the in-page scripts compiled from
 * TypeScript) when one of its sources is newer; a quick mtime check otherwise.
 */
function ensureInjectedScripts() {
  const build = spawnSync(process.execPath, [join(root, 'scripts/build-injected.mjs'), '--if-stale'], {
    cwd: root,
    stdio: ['ignore', 2, 2],
  });
  if (build.status !== 0) {
    note(`building the in-page scripts failed (exit ${build.status ?? build.signal})`);
    process.exit(build.status ?? 1);
  }
}

/** The Electron executable if one is installed, without triggering electron's download-on-require. */
function installedElectron() {
  const electronDir = join(root, 'node_modules', 'electron');
  let relativePath;
  try {
    relativePath = readFileSync(join(electronDir, 'path.txt'), 'utf8').trim();
  } catch {
    return undefined;
  }
  const distDir = process.env.ELECTRON_OVERRIDE_DIST_PATH || join(electronDir, 'dist');
  const executable = join(distDir, relativePath);
  return existsSync(executable) ? executable : undefined;
}

function startDesktop(args) {
  const electron = installedElectron();
  const headlessLinux = process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY;
  if (electron === undefined || headlessLinux) {
    const reason =
      electron === undefined
        ? 'the Electron binary is not installed (npm no longer downloads it at install time)'
        : 'no display is available (DISPLAY / WAYLAND_DISPLAY unset), so Electron cannot run here';
    process.stderr.write(
      [
        `portico: cannot start the desktop app: ${reason}.`,
        '  On a workstation with internet access, run `npx install-electron` once, then `npm start`.',
        '  `npm run serve` runs the same service headless; open the URL it prints in any browser for the console.',
        '',
      ].join('\n'),
    );
    return Promise.resolve(1);
  }
  note('building the desktop app (electron-vite build)');
  const build = spawnSync(process.execPath, [join(root, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], {
    cwd: root,
    stdio: ['ignore', 2, 2],
  });
  if (build.status !== 0) return Promise.resolve(build.status ?? 1);
  return run(electron, [root, ...args]);
}

/**
 * Runs a child with inherited stdio, passes on the first SIGINT/SIGTERM/SIGHUP, and resolves to its
 * exit code. Only the first: a signal to the process group reaches the child directly as well, and
 * the child stops once for any number of them; later ones must not make this process die before it.
 */
function run(command, args, options = {}) {
  if (options.console) ensureConsoleBuilt();
  return new Promise((resolvePromise) => {
    // The caller's cwd is kept: relative paths in arguments (--data-dir, files) mean what they say.
    const child = spawn(command, args, { stdio: 'inherit' });
    let forwarded = false;
    const forward = (signal) => {
      if (forwarded) return;
      forwarded = true;
      child.kill(signal);
    };
    const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
    for (const signal of signals) process.on(signal, forward);
    // `npm run` hands a SIGTERM to its `sh -c` only, which dies without passing it on: when our
    // parent goes away, stop the child ourselves instead of leaving a service running unowned.
    const parent = process.ppid;
    const orphanWatch = setInterval(() => {
      if (process.ppid !== parent) {
        clearInterval(orphanWatch);
        child.kill('SIGTERM');
      }
    }, 250);
    child.on('error', (error) => {
      note(`could not run ${command}: ${error.message}`);
      resolvePromise(1);
    });
    child.on('exit', (code, signal) => {
      clearInterval(orphanWatch);
      for (const name of signals) process.off(name, forward);
      if (signal !== null) {
        // Die of the same signal, so whoever started us sees what really happened.
        process.kill(process.pid, signal);
        return;
      }
      resolvePromise(code ?? 1);
    });
  });
}

async function main() {
  const [command, ...rest] = process.argv.slice(2);
  const args = rest[0] === '--' ? rest.slice(1) : rest;

  if (!nodeIsRecentEnough(process.versions.node)) {
    if (process.env[reexecMarker]) {
      note(`re-exec under ${process.env[reexecMarker]} still runs Node ${process.versions.node}; giving up`);
      process.exit(1);
    }
    const node = ensureNode22();
    process.env.PATH = `${dirname(node)}${delimiter}${process.env.PATH ?? ''}`;
    process.env[reexecMarker] = node;
    process.exitCode = await run(node, [fileURLToPath(import.meta.url), ...process.argv.slice(2)]);
    return;
  }

  // The marker only guards this one re-exec; children (tests spawning an old Node) start afresh.
  delete process.env[reexecMarker];
  const target = commands[command];
  if (target === undefined) {
    process.stderr.write(`usage: node scripts/bootstrap.mjs <${Object.keys(commands).join('|')}> [args...]\n`);
    process.exit(2);
  }
  ensureDependencies();
  ensureInjectedScripts();
  process.exitCode = await target(args);
}

await main();
