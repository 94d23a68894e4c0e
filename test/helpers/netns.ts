// Browser hosts on "other machines": each in its own network namespace with its own address, running the
// engines operators run (Playwright's browser server, a Chromium debugging port behind a TCP forward, a
// CDP provider that wants a token). Portico and the test's HTTP servers stay in the root namespace.
// Needs root and iproute2 (CI runs as root): `describe.skipIf(!netnsAvailable())` in tests that use it.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, realpathSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './chromium.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
/** Allocates, kills and removes the namespaces (a flock-guarded shell script; usable by hand too). */
export const NETNS_SCRIPT = join(HERE, 'netns-host.sh');
/** Where netns-host.sh keeps its locks (root-only tmpfs, /run). */
const NETNS_DIR = '/run/portico-netns';
const GATE_SCRIPT = join(HERE, 'hostGate.mjs');
const require = createRequire(import.meta.url);
const PLAYWRIGHT_DIR = dirname(require.resolve('playwright-core/package.json'));
/** `npx playwright-core` is this file (its package's bin); running it with this Node spares npx's start-up. */
const PLAYWRIGHT_CLI = join(PLAYWRIGHT_DIR, 'cli.js');
/** The playwright-core version in node_modules: the run-server hosts run exactly this one. */
export const PLAYWRIGHT_VERSION: string = (require('playwright-core/package.json') as { version: string }).version;

/** Ports inside every namespace (each has its own, so they never collide). */
const PLAYWRIGHT_PORT = 3000;
const GATE_PORT = 9222;
const DEBUGGING_PORT = 9223;

export type HostEngine = 'playwright' | 'cdp' | 'cdp-provider';

export interface BrowserHostOptions {
  engine: HostEngine;
  /** cdp-provider: the `?token=` it requires (401 without it). */
  token?: string;
  /** cdp-provider: live DevTools connections it accepts before answering 429. */
  maxConnections?: number;
}

export interface NetnsBrowserHost {
  engine: HostEngine;
  /** The namespace, `portico-hN`. */
  namespace: string;
  /** The host's address, 10.200.N.2. */
  address: string;
  /** The root namespace's address on this host's link, 10.200.N.1: the host reaches servers bound there (or 0.0.0.0). */
  gateway: string;
  /** What to put in `browser_hosts[].url`: ws://…:3000/ (playwright), http://…:9222 (cdp), ws://…:9222/?token=… (cdp-provider). */
  url: string;
  /** The HTTP base of a cdp/cdp-provider host (`/json/version`; a provider wants `?token=` there too). */
  httpUrl: string;
  /** The host dies: every process in it is killed; its address answers with refused connections. */
  kill(): void;
  /** The cable is pulled: the host's link goes down and packets to it get no answer at all. */
  unplug(): void;
  /** Kills the host and removes its namespace and link (idempotent). */
  close(): void;
}

let available: boolean | undefined;

/** True where network namespaces can be made here (root, iproute2, flock). Tests that need them skip otherwise, saying so. */
export function netnsAvailable(): boolean {
  if (available !== undefined) return available;
  // `probe` makes (and removes) a namespace with a veth pair: it fails without root, CAP_SYS_ADMIN, ip or flock.
  available =
    process.platform === 'linux' && process.getuid?.() === 0 && spawnSync(NETNS_SCRIPT, ['probe']).status === 0;
  return available;
}

const open = new Set<number>();
let exitHookInstalled = false;

function netns(args: string[]): string {
  const result = spawnSync(NETNS_SCRIPT, args, { encoding: 'utf8' });
  if (result.status !== 0)
    throw new Error(`netns-host.sh ${args.join(' ')} failed: ${result.stderr || result.error?.message}`);
  return result.stdout.trim();
}

function release(index: number): void {
  if (!open.delete(index)) return;
  netns(['down', String(index)]);
}

/**
 * A folder laid out as Playwright expects its downloaded browsers, whose executables are symlinks to
 * Debian's Chromium: `PLAYWRIGHT_BROWSERS_PATH` pointed here makes run-server launch /usr/bin/chromium
 * without the client sending an executablePath (which run-server accepts only with --unsafe). It lives
 * outside /tmp (each host has its own /tmp) and is shared by every run: the same content each time.
 */
