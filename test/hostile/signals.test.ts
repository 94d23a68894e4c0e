import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { jobEndedOtherwise, until } from '../helpers/wait.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SERVE = join(ROOT, 'src-main/serve.ts');
const BOOTSTRAP = join(ROOT, 'scripts/bootstrap.mjs');

interface Served {
  child: ChildProcess;
  url: string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The service in its own process group, as a supervisor or a terminal runs it: via the bootstrap (`npm run serve`) or node directly. */
async function serve(dataDir: string, via: 'bootstrap' | 'node'): Promise<Served> {
  const args =
    via === 'bootstrap'
      ? [BOOTSTRAP, 'serve', '--', '--port', '0', '--data-dir', dataDir]
      : [SERVE, '--port', '0', '--data-dir', dataDir];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PORTICO_HEADLESS: '1' },
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = await until(
    () => /listening on (\S+)/.exec(out)?.[1] ?? (child.exitCode !== null ? 'exited' : undefined),
    'the service to listen',
    60_000,
  );
  if (url === 'exited') throw new Error(`serve exited: ${err}`);
  return { child, url, stderr: () => err, exited };
}

interface Proc {
  pid: number;
  ppid: number;
  args: string;
}

function processes(): Proc[] {
  return execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3] ?? '' }));
}

/** Every Chromium process started under `rootPid` (browsers run in their own process groups, so by parentage). */
function chromiumUnder(rootPid: number): Proc[] {
  const all = processes();
  const tree = new Set([rootPid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const proc of all) {
      if (tree.has(proc.ppid) && !tree.has(proc.pid)) {
        tree.add(proc.pid);
        grew = true;
      }
    }
  }
  return all.filter((proc) => tree.has(proc.pid) && /chrom/i.test(proc.args));
}

function alive(pids: number[]): number[] {
  const live = new Set(processes().map((proc) => proc.pid));
  return pids.filter((pid) => live.has(pid));
}

function userDataDirs(procs: Proc[]): string[] {
  return [
    ...new Set(
      procs
        .map((proc) => /--user-data-dir=(\S+)/.exec(proc.args)?.[1])
        .filter((dir): dir is string => dir !== undefined),
    ),
  ];
}

