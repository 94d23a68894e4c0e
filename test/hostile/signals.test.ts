import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
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
async function serve(dataDir: string, via: 'bootstrap' | 'node', env: NodeJS.ProcessEnv = {}): Promise<Served> {
  const args =
    via === 'bootstrap'
      ? [BOOTSTRAP, 'serve', '--', '--port', '0', '--data-dir', dataDir]
      : [SERVE, '--port', '0', '--data-dir', dataDir];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PORTICO_HEADLESS: '1', ...env },
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
  /** Its process group: a browser and every helper it starts share one (each browser has its own). */
  group: number;
  args: string;
}

/**
 * The live processes, from /proc (not `ps`: these waits poll, and a `ps` per poll costs a fork and a read
 * of every process). A zombie has exited (it cannot write anything) and is left out.
 */
function processTable(): { pid: number; ppid: number; group: number }[] {
  const table: { pid: number; ppid: number; group: number }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // `pid (comm) state ppid pgrp …`: comm may hold spaces and parentheses, so read after its last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, ppid, group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state !== 'Z') table.push({ pid: Number(entry), ppid: Number(ppid), group: Number(group) });
    } catch {
      // It exited while we looked.
    }
  }
  return table;
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}

/** Every Chromium process started under `rootPid` (browsers run in their own process groups, so by parentage). */
function chromiumUnder(rootPid: number): Proc[] {
  const table = processTable();
  const tree = new Set([rootPid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const proc of table) {
      if (tree.has(proc.ppid) && !tree.has(proc.pid)) {
        tree.add(proc.pid);
        grew = true;
      }
    }
  }
  return table
    .filter((proc) => proc.pid !== rootPid && tree.has(proc.pid))
    .map((proc) => ({ pid: proc.pid, group: proc.group, args: commandLine(proc.pid) }))
    .filter((proc) => /chrom/i.test(proc.args));
}

/**
 * The processes still running in the process groups of `browsers`: the browsers seen and every helper
 * they started, also those started after `browsers` was read (a helper left running can still write into
 * the browser's folder).
 */
function leftOf(browsers: Proc[]): Proc[] {
  const groups = new Set(browsers.map((proc) => proc.group));
  return processTable()
    .filter((proc) => groups.has(proc.group))
    .map((proc) => ({ pid: proc.pid, group: proc.group, args: commandLine(proc.pid) }));
}

