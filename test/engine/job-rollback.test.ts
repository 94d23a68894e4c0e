import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '../../src-main/agent/agentTypes.ts';
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
import { html, scratchDir, startPageServer, type LocalServer } from '../helpers/browserFixtures.ts';
import { FakeClock } from '../helpers/fakeClock.ts';
import { expectNoProcessesUnder } from '../helpers/leaks.ts';

// issue 23 item 2: a job run's cleanup is one Lifecycle dispose(). A failure injected after its browser was
// leased (the agent failing; then real SQLite refusing the lines that record how the job went) still closes
// the browser on the profile folder, releases the profile lock and the live view, and the job ends `failed`.

const PROFILE_ID = '44444444-4444-4444-8444-444444444444';

/** Opens the page and takes a step (whose log line the database may refuse), then fails or finishes. */
const stepAgent: Agent = {
  async run(ctx) {
    await ctx.page.goto(ctx.startUrl);
    await ctx.recordStep('opened the start page');
    if (ctx.formData.fail === true) throw new Error('the agent gave up');
    return { result: { done: true } };
  },
};

describe('JobRun rollback: everything a run acquired is released, whatever fails (real Chromium, real SQLite)', () => {
  const data = scratchDir('portico-job-rollback-');
  const runtime = new BrowserRuntime({ dataDir: data.path, tempDir: join(data.path, 'tmp'), spareContext: false });
  const liveViews = new LiveViewHub();
  let pages: LocalServer;
  let store: Store;
  let scheduler: JobScheduler;
  let jobs: JobService;
  let events: JobEvents;

  beforeAll(async () => {
    pages = await startPageServer({ '/form': html('<input id="colour">') });
    store = openStore(join(data.path, 'portico.db'));
    store.principals.createOrg('default');
    const now = new Date().toISOString();
    store.profiles.insert({
      id: PROFILE_ID,
      org_id: 'default',
      name: 'kept',
      provider_profile_id: PROFILE_ID,
      created_at: now,
      updated_at: now,
    });
    events = new JobEvents();
    const schemas = new JsonSchemaCompiler();
    const portals = new PortalService(store, schemas);
    const artifactsDir = join(data.path, 'artifacts');
    scheduler = new JobScheduler(
      {
        store,
        runtime,
        events,
        liveViews,
        logger: silentLogger,
        artifactsDir,
        answerTimeoutMs: 60_000,
        clock: new FakeClock(),
      },
      { get: (model) => (model === BUILTIN_AUTOFILL ? stepAgent : undefined) },
      { concurrency: 1 },
    );
    jobs = new JobService({
      store,
      portals,
      schemas,
      scheduler,
      artifactsDir,
      baseUrl: () => 'http://127.0.0.1:1',
      models: { canRun: (model) => model === BUILTIN_AUTOFILL, hasKey: async (model) => model === BUILTIN_AUTOFILL },
    });
    portals.create('default', { endpoint_name: 'form', start_url: pages.url('/form'), task: 'fill' });
  });
  afterAll(async () => {
    await scheduler?.close();
    await runtime.close();
    events?.dispose();
    store?.close();
    await pages?.close();
    await expectNoProcessesUnder(data.path, 'no Chromium left on the data folder');
    data.cleanup();
  });

  /** Runs one job on the profile (its own Chromium on the profile folder, holding the profile lock) to its end. */
  const run = async (formData: Record<string, unknown>): Promise<string> => {
    const { job_id: jobId } = await jobs.start('default', 'form', {
      form_data: formData,
      profile_id: PROFILE_ID,
      save_profile: true,
    });
    await scheduler.settled(jobId);
    return jobId;
  };
  const profileFolder = (): string => runtime.profileDir(PROFILE_ID);
  const expectReleased = async (jobId: string): Promise<void> => {
    await expectNoProcessesUnder(profileFolder(), 'no Chromium left on the profile folder');
    expect(runtime.locks.isHeld(PROFILE_ID), 'the profile lock released').toBe(false);
    expect(liveViews.get(String(store.jobs.get(jobId)?.view_token)), 'the live view gone').toBeUndefined();
  };

  it('the agent fails after the browser was leased: the browser closes, the lock and live view go, the job fails', async () => {
    const jobId = await run({ fail: true });
    expect(store.jobs.get(jobId)).toMatchObject({ status: 'failed', error: 'the agent gave up' });
    await expectReleased(jobId);
  });

  it('the database refuses the step and the failure lines: the run still releases everything and ends failed', async () => {
    store.db.exec(
      "CREATE TRIGGER injected_failure BEFORE INSERT ON job_logs WHEN NEW.line LIKE 'step %' OR NEW.line LIKE 'job failed%' BEGIN SELECT RAISE(ABORT, 'injected: log refused'); END",
    );
    try {
      const jobId = await run({});
      expect(store.jobs.get(jobId)).toMatchObject({ status: 'failed', error: 'injected: log refused' });
      await expectReleased(jobId);
    } finally {
      store.db.exec('DROP TRIGGER injected_failure');
    }
    // The profile is free for the next job at once.
    const next = await run({});
    expect(store.jobs.get(next)).toMatchObject({ status: 'completed', result: { done: true } });
    await expectReleased(next);
  });
});
