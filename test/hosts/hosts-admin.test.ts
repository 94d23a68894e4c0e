// Browser hosts as the operator sets them up (issue 22): settings.json's browser_hosts and local_max_browsers,
// `portico host add/list/remove` against a real Playwright browser server (and one of another version), the
// token in the keychain only, and GET /admin/hosts probing on the injected clock.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../src-main/base/config.ts';
import { runCli } from '../../src-main/cli/main.ts';
import { KeychainSecretStore } from '../../src-main/secrets/index.ts';
import { openStore } from '../../src-main/store/store.ts';
import { CHROMIUM_PATH } from '../helpers/chromium.ts';
import { FakeClock } from '../helpers/fakeClock.ts';
import { makeDataDir, startService } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';

const require = createRequire(import.meta.url);
const PLAYWRIGHT_CLI = join(dirname(require.resolve('playwright-core/package.json')), 'cli.js');
const VERSION = (require('playwright-core/package.json') as { version: string }).version;

/** A PLAYWRIGHT_BROWSERS_PATH whose expected Chromium executables are /usr/bin/chromium. */
function browsersFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'portico-pw-browsers-'));
  const { browsers } = JSON.parse(readFileSync(join(dirname(PLAYWRIGHT_CLI), 'browsers.json'), 'utf8')) as {
    browsers: { name: string; revision: string }[];
  };
  const layout: Record<string, string> = {
    chromium: 'chrome-linux64/chrome',
    'chromium-headless-shell': 'chrome-headless-shell-linux64/chrome-headless-shell',
  };
  for (const { name, revision } of browsers) {
    const executable = layout[name];
    if (!executable) continue;
    const path = join(dir, `${name.replaceAll('-', '_')}-${revision}`, executable);
    mkdirSync(dirname(path), { recursive: true });
    symlinkSync(CHROMIUM_PATH, path);
  }
  return dir;
}