/** Waits until nothing of `browsers` runs; fails naming what is left (pid and command line). */
async function browsersGone(browsers: Proc[], what: string, timeoutMs: number): Promise<void> {
  await until(() => leftOf(browsers).length === 0, what, timeoutMs).catch((error: unknown) => {
    const left = leftOf(browsers).map((proc) => `${proc.pid} ${proc.args.slice(0, 160)}`);
    throw new Error(`${error instanceof Error ? error.message : String(error)}; still running:\n${left.join('\n')}`);
  });
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

/** The builtin autofill on a page it cannot finish: a frame no script can reach, and the page's own endless loop after load. */
const HOSTILE_PAGE =
  '<!doctype html><title>Hostile</title><form action="/done"><label>Email <input name="email"></label><button>Send</button></form>' +
  '<iframe src="file:///etc/passwd"></iframe><iframe src="chrome://version"></iframe>' +
  // The renderer loops 300 ms after the load, or as soon as the filler types (a fast filler submitted within
  // 300 ms and the job ended on its own before the signal): the job is held by the page either way.
  "<script>const hang = () => { for (;;) {} }; addEventListener('input', () => setTimeout(hang, 0), true);" +
  " addEventListener('load', () => { fetch('/loaded'); setTimeout(hang, 300); });</script>";

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

type JobKind = 'waiting' | 'loading' | 'hostile';

interface Job {
  kind: JobKind;
  id: string;
}

interface Run {
  svc: Served;
  dataDir: string;
  jobs: Job[];
  browsers: Proc[];
}

/** What each kind of job is, in the portal it runs on. */
const JOB_LABEL: Record<JobKind, string> = {
  waiting: 'the job waiting for input',
  loading: 'the job whose page is still loading',
  hostile: 'the recorded job on the hostile page',
};

// One service per test (a test stops it), each with the jobs its signal must end: a service start is most
// of a test's time, so the jobs that can share one stop do (a job waiting for input, one whose page never
// finishes loading, a recorded one held by a hostile page).
describe('stopping by signal: running jobs fail "interrupted by shutdown", every browser closes, ffmpeg finishes the file, no temp folder stays', {
  timeout: 120_000,
}, () => {
  let pages: PageServer;
  let stalled: StalledServer;
  let loads = 0;
  const dirs: string[] = [];
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    // `/form` has a field the form_data does not have: the builtin autofill asks, and the job waits for an answer with its browser open.
    stalled = await startStalledServer();
    pages = await startPageServer({
      '/form':
        '<!doctype html><title>Colour</title><form action="/done"><label for="c">Favourite colour</label><input id="c" name="colour" required><button>Send</button></form>',
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
    stalled.close();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  /** A fresh service running one job of each of `kinds` (at the state named), and the Chromium processes it runs. */
  async function serviceWithJobs(via: 'bootstrap' | 'node', kinds: JobKind[]): Promise<Run> {
    const dataDir = await mkdtemp(join(tmpdir(), 'portico-signals-'));
    dirs.push(dataDir);
    // Every job holds a slot while it waits or hangs: room for all of them at once.
    const svc = await serve(dataDir, via, { PORTICO_JOB_CONCURRENCY: String(Math.max(2, kinds.length)) });
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
    const started = { loads, stalled: stalled.requests };
    const jobs = await Promise.all(
      kinds.map(async (kind): Promise<Job> => {
        await api('/portals/default', {
          endpoint_name: kind,
          start_url:
            kind === 'waiting' ? `${pages.url}/form` : kind === 'loading' ? stalled.url : `${pages.url}/hostile`,
          task: 'Fill the form',
          ...(kind !== 'hostile' && {
            form_schema: { type: 'object', properties: { colour: { type: 'string' } } },
          }),
        });
        const start =
          kind === 'hostile'
            ? { form_data: { email: 'ada@example.com' }, record_video: true }
            : { form_data: {}, human_in_the_loop: true };
        return { kind, id: String((await api(`/jobs/default/${kind}/start`, start)).job_id) };
      }),
    );
    for (const job of jobs) {
      const status = async () =>
        (await api(`/task/default/${job.kind}/status?job_id=${job.id}`)) as { status: string; error?: string | null };
      if (job.kind === 'waiting')
        await until(async () => (await status()).status === 'waiting_for_input', `${JOB_LABEL.waiting} to wait`, {
          timeoutMs: 30_000,
          fail: jobEndedOtherwise(status, ['waiting_for_input']),
        });
      else if (job.kind === 'loading')
        await until(() => stalled.requests > started.stalled, "the loading job's browser to ask for the page", {
          timeoutMs: 30_000,
          fail: jobEndedOtherwise(status, ['running']),
        });
      else {
        await until(() => loads > started.loads, "the recorded job's browser to load the hostile page", {
          timeoutMs: 30_000,
          fail: jobEndedOtherwise(status, ['running']),
        });
        await until(
          () => recordingFiles(dataDir, job.id).includes('recording.webm.part'),
          'ffmpeg to start writing the recording',
          { timeoutMs: 30_000, fail: jobEndedOtherwise(status, ['running']) },
        );
      }
      if (job.kind !== 'waiting') expect(jobRow(dataDir, job.id)?.status, JOB_LABEL[job.kind]).toBe('running');
    }
    // The jobs' browser and the warm session browser are both up.
    const browsers = await until(
      () => {
        const procs = chromiumUnder(svc.child.pid ?? 0);
        return userDataDirs(procs).length >= 2 ? procs : undefined;
      },
      "the service's browsers to run",
      30_000,
    );
    return { svc, dataDir, jobs, browsers };
  }

  /** The service exits 0 within 30 s of the signal, every job failed "interrupted by shutdown", no browser and no temp folder is left. */
  async function expectCleanStop(run: Run, sent: number): Promise<void> {
    const { code, signal } = await until(
      async () => (run.svc.child.exitCode !== null || run.svc.child.signalCode !== null ? run.svc.exited : undefined),
      'the service to exit',
      30_000,
    );
    expect({
      code,
      signal,
      within30s: Date.now() - sent < 30_000,
      stderr: run.svc.stderr().includes('shutdown failed'),
    }).toEqual({ code: 0, signal: null, within30s: true, stderr: false });
    for (const job of run.jobs)
      expect(jobRow(run.dataDir, job.id), JOB_LABEL[job.kind]).toEqual({
        status: 'failed',
        error: 'interrupted by shutdown',
      });
    // Renderer processes may take a moment to notice their browser is gone; none outlives it for long.
    await browsersGone(run.browsers, 'every Chromium process of the service to exit', 30_000);
    for (const dir of userDataDirs(run.browsers)) {
      expect(dir.startsWith(join(run.dataDir, 'tmp'))).toBe(true);
      expect(existsSync(dir)).toBe(false);
    }
    expect(tempFolders(run.dataDir)).toEqual([]);
    const recorded = run.jobs.find((job) => job.kind === 'hostile');
    if (recorded) {
      expect({
        files: recordingFiles(run.dataDir, recorded.id),
        log: jobLog(run.dataDir, recorded.id).filter((line) => /record/.test(line)),
        stderr: run.svc
          .stderr()
          .split('\n')
          .filter((line) => /record|stop step/.test(line)),
      }).toMatchObject({ files: ['recording.webm'] });
      expect(webmSeconds(join(run.dataDir, 'artifacts', recorded.id, 'recording.webm'))).toBeGreaterThan(0);
    }
  }

  it('SIGTERM to the process group of `npm run serve` (what systemd sends), once: a job waiting for input, one whose page is still loading, and a recorded one on a hostile page all end within 30 s, the recording plays', async () => {
    const run = await serviceWithJobs('bootstrap', ['waiting', 'loading', 'hostile']);
    const sent = Date.now();
    process.kill(-(run.svc.child.pid ?? 0), 'SIGTERM');
    await expectCleanStop(run, sent);
  });

  it('SIGINT twice to the process group (Ctrl-C, Ctrl-C): the second does not cut the shutdown short', async () => {
    const run = await serviceWithJobs('bootstrap', ['waiting']);
    const sent = Date.now();
    process.kill(-(run.svc.child.pid ?? 0), 'SIGINT');
    await until(() => run.svc.stderr().includes('SIGINT received; stopping'), 'the service to start stopping');
    process.kill(-(run.svc.child.pid ?? 0), 'SIGINT');
    await expectCleanStop(run, sent);
    expect(run.svc.stderr()).toContain('already stopping');
  });

  it('SIGHUP (terminal closed) to the node process, then SIGTERM while it stops', async () => {
    const run = await serviceWithJobs('node', ['waiting']);
    const sent = Date.now();
    run.svc.child.kill('SIGHUP');
    await until(() => run.svc.stderr().includes('SIGHUP received; stopping'), 'the service to start stopping');
    run.svc.child.kill('SIGTERM');
    await expectCleanStop(run, sent);
  });

  it('kill -9 of the group leaves its temp folders and a .webm.part in the data folder; the next start removes them and fails the jobs as interrupted', async () => {
    const run = await serviceWithJobs('bootstrap', ['waiting', 'hostile']);
    process.kill(-(run.svc.child.pid ?? 0), 'SIGKILL');
    await run.svc.exited;
    // Browsers run in their own groups; they end when their pipe to the dead service closes.
    await browsersGone(run.browsers, 'the orphaned browsers to exit', 30_000);
    const left = tempFolders(run.dataDir);
    expect(left.length).toBeGreaterThan(0);
    for (const dir of userDataDirs(run.browsers)) expect(dir.startsWith(join(run.dataDir, 'tmp'))).toBe(true);
    const recorded = run.jobs.find((job) => job.kind === 'hostile')?.id ?? '';
    expect(recordingFiles(run.dataDir, recorded)).toEqual(['recording.webm.part']);

    const again = await serve(run.dataDir, 'node');
    children.push(again.child);
    for (const dir of left) expect(existsSync(dir)).toBe(false);
    expect(recordingFiles(run.dataDir, recorded)).toEqual([]);
    for (const job of run.jobs)
      expect(jobRow(run.dataDir, job.id), JOB_LABEL[job.kind]).toEqual({
        status: 'failed',
        error: 'interrupted by restart',
      });
    again.child.kill('SIGTERM');
    expect(await again.exited).toEqual({ code: 0, signal: null });
    expect(
      tempFolders(run.dataDir),
      `after the restarted service stopped (before the restart: ${left.join(', ')})`,
    ).toEqual([]);
  });
});
