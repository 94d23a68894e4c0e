import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AutofillAgent } from '../../src-main/agent/autofill/index.ts';
import { JsonSchemaCompiler } from '../../src-main/base/jsonSchema.ts';
import { silentLogger } from '../../src-main/base/logger.ts';
import { BrowserRuntime } from '../../src-main/browser/browserRuntime.ts';
import { BUILTIN_AUTOFILL } from '../../src-main/contract/models.ts';
import { JobEvents } from '../../src-main/engine/jobs/jobEvents.ts';
import { JobScheduler } from '../../src-main/engine/jobs/jobScheduler.ts';
import { JobService } from '../../src-main/engine/jobs/jobService.ts';
import { LiveViewHub } from '../../src-main/engine/liveViewHub.ts';
import { PortalService } from '../../src-main/engine/portalService.ts';
import { openStore, type Store } from '../../src-main/store/store.ts';
import { html, scratchDir, startPageServer, type LocalServer, type RouteHandler } from '../helpers/browserFixtures.ts';
import { FakeClock } from '../helpers/fakeClock.ts';
import { until } from '../helpers/wait.ts';

const MINUTE_MS = 60_000;

// Pages that hang a naive agent: a frame no script can reach, and a page whose own script never yields.
// Each tells the test it has loaded (a beacon after `load`), so the job is stopped while the agent works on it.
const FORM = '<form action="/done" method="post"><label>Email <input name="email"></label><button>Send</button></form>';
const BEACON = "<script>addEventListener('load', () => fetch('/loaded'));</script>";
const loaded: string[] = [];
const PAGES: Record<string, RouteHandler> = {
  '/file-frame': html(`${FORM}<iframe src="file:///etc/passwd"></iframe>${BEACON}`),
  '/chrome-frame': html(`${FORM}<iframe src="chrome://version"></iframe>${BEACON}`),
  '/busy': html(
    `${FORM}${BEACON}<script>addEventListener('load', () => setTimeout(() => { for (;;) {} }, 200));</script>`,
  ),
  '/done': html('<h1>Thanks</h1>'),
  '/loaded': (req, res) => {
    loaded.push(new URL(req.headers.referer ?? 'http://x/', 'http://x').pathname);
    res.writeHead(204).end();
  },
};

describe('every job ends on time, whatever the page does (real Chromium, builtin autofill, fake clock)', () => {
  const data = scratchDir('portico-ontime-');
  const runtime = new BrowserRuntime({ dataDir: data.path, tempDir: join(data.path, 'tmp'), spareContext: false });
  let pages: LocalServer;
  const cleanups: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    pages = await startPageServer(PAGES);
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });
  afterAll(async () => {
    await runtime.close();
    await pages.close();
    data.cleanup();
  });

  const engine = async (
    path: string,
  ): Promise<{
    store: Store;
    clock: FakeClock;
    scheduler: JobScheduler;
    start(body?: Record<string, unknown>): Promise<string>;
  }> => {
    const dir = await mkdtemp(join(tmpdir(), 'portico-ontime-jobs-'));
    const store = openStore(join(dir, 'portico.db'));
    store.principals.createOrg('default');
    const clock = new FakeClock();
    const events = new JobEvents();
    const schemas = new JsonSchemaCompiler();
    const portals = new PortalService(store, schemas);
    const artifactsDir = join(dir, 'artifacts');
    const agent = new AutofillAgent({ navigationTimeoutMs: 10_000 });
    const scheduler = new JobScheduler(
      {
        store,
        runtime,
        events,
        liveViews: new LiveViewHub(),
        logger: silentLogger,
        artifactsDir,
        answerTimeoutMs: 24 * 60 * MINUTE_MS,
        clock,
      },
      { get: (model) => (model === BUILTIN_AUTOFILL ? agent : undefined) },
      { concurrency: 2 },
    );
    const jobs = new JobService({
      store,
      portals,
      schemas,
      scheduler,
      artifactsDir,
      baseUrl: () => 'http://127.0.0.1:1',
      models: { canRun: (model) => model === BUILTIN_AUTOFILL, hasKey: async (model) => model === BUILTIN_AUTOFILL },
    });
    portals.create('default', { endpoint_name: 'hostile', start_url: pages.url(path), task: 'fill' });
    cleanups.push(async () => {
      await scheduler.close();
      events.dispose();
      store.close();
      await rm(dir, { recursive: true, force: true });
    });
    const start = async (body: Record<string, unknown> = {}) =>
      (await jobs.start('default', 'hostile', { form_data: { email: 'ada@example.com' }, ...body })).job_id;
    return { store, clock, scheduler, start };
  };

  const statusOf = (store: Store, jobId: string) => store.jobs.get(jobId)?.status;
  const ended = async (store: Store, scheduler: JobScheduler, jobId: string) => {
    await until(
      () => ['failed', 'completed', 'cancelled'].includes(String(statusOf(store, jobId))),
      'the job to end',
      30_000,
    );
    await scheduler.settled(jobId);
  };
  // The page (and its frames) loaded in the job's browser: the agent is past navigation, at work on the page.
  const pageLoaded = (path: string) => until(() => loaded.includes(path), `${path} to load`, 30_000);

  it('a form beside a file:/// iframe is filled and sent: the frame no script can reach is skipped', async () => {
    const { store, scheduler, start } = await engine('/file-frame');
    const jobId = await start();
    await ended(store, scheduler, jobId);
    expect(store.jobs.get(jobId)).toMatchObject({ status: 'completed' });
  });

  for (const path of ['/file-frame', '/chrome-frame', '/busy']) {
    it(`timeout_minutes fires on ${path}`, async () => {
      const { store, clock, scheduler, start } = await engine(path);
      loaded.length = 0;
      const jobId = await start({ timeout_minutes: 1 });
      await pageLoaded(path);
      clock.advance(MINUTE_MS);
      await ended(store, scheduler, jobId);
      expect(store.jobs.get(jobId)).toMatchObject({ status: 'failed', error: 'timeout_minutes (1) exceeded' });
    });

    it(`cancel ends the job on ${path}`, async () => {
      const { store, scheduler, start } = await engine(path);
      loaded.length = 0;
      const jobId = await start();
      await pageLoaded(path);
      expect(scheduler.cancel(jobId)).toBe(true);
      await ended(store, scheduler, jobId);
      expect(store.jobs.get(jobId)).toMatchObject({ status: 'cancelled', error: 'Cancelled by user' });
    });
  }
});