/** `npx playwright-core run-server` on 127.0.0.1; `versionOverride` makes the very same server report another version. */
async function runServer(browsers: string, versionOverride?: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [PLAYWRIGHT_CLI, 'run-server', '--host', '127.0.0.1', '--port', '0'], {
    env: {
      ...process.env,
      PLAYWRIGHT_BROWSERS_PATH: browsers,
      ...(versionOverride && { PW_VERSION_OVERRIDE: versionOverride }),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /Listening on (ws:\/\/\S+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`run-server exited (${code}): ${out}`)));
  });
  return { url, child };
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('browser hosts: settings, CLI and GET /admin/hosts', () => {
  const serviceName = `Portico-hosts-${randomBytes(4).toString('hex')}`;
  const env = { ...process.env, PORTICO_KEYCHAIN_SERVICE: serviceName };
  const token = `tok-${randomBytes(12).toString('hex')}`;
  let browsers: string;
  let server: { url: string; child: ChildProcess };
  let oldServer: { url: string; child: ChildProcess };
  const dirs: string[] = [];

  beforeAll(async () => {
    browsers = browsersFolder();
    [server, oldServer] = await Promise.all([runServer(browsers), runServer(browsers, '1.2.3')]);
  });
  afterAll(async () => {
    server?.child.kill('SIGKILL');
    oldServer?.child.kill('SIGKILL');
    if (browsers) rmSync(browsers, { recursive: true, force: true });
    for (const dir of dirs) {
      const store = openStore(join(dir, 'portico.db'));
      const installId = store.meta.installId();
      store.close();
      await new KeychainSecretStore({ serviceName }).delete(`${installId}/browser-host/pw`).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const cli = async (dataDir: string, args: string[], stdin = '') => {
    let stdout = '';
    let stderr = '';
    const code = await runCli(['--data-dir', dataDir, ...args], {
      stdout: (t) => (stdout += t),
      stderr: (t) => (stderr += t),
      readStdin: async () => stdin,
      env,
    });
    return { code, json: JSON.parse((code === 0 ? stdout : stderr).split('\n')[0] ?? '{}') as Record<string, unknown> };
  };

  it('an unknown field in settings.json stops start-up naming it; a host URL carrying a token is refused', async () => {
    const dataDir = await makeDataDir();
    dirs.push(dataDir);
    const file = join(dataDir, 'settings.json');
    await writeFile(file, JSON.stringify({ browsers_totl: 4 }));
    await expect(startService(dataDir)).rejects.toThrow(`${file}: value: unknown field 'browsers_totl'`);
    await writeFile(
      file,
      JSON.stringify({
        browser_hosts: [{ name: 'p', kind: 'cdp', url: 'wss://cdp.example/?token=abc', max_browsers: 2 }],
      }),
    );
    await expect(startService(dataDir)).rejects.toThrow(
      /browser_hosts\[0\]\.url: must not carry a secret in the query \('token'\)/,
    );
    await writeFile(
      file,
      JSON.stringify({
        browser_hosts: [{ name: 'local', kind: 'playwright', url: 'ws://10.0.0.1:3000/', max_browsers: 2 }],
        local_max_browsers: -1,
      }),
    );
    await expect(startService(dataDir)).rejects.toThrow(
      /browser_hosts\[0\]\.name: 'local' is the local Chromium's name.*local_max_browsers: /,
    );
  });

  it('`host add` checks the server (versions must match), keeps the token in the keychain only; list and remove', async () => {
    const dataDir = await makeDataDir();
    dirs.push(dataDir);
    const added = await cli(
      dataDir,
      [
        'host',
        'add',
        'pw',
        '--kind',
        'playwright',
        '--url',
        server.url,
        '--max-browsers',
        '3',
        '--labels',
        'eu,fast',
        '--token-stdin',
      ],
      `${token}\n`,
    );
    expect(added.code).toBe(0);
    expect(added.json).toMatchObject({
      host: { name: 'pw', kind: 'playwright', url: server.url, max_browsers: 3, labels: ['eu', 'fast'] },
      token_stored: true,
      check: { reachable: true, playwright_version: VERSION, browser_version: expect.stringMatching(/^\d+\./) },
    });
    const file = readFileSync(join(dataDir, 'settings.json'), 'utf8');
    expect(JSON.parse(file)).toEqual({
      browser_hosts: [{ name: 'pw', kind: 'playwright', url: server.url, max_browsers: 3, labels: ['eu', 'fast'] }],
    });
    expect(file).not.toContain(token);

    // The same server code reporting another version: refused plainly, nothing written.
    const old = await cli(dataDir, [
      'host',
      'add',
      'old',
      '--kind',
      'playwright',
      '--url',
      oldServer.url,
      '--max-browsers',
      '1',
    ]);
    expect(old.code).toBe(1);
    expect(old.json.detail).toBe(
      `browser host 'old' runs Playwright 1.2, but this Portico's Playwright is ${VERSION}: the two must match. Run \`npx playwright-core@${VERSION} run-server\` on the host.`,
    );
    expect(readFileSync(join(dataDir, 'settings.json'), 'utf8')).toBe(file);

    expect(
      (await cli(dataDir, ['host', 'add', 'pw', '--kind', 'cdp', '--url', 'http://127.0.0.1:9', '--max-browsers', '1']))
        .json,
    ).toEqual({ detail: "Browser host 'pw' already exists; remove it first to change it" });
    const listed = await cli(dataDir, ['host', 'list']);
    expect(listed.json).toEqual({
      hosts: [
        {
          name: 'pw',
          kind: 'playwright',
          url: server.url,
          max_browsers: 3,
          labels: ['eu', 'fast'],
          token_stored: true,
        },
      ],
      local_max_browsers: null,
    });
    expect(JSON.stringify(listed.json)).not.toContain(token);

    expect((await cli(dataDir, ['host', 'remove', 'pw'])).json).toEqual({
      removed: 'pw',
      applies: 'at the next start of the service',
    });
    expect((await cli(dataDir, ['host', 'list'])).json).toEqual({ hosts: [], local_max_browsers: null });
    expect((await cli(dataDir, ['host', 'remove', 'pw'])).json).toEqual({ detail: "No browser host 'pw'" });
  });

  it('GET /admin/hosts: local and each host, probed on the clock; a host that stops answering is shown unreachable; no token anywhere', async () => {
    const dataDir = await makeDataDir();
    dirs.push(dataDir);
    expect(
      (
        await cli(
          dataDir,
          ['host', 'add', 'pw', '--kind', 'playwright', '--url', server.url, '--max-browsers', '2', '--token-stdin'],
          token,
        )
      ).code,
    ).toBe(0);
    const dead = `http://127.0.0.1:${await closedPort()}`;
    const settings = JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8')) as { browser_hosts: unknown[] };
    await writeFile(
      join(dataDir, 'settings.json'),
      JSON.stringify({
        ...settings,
        browser_hosts: [
          ...settings.browser_hosts,
          { name: 'gone', kind: 'cdp', url: dead, max_browsers: 4, labels: ['eu'] },
        ],
        local_max_browsers: 1,
      }),
    );
    const clock = new FakeClock();
    const svc = await startService(dataDir, { config: readConfig(env), clock: clock, hostProbeIntervalMs: 15_000 });
    try {
      const hosts = async () => {
        const response = await svc.api('/admin/hosts', { key: null, headers: { 'x-console-token': svc.consoleToken } });
        const text = await response.text();
        expect(text).not.toContain(token);
        return (JSON.parse(text) as { hosts: Record<string, unknown>[] }).hosts;
      };
      const probed = await until(async () => {
        const list = await hosts();
        return list.every((host) => host.name === 'local' || host.last_checked_at !== null) && list;
      }, 'the first probes');
      expect(probed).toEqual([
        {
          name: 'local',
          kind: 'local',
          url: null,
          labels: ['local'],
          reachable: true,
          version: expect.stringMatching(/^Chromium \d+\./),
          browsers_in_use: 0,
          max_browsers: 1,
          token_stored: false,
          last_error: null,
          last_checked_at: null,
          pending: null,
        },
        {
          name: 'pw',
          kind: 'playwright',
          url: server.url,
          labels: [],
          reachable: true,
          version: null,
          browsers_in_use: 0,
          max_browsers: 2,
          token_stored: true,
          last_error: null,
          last_checked_at: clock.now().toISOString(),
          pending: null,
        },
        {
          name: 'gone',
          kind: 'cdp',
          url: dead,
          labels: ['eu'],
          reachable: false,
          version: null,
          browsers_in_use: 0,
          max_browsers: 4,
          token_stored: false,
          last_error: expect.stringMatching(/fetch failed|ECONNREFUSED/),
          last_checked_at: clock.now().toISOString(),
          pending: null,
        },
      ]);
      // The server goes away: the next probe on the clock finds it, and it takes no new browsers.
      server.child.kill('SIGKILL');
      await until(() => server.child.exitCode !== null || server.child.signalCode !== null, 'the server to exit');
      clock.advance(15_000);
      const after = await until(async () => {
        const pw = (await hosts()).find((host) => host.name === 'pw');
        return pw?.reachable === false && pw;
      }, 'the probe to notice');
      expect(after).toMatchObject({
        reachable: false,
        last_error: expect.any(String),
        last_checked_at: clock.now().toISOString(),
      });
    } finally {
      await svc.stop();
    }
  });
});