/** Folders under the data folder's tmp/ (two levels down: tmp/<kind>/<folder>). */
function tempFolders(dataDir: string): string[] {
  const tmp = join(dataDir, 'tmp');
  if (!existsSync(tmp)) return [];
  return readdirSync(tmp, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isDirectory() && /^playwright[-_]|^portico-session-/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}

function jobRow(dataDir: string, jobId: string): { status: string; error: string | null } | undefined {
  const db = new Database(join(dataDir, 'portico.db'), { readonly: true });
  try {
    return db
      .prepare<[string], { status: string; error: string | null }>('SELECT status, error FROM jobs WHERE id = ?')
      .get(jobId);
  } finally {
    db.close();
  }
}

interface StalledServer {
  url: string;
  requests: number;
  close(): void;
}

/** A page that never finishes loading: a job on it is `running`, its browser busy, when the signal comes. */
async function startStalledServer(): Promise<StalledServer> {
  const sockets = new Set<Socket>();
  const state = { requests: 0 };
  const server = createServer(() => {
    state.requests += 1;
  });
  server.on('connection', (socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/slow`,
    get requests() {
      return state.requests;
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

describe('stopping by signal: running jobs fail "interrupted by shutdown", every browser closes, no temp folder stays', () => {
  let pages: PageServer;
  let stalled: StalledServer;
  const dirs: string[] = [];
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    // A field the form_data does not have: the builtin autofill asks, and the job waits for an answer with its browser open.
    stalled = await startStalledServer();
    pages = await startPageServer({
      '/form':
        '<!doctype html><title>Colour</title><form action="/done"><label for="c">Favourite colour</label><input id="c" name="colour" required><button>Send</button></form>',
    });
  });
  afterAll(async () => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null && child.pid) process.kill(-child.pid, 'SIGKILL');
    await pages.close();
    stalled.close();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  /** A fresh service with one job waiting for input, and the Chromium processes it runs. */
  async function serviceWithWaitingJob(
    via: 'bootstrap' | 'node',
    page: 'form' | 'stalled' = 'form',
  ): Promise<{ svc: Served; dataDir: string; jobId: string; browsers: Proc[] }> {
    const dataDir = await mkdtemp(join(tmpdir(), 'portico-signals-'));
    dirs.push(dataDir);
    const svc = await serve(dataDir, via);
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
    await api('/portals/default', {
      endpoint_name: 'colour',
      start_url: page === 'form' ? `${pages.url}/form` : stalled.url,
      task: 'Fill the form',
      form_schema: { type: 'object', properties: { colour: { type: 'string' } } },
    });
    const jobId = String((await api('/jobs/default/colour/start', { form_data: {}, human_in_the_loop: true })).job_id);
    if (page === 'form') {
      const status = async () =>
        (await api(`/task/default/colour/status?job_id=${jobId}`)) as { status: string; error?: string | null };
      await until(async () => (await status()).status === 'waiting_for_input', 'the job to wait for input', {
        timeoutMs: 30_000,
        fail: jobEndedOtherwise(status, ['waiting_for_input']),
      });
    } else await until(() => stalled.requests > 0, "the job's browser to ask for the page", 30_000);
    // The job's browser and the warm session browser are both up.
    const browsers = await until(
      () => {
        const procs = chromiumUnder(svc.child.pid ?? 0);
        return userDataDirs(procs).length >= 2 ? procs : undefined;
      },
      "the service's browsers to run",
      30_000,
    );
    return { svc, dataDir, jobId, browsers };
  }

  async function expectCleanStop(run: {
    svc: Served;
    dataDir: string;
    jobId: string;
    browsers: Proc[];
  }): Promise<void> {
    const { code, signal } = await run.svc.exited;
    expect({ code, signal, stderr: run.svc.stderr().includes('shutdown failed') }).toEqual({
      code: 0,
      signal: null,
      stderr: false,
    });
    expect(jobRow(run.dataDir, run.jobId)).toEqual({ status: 'failed', error: 'interrupted by shutdown' });
    // Renderer processes may take a moment to notice their browser is gone; none outlives it for long.
    await until(
      () => alive(run.browsers.map((proc) => proc.pid)).length === 0,
      'every Chromium process of the service to exit',
      10_000,
    );
    for (const dir of userDataDirs(run.browsers)) {
      expect(dir.startsWith(join(run.dataDir, 'tmp'))).toBe(true);
      expect(existsSync(dir)).toBe(false);
    }
    expect(tempFolders(run.dataDir)).toEqual([]);
  }

  it('SIGTERM to the process group of `npm run serve` (what systemd sends), once', async () => {
    const run = await serviceWithWaitingJob('bootstrap');
    process.kill(-(run.svc.child.pid ?? 0), 'SIGTERM');
    await expectCleanStop(run);
  });

  it('SIGTERM to the process group while a job is running (its page still loading)', async () => {
    const run = await serviceWithWaitingJob('bootstrap', 'stalled');
    expect(jobRow(run.dataDir, run.jobId)?.status).toBe('running');
    process.kill(-(run.svc.child.pid ?? 0), 'SIGTERM');
    await expectCleanStop(run);
  });

  it('SIGINT twice to the process group (Ctrl-C, Ctrl-C): the second does not cut the shutdown short', async () => {
    const run = await serviceWithWaitingJob('bootstrap');
    process.kill(-(run.svc.child.pid ?? 0), 'SIGINT');
    await until(() => run.svc.stderr().includes('SIGINT received; stopping'), 'the service to start stopping');
    process.kill(-(run.svc.child.pid ?? 0), 'SIGINT');
    await expectCleanStop(run);
    expect(run.svc.stderr()).toContain('already stopping');
  });

  it('SIGHUP (terminal closed) to the node process, then SIGTERM while it stops', async () => {
    const run = await serviceWithWaitingJob('node');
    run.svc.child.kill('SIGHUP');
    await until(() => run.svc.stderr().includes('SIGHUP received; stopping'), 'the service to start stopping');
    run.svc.child.kill('SIGTERM');
    await expectCleanStop(run);
  });

  it('kill -9 of the group leaves its temp folders in the data folder; the next start removes them and fails the job as interrupted', async () => {
    const run = await serviceWithWaitingJob('bootstrap');
    process.kill(-(run.svc.child.pid ?? 0), 'SIGKILL');
    await run.svc.exited;
    // Browsers run in their own groups; they end when their pipe to the dead service closes.
    await until(
      () => alive(run.browsers.map((proc) => proc.pid)).length === 0,
      'the orphaned browsers to exit',
      30_000,
    );
    const left = tempFolders(run.dataDir);
    expect(left.length).toBeGreaterThan(0);
    for (const dir of userDataDirs(run.browsers)) expect(dir.startsWith(join(run.dataDir, 'tmp'))).toBe(true);

    const again = await serve(run.dataDir, 'node');
    children.push(again.child);
    for (const dir of left) expect(existsSync(dir)).toBe(false);
    expect(jobRow(run.dataDir, run.jobId)).toEqual({ status: 'failed', error: 'interrupted by restart' });
    again.child.kill('SIGTERM');
    expect(await again.exited).toEqual({ code: 0, signal: null });
    expect(tempFolders(run.dataDir)).toEqual([]);
  });
});

/** The builtin autofill on a page it cannot finish: a frame no script can reach, and the page's own endless loop after load. */
const HOSTILE_PAGE =
  '<!doctype html><title>Hostile</title><form action="/done"><label>Email <input name="email"></label><button>Send</button></form>' +
  '<iframe src="file:///etc/passwd"></iframe><iframe src="chrome://version"></iframe>' +
  "<script>addEventListener('load', () => { fetch('/loaded'); setTimeout(() => { for (;;) {} }, 300); });</script>";

/** ffprobe's reading of a WebM: its duration in seconds (throws when the file does not play). */
function webmSeconds(file: string): number {
  const out = execFileSync(
    'ffprobe',
    ['-v', 'error', '-show_entries', 'format=duration,format_name', '-of', 'json', file],
    { encoding: 'utf8' },
  );
  const probe = JSON.parse(out) as { format: { duration: string; format_name: string } };
  expect(probe.format.format_name).toContain('webm');
  return Number(probe.format.duration);
}

/** The job's log lines (what it said of its recording, when a file is not where it should be). */
function jobLog(dataDir: string, jobId: string): string[] {
  const db = new Database(join(dataDir, 'portico.db'), { readonly: true });
  try {
    return db
      .prepare<[string], { line: string }>('SELECT line FROM job_logs WHERE job_id = ? ORDER BY seq')
      .all(jobId)
      .map((row) => row.line);
  } finally {
    db.close();
  }
}

function recordingFiles(dataDir: string, jobId: string): string[] {
  const dir = join(dataDir, 'artifacts', jobId);
  return existsSync(dir) ? readdirSync(dir).filter((name) => name.startsWith('recording')) : [];
}

describe('a hostile page and a recording hold no shutdown: jobs end on time, ffmpeg finishes the file', () => {
  let pages: PageServer;
  let loads = 0;
  const dirs: string[] = [];
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    pages = await startPageServer({
      '/hostile': HOSTILE_PAGE,
      '/loaded': () => {
        loads += 1;
        return { status: 204, body: '' };
      },
    });
  });
  afterAll(async () => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null && child.pid) process.kill(-child.pid, 'SIGKILL');
    await pages.close();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  /** A fresh service running one recorded job that is at work on the hostile page. */
  async function recordedJobOnHostilePage(): Promise<{ svc: Served; dataDir: string; jobId: string }> {
    const dataDir = await mkdtemp(join(tmpdir(), 'portico-signals-hostile-'));
    dirs.push(dataDir);
    const svc = await serve(dataDir, 'bootstrap');
    children.push(svc.child);
    const key = /Organization API key[^:]*:\s+(\S+)/.exec(svc.stderr())?.[1] ?? '';
    const post = async (path: string, body: unknown): Promise<Record<string, unknown>> =>
      (await (
        await fetch(`${svc.url}${path}`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).json()) as Record<string, unknown>;
    await post('/portals/default', {
      endpoint_name: 'hostile',
      start_url: `${pages.url}/hostile`,
      task: 'Fill the form',
    });
    const before = loads;
    const jobId = String(
      (await post('/jobs/default/hostile/start', { form_data: { email: 'ada@example.com' }, record_video: true }))
        .job_id,
    );
    await until(() => loads > before, "the job's browser to load the hostile page", 30_000);
    expect(jobRow(dataDir, jobId)?.status).toBe('running');
    return { svc, dataDir, jobId };
  }

  it('SIGTERM to the process group stops the service within 30 s; the job fails "interrupted by shutdown" and its recording plays', async () => {
    const run = await recordedJobOnHostilePage();
    const sent = Date.now();
    process.kill(-(run.svc.child.pid ?? 0), 'SIGTERM');
    const { code, signal } = await until(
      async () => (run.svc.child.exitCode !== null || run.svc.child.signalCode !== null ? run.svc.exited : undefined),
      'the service to exit',
      30_000,
    );
    expect({ code, signal, within30s: Date.now() - sent < 30_000 }).toEqual({ code: 0, signal: null, within30s: true });
    expect(jobRow(run.dataDir, run.jobId)).toEqual({ status: 'failed', error: 'interrupted by shutdown' });
    expect({
      files: recordingFiles(run.dataDir, run.jobId),
      log: jobLog(run.dataDir, run.jobId).filter((line) => /record/.test(line)),
      stderr: run.svc
        .stderr()
        .split('\n')
        .filter((line) => /record|stop step/.test(line)),
    }).toMatchObject({ files: ['recording.webm'] });
    expect(webmSeconds(join(run.dataDir, 'artifacts', run.jobId, 'recording.webm'))).toBeGreaterThan(0);
  });

  it('kill -9 of the group leaves a .webm.part; the next start removes it', async () => {
    const run = await recordedJobOnHostilePage();
    await until(
      () => recordingFiles(run.dataDir, run.jobId).includes('recording.webm.part'),
      'ffmpeg to start writing',
      30_000,
    );
    process.kill(-(run.svc.child.pid ?? 0), 'SIGKILL');
    await run.svc.exited;
    const again = await serve(run.dataDir, 'node');
    children.push(again.child);
    expect(recordingFiles(run.dataDir, run.jobId)).toEqual([]);
    again.child.kill('SIGTERM');
    expect(await again.exited).toEqual({ code: 0, signal: null });
  });
});
