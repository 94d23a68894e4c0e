import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { until } from '../helpers/wait.ts';

const SERVE = fileURLToPath(new URL('../../src-main/serve.ts', import.meta.url));

interface Served {
  child: ChildProcess;
  url: string;
  stderr: () => string;
  stop(): Promise<void>;
}

async function serve(dataDir: string): Promise<Served> {
  // The test runner's own umask (022) is what the service would inherit: it must set its own.
  const child = spawn(process.execPath, [SERVE, '--port', '0', '--data-dir', dataDir], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PORTICO_HEADLESS: '1' },
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const url = await until(
    () => /listening on (\S+)/.exec(out)?.[1] ?? (child.exitCode !== null ? 'exited' : undefined),
    'the service to listen',
    60_000,
  );
  if (url === 'exited') throw new Error(`serve exited: ${err}`);
  return {
    child,
    url,
    stderr: () => err,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Every folder and file under `root` (symbolic links left out) with its permission bits. */
function modes(root: string): { path: string; dir: boolean; mode: number }[] {
  const found = [{ path: root, dir: true, mode: lstatSync(root).mode & 0o777 }];
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (entry.isSymbolicLink()) continue;
    const path = join(entry.parentPath, entry.name);
    found.push({ path, dir: entry.isDirectory(), mode: lstatSync(path).mode & 0o777 });
  }
  return found;
}

const octal = (mode: number): string => `0${mode.toString(8)}`;

describe('nothing in the data folder is readable by other local users; the webhook key keeps no part of its secret in SQLite', () => {
  let pages: PageServer;
  let dataDir: string;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    pages = await startPageServer({
      '/form':
        '<!doctype html><title>Apply</title><form action="/done" method="post"><label for="n">Name</label><input id="n" name="name"><button>Apply</button></form>',
      '/done': '<!doctype html><title>Done</title><h1>Application received</h1>',
    });
    dataDir = await mkdtemp(join(tmpdir(), 'portico-perms-'));
  });
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await pages.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('an install from before the rule (0755 folders, 0644 files) is tightened at start, and everything made since is 0700/0600', async () => {
    // What an older version left: world-readable folder, settings and a job's screenshot.
    chmodSync(dataDir, 0o755);
    writeFileSync(join(dataDir, 'settings.json'), '{}\n', { mode: 0o644 });
    mkdirSync(join(dataDir, 'artifacts', 'old-job', 'screenshots'), { recursive: true, mode: 0o755 });
    writeFileSync(join(dataDir, 'artifacts', 'old-job', 'screenshots', 'screenshot_0000.png'), 'png', { mode: 0o644 });
    chmodSync(join(dataDir, 'artifacts', 'old-job', 'screenshots', 'screenshot_0000.png'), 0o644);

    const svc = await serve(dataDir);
    children.push(svc.child);
    const key = /Organization API key[^:]*:\s+(\S+)/.exec(svc.stderr())?.[1] ?? '';
    const api = async (path: string, body?: unknown): Promise<Record<string, unknown>> =>
      (await (
        await fetch(`${svc.url}${path}`, {
          method: body ? 'POST' : 'GET',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          ...(body ? { body: JSON.stringify(body) } : {}),
        })
      ).json()) as Record<string, unknown>;
    const { secret } = (await api('/webhooks/default/key', {})) as { secret: string };
    expect(secret).toMatch(/^whsec_.{20,}/);
    expect(await api('/webhooks/default/key')).toMatchObject({ configured: true, prefix: 'whsec_' });
    // A job leaves screenshots, a result and logs.
    await api('/portals/default', {
      endpoint_name: 'apply',
      start_url: `${pages.url}/form`,
      task: 'Apply',
      form_schema: { type: 'object', properties: { name: { type: 'string' } } },
    });
    const jobId = String((await api('/jobs/default/apply/start', { form_data: { name: 'Ada' } })).job_id);
    const done = await until(
      async () => {
        const status = await api(`/task/default/apply/status?job_id=${jobId}`);
        return ['completed', 'failed'].includes(String(status.status)) ? status : undefined;
      },
      'the job to end',
      60_000,
    );
    expect(done).toMatchObject({ status: 'completed', has_screenshots: true });
    const whileRunning = modes(dataDir);
    await svc.stop();

    for (const found of [...whileRunning, ...modes(dataDir)]) {
      expect({ path: found.path, mode: octal(found.mode & 0o077) }).toEqual({ path: found.path, mode: '00' });
    }
    const at = (path: string): string => octal(lstatSync(join(dataDir, path)).mode & 0o777);
    expect(at('.')).toBe('0700');
    expect(at('portico.db')).toBe('0600');
    expect(at('settings.json')).toBe('0600');
    expect(at('artifacts')).toBe('0700');
    expect(at('artifacts/old-job/screenshots/screenshot_0000.png')).toBe('0600');
    expect(at(`artifacts/${jobId}/screenshots/screenshot_0000.png`)).toBe('0600');
    expect(whileRunning.some((found) => found.path.endsWith('portico.db-wal'))).toBe(true);

    // The stored prefix is only the fixed `whsec_`: no character of the secret itself is in the database files.
    const db = new Database(join(dataDir, 'portico.db'), { readonly: true });
    try {
      expect(db.prepare('SELECT prefix FROM webhook_keys').all()).toEqual([{ prefix: 'whsec_' }]);
    } finally {
      db.close();
    }
    const random = secret.slice('whsec_'.length, 'whsec_'.length + 6);
    for (const file of readdirSync(dataDir).filter((name) => name.startsWith('portico.db'))) {
      expect(readFileSync(join(dataDir, file)).includes(Buffer.from(random)), file).toBe(false);
    }
  });

  it('migration 0018 blanks a prefix an older version stored (whsec_ plus six characters of the secret)', async () => {
    const db = new Database(join(dataDir, 'portico.db'));
    db.prepare("UPDATE webhook_keys SET prefix = 'whsec_AbC123'").run();
    db.prepare('DELETE FROM schema_migrations WHERE version = 18').run();
    db.close();
    const svc = await serve(dataDir);
    children.push(svc.child);
    await svc.stop();
    const after = new Database(join(dataDir, 'portico.db'), { readonly: true });
    try {
      expect(after.prepare('SELECT prefix FROM webhook_keys').all()).toEqual([{ prefix: 'whsec_' }]);
    } finally {
      after.close();
    }
  });
});
