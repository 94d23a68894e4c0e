import { execFileSync, spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { makeDataDir } from '../helpers/service.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The README cannot rot: its Quick start command is run as written and must serve /health. */
describe('README quick start', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('the first command of the Quick start starts the service; stdout is exactly one listening line; SIGTERM stops the service under npm', async () => {
    const readme = await readFile(`${ROOT}/README.md`, 'utf8');
    const quickStart = readme.split(/^## /m).find((section) => section.startsWith('Quick start')) ?? '';
    const command = /```sh\n([^\n]+)\n```/.exec(quickStart)?.[1]?.trim();
    expect(command).toBe('npm run serve');
    const dataDir = await makeDataDir();
    dirs.push(dataDir);
    const [bin, ...args] = `${command ?? ''} -- --port 0 --data-dir ${dataDir}`.split(' ');
    const child = spawn(bin ?? 'npm', args, {
      cwd: ROOT,
      env: { ...process.env, PORTICO_HEADLESS: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no listening line in 90 s; stderr: ${stderr}`)), 90_000);
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /^listening on (http:\/\/127\.0\.0\.1:\d+)\n/m.exec(stdout);
        if (match?.[1]) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
      child.on('exit', (code) => reject(new Error(`exited ${code} before listening; stderr: ${stderr}`)));
    });
    const health = await fetch(`${url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok' });
    expect(stderr).toMatch(/Organization API key \(org 'default'\):\s+pk_org_/);
    // npm itself dies of the signal; what matters is that the service under it shuts down too.
    const exit = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    child.kill('SIGTERM');
    await exit;
    let alive = true;
    for (let i = 0; i < 60 && alive; i += 1) {
      await new Promise((r) => setTimeout(r, 250));
      const left = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
        .split('\n')
        .filter((line) => line.includes(dataDir));
      alive =
        left.length > 0 ||
        (await fetch(`${url}/health`).then(
          () => true,
          () => false,
        ));
    }
    expect(alive).toBe(false);
    expect(stdout).toBe(`listening on ${url}\n`);
  }, 120_000);
});
