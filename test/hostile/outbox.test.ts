import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonSchemas } from '../../src-main/base/jsonSchema.ts';
import { silentLogger } from '../../src-main/base/logger.ts';
import { BrowserRuntime } from '../../src-main/browser/browserRuntime.ts';
import { BUILTIN_AUTOFILL } from '../../src-main/contract/models.ts';
import { JobEvents } from '../../src-main/engine/jobs/jobEvents.ts';
import { JobScheduler } from '../../src-main/engine/jobs/jobScheduler.ts';
import { JobService } from '../../src-main/engine/jobs/jobService.ts';
import { LiveViewHub } from '../../src-main/engine/liveViewHub.ts';
import { PortalService } from '../../src-main/engine/portalService.ts';
import { openStore, type Store } from '../../src-main/store/store.ts';
import { WebhookDispatcher } from '../../src-main/webhooks/webhookDispatcher.ts';
import { WebhookEmitter } from '../../src-main/webhooks/webhookEmitter.ts';
import { WebhookKeyService } from '../../src-main/webhooks/webhookKeys.ts';
import { memorySecrets } from '../helpers/memorySecrets.ts';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { scriptedRegistry } from '../helpers/scriptedAgents.ts';
import { until } from '../helpers/wait.ts';
import { startPythonReceiver, type PythonReceiver } from '../helpers/webhookReceiver.ts';

const SERVE = fileURLToPath(new URL('../../src-main/serve.ts', import.meta.url));
const CRASH_CHILD = fileURLToPath(new URL('./fixtures/outboxCrashChild.ts', import.meta.url));

/** What a second connection (another process would see the same) reads of a job and its deliveries. */
function committed(dbPath: string, jobId: string): { status: string | undefined; deliveries: string[] } {
  const db = new Database(dbPath, { readonly: true });
  try {
    const status = db.prepare<[string], { status: string }>('SELECT status FROM jobs WHERE id = ?').get(jobId)?.status;
    const deliveries = db
      .prepare<[string], { event_type: string }>(
        'SELECT event_type FROM webhook_deliveries WHERE job_id = ? ORDER BY job_seq',
      )
      .all(jobId)
      .map((row) => row.event_type);
    return { status, deliveries };
  } finally {
    db.close();
  }
}

