import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { until } from '../helpers/wait.ts';

const SERVE = fileURLToPath(new URL('../../src-main/serve.ts', import.meta.url));

/** Every process whose command line names `marker` (the session browsers' folders live under the data dir). */
function pidsUnder(marker: string): number[] {
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((line) => line.includes(marker) && line.includes('chromium'))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

interface Served {
  child: ChildProcess;
  url: string;
  stderr: () => string;
}

/** `npm run serve` as a real process on a free port. */
async function serve(dataDir: string): Promise<Served> {
  const child = spawn(process.execPath, [SERVE, '--port', '0', '--data-dir', dataDir], {
    env: { ...process.env, PORTICO_HEADLESS: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const url = await until(() => /listening on (\S+)/.exec(out)?.[1], 'the service to listen', 60_000);
  return { child, url, stderr: () => err };
}

describe('no orphan Chromium: a session browser dies with the service, even on kill -9, and a restart marks its session terminated', () => {
  let dataDir = '';
  const children: ChildProcess[] = [];
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('kill -9 of the service takes every session browser (and the warm pool) with it', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'portico-orphans-'));
    const marker = join(dataDir, 'tmp', 'sessions');
    const first = await serve(dataDir);
    children.push(first.child);
    const accountKey = /Account API key[^:]*:\s+(\S+)/.exec(first.stderr())?.[1] ?? '';
    expect(accountKey).toMatch(/^pk_acct_/);
    const created = await fetch(`${first.url}/public/sessions`, {
      method: 'POST',
      headers: { 'x-api-key': accountKey, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(created.status).toBe(200);
    const session = (await created.json()) as { session_id: string; cdp_url: string };
    // Driven by a client, so it has real renderer processes too.
    const client = await chromium.connectOverCDP(session.cdp_url);
    await client.contexts()[0]!.pages()[0]!.setContent('<p>busy</p>');
    await until(() => pidsUnder(marker).length >= 2, 'the session browser and a warm one to run', 30_000);

    first.child.kill('SIGKILL');
    await until(() => first.child.exitCode !== null || first.child.signalCode !== null, 'the service to die');
    await until(() => pidsUnder(marker).length === 0, 'every session Chromium process to exit after kill -9', 30_000);
    await client.close().catch(() => undefined);

    const second = await serve(dataDir);
    children.push(second.child);
    const read = await fetch(`${second.url}/public/sessions/${session.session_id}`, {
      headers: { 'x-api-key': accountKey },
    });
    expect(await read.json()).toMatchObject({ session_id: session.session_id, status: 'terminated', cdp_url: null });
    // The old CDP URL belongs to a dead server; the new one refuses the old token.
    const oldToken = new URL(session.cdp_url).pathname;
    await expect(
      chromium.connectOverCDP(`${second.url.replace('http', 'ws')}${oldToken}`, { timeout: 10_000 }),
    ).rejects.toThrow();

    second.child.kill('SIGTERM');
    await until(
      () => second.child.exitCode !== null || second.child.signalCode !== null,
      'the service to stop',
      30_000,
    );
    await until(() => pidsUnder(marker).length === 0, 'the warm pool to exit with the service', 30_000);
  });
});