function playwrightBrowsersFolder(): string {
  const browsers = JSON.parse(readFileSync(join(PLAYWRIGHT_DIR, 'browsers.json'), 'utf8')) as {
    browsers: { name: string; revision: string }[];
  };
  const folder = join(NETNS_DIR, 'playwright-browsers');
  const layout: Record<string, string> = {
    chromium: 'chrome-linux64/chrome',
    'chromium-headless-shell': 'chrome-headless-shell-linux64/chrome-headless-shell',
  };
  for (const browser of browsers.browsers) {
    const executable = layout[browser.name];
    if (!executable) continue;
    const path = join(folder, `${browser.name.replaceAll('-', '_')}-${browser.revision}`, executable);
    mkdirSync(dirname(path), { recursive: true });
    try {
      symlinkSync(CHROMIUM_PATH, path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return folder;
}

/**
 * What a host process runs first: /tmp becomes an empty tmpfs of its own, so the host cannot read or write
 * this machine's temporary files (Portico's data folder in tests, Playwright's download folders) — as a
 * real remote host could not. The paths in PORTICO_HOST_KEEP (the checkout and node_modules, when they
 * happen to live under /tmp) are carried over by bind mounts, so the host still finds its programs.
 */
const HOST_PRELUDE = [
  'set -e',
  'i=0',
  'if [ -n "$PORTICO_HOST_KEEP" ]; then mount -t tmpfs portico-hold /mnt; fi',
  'for keep in $PORTICO_HOST_KEEP; do i=$((i+1)); mkdir /mnt/$i; mount --bind "$keep" /mnt/$i; done',
  'mount -t tmpfs -o mode=1777 portico-host-tmp /tmp',
  'i=0',
  'for keep in $PORTICO_HOST_KEEP; do i=$((i+1)); mkdir -p "$keep"; mount --move /mnt/$i "$keep"; done',
  'exec "$@"',
].join('\n');

/** The paths under /tmp a host process needs (this checkout, node_modules' real place): kept visible. */
const HOST_KEEP = [...new Set([join(HERE, '..', '..'), realpathSync(PLAYWRIGHT_DIR)])]
  .filter((path) => path.startsWith(`${tmpdir()}/`))
  .join(' ');

/** `command` as a process of another machine (see HOST_PRELUDE), in a mount namespace of its own. */
function asHost(command: string[]): string[] {
  return ['unshare', '--mount', '--propagation', 'private', 'sh', '-c', HOST_PRELUDE, 'host', ...command];
}

/** Spawns `command` inside the namespace and resolves once `ready` appears in its output (or rejects with that output). */
function startIn(
  namespace: string,
  command: string[],
  ready: RegExp,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ChildProcess> {
  const child = spawn('ip', ['netns', 'exec', namespace, ...asHost(command)], {
    env: { ...env, PORTICO_HOST_KEEP: HOST_KEEP },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => fail(new Error(`${command[1] ?? command[0]} did not start in ${namespace} within 20 s:\n${output}`)),
      20_000,
    );
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      if (ready.test(output)) return;
      output += chunk.toString();
      if (ready.test(output)) {
        clearTimeout(timer);
        resolve(child);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code, signal) =>
      fail(new Error(`${command.join(' ')} exited (${code ?? signal}) in ${namespace}:\n${output}`)),
    );
  });
}

/** Starts one browser host in a fresh namespace. Close it in afterAll (a crashed run's leftovers are reaped by the next run). */
export async function startBrowserHost(options: BrowserHostOptions): Promise<NetnsBrowserHost> {
  if (!netnsAvailable()) throw new Error('network namespaces are not available here (needs root and iproute2)');
  const index = Number(netns(['up', String(process.pid)]));
  open.add(index);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      for (const n of [...open]) release(n);
    });
  }
  const namespace = `portico-h${index}`;
  const address = `10.200.${index}.2`;
  const close = () => release(index);
  try {
    let url: string;
    let httpUrl = '';
    if (options.engine === 'playwright') {
      const browsers = playwrightBrowsersFolder();
      await startIn(
        namespace,
        [process.execPath, PLAYWRIGHT_CLI, 'run-server', '--host', address, '--port', String(PLAYWRIGHT_PORT)],
        /Listening on ws:/,
        {
          ...process.env,
          PLAYWRIGHT_BROWSERS_PATH: browsers,
        },
      );
      url = `ws://${address}:${PLAYWRIGHT_PORT}/`;
    } else {
      await startIn(
        namespace,
        // The profile is in the host's own /tmp (gone with the host).
        [
          CHROMIUM_PATH,
          ...CHROMIUM_ARGS,
          '--headless',
          `--remote-debugging-port=${DEBUGGING_PORT}`,
          '--user-data-dir=/tmp/portico-cdp-host',
          'about:blank',
        ],
        /DevTools listening on ws:/,
      );
      const provider = options.engine === 'cdp-provider';
      const gate = [
        '--listen',
        `${address}:${GATE_PORT}`,
        '--target',
        String(DEBUGGING_PORT),
        '--mode',
        provider ? 'provider' : 'tcp',
      ];
      if (options.token) gate.push('--token', options.token);
      if (options.maxConnections !== undefined) gate.push('--max-connections', String(options.maxConnections));
      await startIn(namespace, [process.execPath, GATE_SCRIPT, ...gate], /gate listening/);
      httpUrl = `http://${address}:${GATE_PORT}`;
      url = provider
        ? `ws://${address}:${GATE_PORT}/${options.token ? `?token=${encodeURIComponent(options.token)}` : ''}`
        : httpUrl;
    }
    return {
      engine: options.engine,
      namespace,
      address,
      gateway: `10.200.${index}.1`,
      url,
      httpUrl,
      kill: () => {
        if (open.has(index)) netns(['kill', String(index)]);
      },
      unplug: () => {
        if (open.has(index)) netns(['unplug', String(index)]);
      },
      close,
    };
  } catch (error) {
    close();
    throw error;
  }
}

/** Starts several hosts at once; `close()` closes them all (call it in afterAll). */
export async function startBrowserHosts(
  list: BrowserHostOptions[],
): Promise<{ hosts: NetnsBrowserHost[]; close(): void }> {
  const settled = await Promise.allSettled(list.map((options) => startBrowserHost(options)));
  const hosts = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const closeAll = () => {
    for (const host of hosts) host.close();
  };
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) {
    closeAll();
    throw failed.reason;
  }
  return { hosts, close: closeAll };
}