describe("the webhook outbox row commits in the same transaction as the job's status change", () => {
  let pages: PageServer;
  let dir: string;
  let store: Store;
  let events: JobEvents;
  let runtime: BrowserRuntime;
  let jobs: JobService;
  let scheduler: JobScheduler;
  let dispatcher: WebhookDispatcher;
  const dbPath = (): string => join(dir, 'portico.db');

  const newScheduler = (): JobScheduler =>
    new JobScheduler(
      {
        store,
        runtime,
        events,
        liveViews: new LiveViewHub(),
        logger: silentLogger,
        artifactsDir: join(dir, 'artifacts'),
        answerTimeoutMs: 60_000,
      },
      scriptedRegistry,
      { concurrency: 1 },
    );

  beforeAll(async () => {
    pages = await startPageServer({ '/form': '<!doctype html><title>Outbox</title><p>form</p>' });
    dir = await mkdtemp(join(tmpdir(), 'portico-outbox-'));
    store = openStore(dbPath());
    store.principals.createOrg('default');
    events = new JobEvents();
    runtime = new BrowserRuntime({ dataDir: dir, tempDir: join(dir, 'tmp'), spareContext: false });
    scheduler = newScheduler();
    const portals = new PortalService(store, jsonSchemas);
    jobs = new JobService({
      store,
      portals,
      schemas: jsonSchemas,
      scheduler,
      artifactsDir: join(dir, 'artifacts'),
      baseUrl: () => 'http://127.0.0.1:1',
      models: { canRun: (model) => model === BUILTIN_AUTOFILL, hasKey: async (model) => model === BUILTIN_AUTOFILL },
    });
    const keys = new WebhookKeyService(store, async () => memorySecrets());
    // Never poked and never sending here: these cases look at the outbox itself.
    dispatcher = new WebhookDispatcher(store, keys, silentLogger, { userAgent: 'outbox-test' });
    new WebhookEmitter({ store, jobs, keys, dispatcher, events });
    await keys.generate('default');
    portals.create('default', {
      endpoint_name: 'hooked',
      start_url: `${pages.url}/form`,
      task: 'script:visit',
      webhook_url: 'http://127.0.0.1:9/hook',
    });
  });
  afterAll(async () => {
    await scheduler.close();
    await dispatcher.close();
    await runtime.close();
    events.dispose();
    store.close();
    await pages.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('inside the transaction neither the completion nor its delivery is visible to another connection; after the commit both are', async () => {
    const seen: { inside?: ReturnType<typeof committed>; after?: ReturnType<typeof committed> } = {};
    // Registered after the emitter's: it runs once the row is written, before the commit.
    const probe = events.addStatusWriter((job) => {
      if (job.status === 'completed') seen.inside = committed(dbPath(), job.id);
    });
    const listener = events.onDidChangeStatus((job) => {
      if (job.status === 'completed') seen.after = committed(dbPath(), job.id);
    });
    try {
      const { job_id: jobId } = await jobs.start('default', 'hooked', { form_data: {} });
      await until(() => seen.after, 'the job to complete', 30_000);
      expect(seen.inside).toEqual({ status: 'running', deliveries: [] });
      expect(seen.after).toEqual({ status: 'completed', deliveries: ['completed'] });
      await scheduler.settled(jobId);
    } finally {
      probe.dispose();
      listener.dispose();
    }
  });

  it('a failure in the transaction after the delivery row was written undoes both: the job is still running, no delivery; the next start fails it with its error webhook', async () => {
    const failing = events.addStatusWriter((job) => {
      if (job.status === 'completed') throw new Error('disk gone');
    });
    let jobId = '';
    try {
      jobId = (await jobs.start('default', 'hooked', { form_data: {} })).job_id;
      await until(
        () => store.jobs.logs(jobId).some((line) => line.line === 'job completed'),
        'the run to reach its end',
        30_000,
      );
      await scheduler.settled(jobId);
      expect(committed(dbPath(), jobId)).toEqual({ status: 'running', deliveries: [] });
    } finally {
      failing.dispose();
    }
    // What a restart does: the interrupted job fails, and its `error` webhook commits with that.
    await scheduler.close();
    scheduler = newScheduler();
    scheduler.recover();
    expect(committed(dbPath(), jobId)).toEqual({ status: 'failed', deliveries: ['error'] });
    expect(store.jobs.get(jobId)?.error).toBe('interrupted by restart');
  });
});

describe('a service killed the instant a job completed still sends its `completed` webhook after restarting', () => {
  let pages: PageServer;
  let dataDir: string;
  let receiver: PythonReceiver | undefined;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    pages = await startPageServer({ '/form': '<!doctype html><title>Crash form</title><p>form</p>' });
    dataDir = await mkdtemp(join(tmpdir(), 'portico-outbox-crash-'));
  });
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    receiver?.close();
    await pages.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('the delivery row is on disk after SIGKILL right after the commit, and the restarted service delivers it to a real receiver', async () => {
    const path = '/hook';
    const child = spawn(process.execPath, [CRASH_CHILD, dataDir, `${pages.url}/form`], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    children.push(child);
    let out = '';
    let err = '';
    child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
      child.once('exit', (code, signal) => resolve(signal ?? code)),
    );
    const secret = await until(() => /^(whsec_\S+)\n/.exec(out)?.[1], 'the child to make a signing key', 30_000);
    receiver = await startPythonReceiver(secret);
    child.stdin?.end(`${receiver.url(path)}\n`);
    expect(await exited, err).toBe('SIGKILL');
    const jobId = out.trim().split('\n')[1] ?? '';
    expect(committed(join(dataDir, 'portico.db'), jobId)).toEqual({ status: 'completed', deliveries: ['completed'] });
    expect(receiver.received).toHaveLength(0);

    const svc = spawn(process.execPath, [SERVE, '--port', '0', '--data-dir', dataDir], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PORTICO_HEADLESS: '1' },
    });
    children.push(svc);
    const [hit] = await receiver.waitFor(1, path, 30_000);
    expect(hit).toMatchObject({
      answered: 200,
      raw_ok: true,
      body: { job_id: jobId, event_type: 'completed', status: 'completed' },
    });
    expect(hit?.headers['x-webhook-attempt']).toBe('1');
    svc.kill('SIGTERM');
    await new Promise((resolve) => svc.once('exit', resolve));
    expect(committed(join(dataDir, 'portico.db'), jobId).deliveries).toEqual(['completed']);
  });
});
