import { spawnSync } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.ts';
import { makeDataDir, startService } from '../helpers/service.ts';

const SERVE = fileURLToPath(new URL('../../src-main/serve.ts', import.meta.url));
const CLI_MAIN = fileURLToPath(new URL('../../src-main/cli/main.ts', import.meta.url));

describe('start-up refuses a configuration it cannot use', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('npm run serve with PORTICO_JOB_CONCURRENCY=abc exits 1 naming the variable, before listening', async () => {
    const dataDir = await makeDataDir();
    dirs.push(dataDir);
    const run = spawnSync(process.execPath, [SERVE, '--port', '0', '--data-dir', dataDir], {
      encoding: 'utf8',
      timeout: 30_000,
      env: { ...process.env, PORTICO_HEADLESS: '1', PORTICO_JOB_CONCURRENCY: 'abc' },
    });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(JSON.parse(run.stderr.trim().split('\n').at(-1) ?? '{}')).toEqual({
      detail: "Invalid environment: PORTICO_JOB_CONCURRENCY must be a whole number from 1 to 32 (got 'abc')",
    });
  });

  it('the CLI reads the same configuration and refuses the same way', async () => {
    const dataDir = await makeDataDir();
    dirs.push(dataDir);
    const run = spawnSync(process.execPath, [CLI_MAIN, '--data-dir', dataDir, 'org', 'create', 'acme'], {
      encoding: 'utf8',
      env: { ...process.env, PORTICO_LOG_LEVEL: 'chatty' },
    });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(JSON.parse(run.stderr)).toEqual({
      detail: "Invalid environment: PORTICO_LOG_LEVEL must be one of debug, info, warn, error, silent (got 'chatty')",
    });
    expect((await cli(dataDir, ['org', 'create', 'acme'])).code).toBe(0);
  });

  it('a settings.json that breaks its schema stops start-up naming the file and the field', async () => {
    const dataDir = await makeDataDir();
    dirs.push(dataDir);
    const file = join(dataDir, 'settings.json');
    await writeFile(file, JSON.stringify({ job_concurrency: 'four', chromium_path: '/usr/bin/chromium' }));
    await expect(startService(dataDir)).rejects.toThrow(
      `${file}: job_concurrency: must be of type number; fix it or delete it to go back to the defaults`,
    );
    await writeFile(file, JSON.stringify({ browsers_idle_minutes: -1 }));
    await expect(startService(dataDir)).rejects.toThrow(
      `${file}: browsers_idle_minutes: Too small: expected number to be >=0; fix it or delete it to go back to the defaults`,
    );
    await writeFile(file, '{"job_concurrency": 3,');
    await expect(startService(dataDir)).rejects.toThrow(
      new RegExp(`^${file.replace(/[.\\/]/g, '\\$&')} is not valid JSON`),
    );
    await writeFile(file, JSON.stringify({ job_concurrency: 3 }));
    const svc = await startService(dataDir);
    try {
      const settings = await svc.request(
        'getSettings',
        {},
        { key: null, headers: { 'x-console-token': svc.consoleToken } },
      );
      expect(await settings.json()).toMatchObject({ job_concurrency: 3 });
    } finally {
      await svc.stop();
    }
  });
});
