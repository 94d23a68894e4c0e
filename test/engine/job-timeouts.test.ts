import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '../../src-main/agent/agentTypes.ts';
import { silentLogger } from '../../src-main/base/logger.ts';
import { BrowserRuntime } from '../../src-main/browser/browserRuntime.ts';
import { BUILTIN_AUTOFILL } from '../../src-main/contract/models.ts';
import { JobEvents } from '../../src-main/engine/jobs/jobEvents.ts';
import { JobScheduler } from '../../src-main/engine/jobs/jobScheduler.ts';
import { JobService } from '../../src-main/engine/jobs/jobService.ts';
import { JsonSchemaCompiler } from '../../src-main/base/jsonSchema.ts';
import { LiveViewHub } from '../../src-main/engine/liveViewHub.ts';
import { PortalService } from '../../src-main/engine/portalService.ts';
import { openStore, type Store } from '../../src-main/store/store.ts';
import { html, scratchDir, startPageServer, type LocalServer } from '../helpers/browserFixtures.ts';
import { FakeClock } from '../helpers/fakeClock.ts';
import { until } from '../helpers/wait.ts';

const MINUTE_MS = 60_000;
const ANSWER_TIMEOUT_MS = 24 * 60 * MINUTE_MS;

/** Opens the page and takes a step; asks a question when form_data says so; then works until stopped. */
const patientAgent: Agent = {
  async run(ctx) {
    await ctx.page.goto(ctx.startUrl);
    await ctx.recordStep('opened the start page');
    if (ctx.formData.ask === true)
      ctx.log(
        `answer: ${await ctx.ask({ question: 'Which colour?', options: ['red', 'green'], message: 'form_data has no colour' })}`,
      );
    return new Promise((_, reject) =>
      ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error), { once: true }),
    );
  },
};

// Everything an abort sets off without I/O (the run pausing its active clock, dropping its question) is
// done by the next macrotask; checking after this, not after a sleep, keeps "not yet" checks exact.
const settleMicrotasks = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('job timeouts on a fake clock (real Chromium, real SQLite)', () => {
  const data = scratchDir('portico-timeouts-');
  const runtime = new BrowserRuntime({ dataDir: data.path, tempDir: join(data.path, 'tmp'), spareContext: false });
  let pages: LocalServer;
  const cleanups: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    pages = await startPageServer({ '/form': html('<input id="colour">') });
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });
  afterAll(async () => {
    await runtime.close();
    await pages.close();
    data.cleanup();
  });

  /** The real engine on its own database, its minutes real length, its time on a fake clock. */
  const engine = async (): Promise<{
    store: Store;
    clock: FakeClock;
    jobs: JobService;
    scheduler: JobScheduler;
    start(body: Record<string, unknown>): Promise<string>;
  }> => {
    const dir = await mkdtemp(join(tmpdir(), 'portico-jobs-'));
    const store = openStore(join(dir, 'portico.db'));
    store.principals.createOrg('default');
    const clock = new FakeClock();
    const events = new JobEvents();
    const schemas = new JsonSchemaCompiler();
    const portals = new PortalService(store, schemas);
    const artifactsDir = join(dir, 'artifacts');
    const scheduler = new JobScheduler(
      {
        store,
        runtime,
        events,
        liveViews: new LiveViewHub(),
        logger: silentLogger,
        artifactsDir,
        answerTimeoutMs: ANSWER_TIMEOUT_MS,
        clock,
      },
      { get: (model) => (model === BUILTIN_AUTOFILL ? patientAgent : undefined) },
      { concurrency: 1 },
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
    portals.create('default', { endpoint_name: 'timed', start_url: pages.url('/form'), task: 'wait' });
    cleanups.push(async () => {
      await scheduler.close();
      events.dispose();
      store.close();
      await rm(dir, { recursive: true, force: true });
    });
    const start = async (body: Record<string, unknown>) =>
      (await jobs.start('default', 'timed', { form_data: {}, ...body })).job_id;
    return { store, clock, jobs, scheduler, start };
  };

  const statusOf = (store: Store, jobId: string) => store.jobs.get(jobId)?.status;
  // Waits for the run to wind down (closing its browser takes real time); a timer that never fired fails here, not at the test timeout.
  const ended = async (store: Store, scheduler: JobScheduler, jobId: string) => {
    await until(
      () => ['failed', 'completed', 'cancelled'].includes(String(statusOf(store, jobId))),
      'the job to end',
      30_000,
    );
    await scheduler.settled(jobId);
  };

  it('timeout_minutes counts active time only: ten minutes waiting for an answer do not count, the job fails after exactly one active minute', async () => {
    const { store, clock, jobs, scheduler, start } = await engine();
    const jobId = await start({ form_data: { ask: true }, timeout_minutes: 1, human_in_the_loop: true });
    await until(() => statusOf(store, jobId) === 'waiting_for_input', 'the question');
    clock.advance(10 * MINUTE_MS);
    await settleMicrotasks();
    const questionId = String(store.jobs.get(jobId)?.pending_question_id);
    expect(jobs.answer('default', 'timed', jobId, questionId, 'red')).toMatchObject({ success: true });
    await until(() => statusOf(store, jobId) === 'running', 'the job to go on after the answer');
    clock.advance(MINUTE_MS - 1);
    await settleMicrotasks();
    clock.advance(1);
    await ended(store, scheduler, jobId);
    // A timer firing early would have paused the active clock before the last millisecond: 59 999.
    expect(store.jobs.get(jobId)).toMatchObject({
      status: 'failed',
      error: 'timeout_minutes (1) exceeded',
      active_ms: MINUTE_MS,
      has_screenshots: true,
      steps: 2,
    });
    const events = store.jobs.events(jobId);
    expect(events.map((event) => event.type)).toEqual(['queued', 'step', 'question', 'answer', 'step']);
    expect(events.at(-1)?.data).toMatchObject({ description: 'state when the job failed' });
    expect(clock.pending(), 'no timer outlives the job').toEqual([]);
  });

  it('a question nobody answers fails the job after exactly 24 hours, and the wait is no active time', async () => {
    const { store, clock, scheduler, start } = await engine();
    const jobId = await start({ form_data: { ask: true }, human_in_the_loop: true });
    await until(() => statusOf(store, jobId) === 'waiting_for_input', 'the question');
    clock.advance(ANSWER_TIMEOUT_MS - 1);
    await settleMicrotasks();
    // A wrong question id is refused as stale only while the job still waits for the real one.
    expect(scheduler.runOf(jobId)?.answer('not-the-question', 'red')).toBe('stale');
    clock.advance(1);
    await ended(store, scheduler, jobId);
    expect(store.jobs.get(jobId)).toMatchObject({
      status: 'failed',
      error: "No answer to question 'Which colour?' within 1440 minutes",
      active_ms: 0,
    });
    expect(clock.pending(), 'no timer outlives the job').toEqual([]);
  });
});
