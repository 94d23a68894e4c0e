import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BOOTSTRAP = `${ROOT}/scripts/bootstrap.mjs`;

/** The launcher behind every npm script: right Node, clear words where something cannot run. */
describe('scripts/bootstrap.mjs', () => {
  const electronInstalled = (() => {
    try {
      const path = spawnSync(process.execPath, ['-e', 'process.stdout.write(require("electron"))'], {
        cwd: ROOT,
        encoding: 'utf8',
      }).stdout;
      return path !== '' && existsSync(path);
    } catch {
      return false;
    }
  })();

  it.skipIf(electronInstalled)(
    'npm start without an Electron binary says what to do, names npm run serve, and exits non-zero',
    () => {
      const result = spawnSync(process.execPath, [BOOTSTRAP, 'start'], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(result.status).not.toBe(0);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain('the Electron binary is not installed');
      expect(result.stderr).toContain('npx install-electron');
      expect(result.stderr).toContain('npm run serve');
    },
  );

  it('runs the admin CLI under Node 22 and passes its exit code through', () => {
    const ok = spawnSync(process.execPath, [BOOTSTRAP, 'cli', '--help'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(ok.status).toBe(0);
    expect(JSON.parse(ok.stdout)).toHaveProperty('usage');
    const bad = spawnSync(process.execPath, [BOOTSTRAP, 'cli', 'no-such-command'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(bad.status).toBe(2);
    expect(JSON.parse(bad.stderr.trim().split('\n')[0] ?? '{}').detail).toMatch(/unknown command/);
  });

  it("an older Node re-executes itself under Node 22 (the machine's Node 20, when present)", () => {
    const old = '/usr/bin/node';
    const version = existsSync(old) ? spawnSync(old, ['--version'], { encoding: 'utf8' }).stdout.trim() : '';
    if (!/^v(1\d|20|21)\./.test(version)) return;
    const result = spawnSync(old, [BOOTSTRAP, 'cli', '--help'], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toHaveProperty('usage');
  });
});
