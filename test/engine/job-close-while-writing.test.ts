import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '../../src-main/agent/agentTypes.ts';
import { JsonSchemaCompiler } from '../../src-main/base/jsonSchema.ts';
import { silentLogger } from '../../src-main/base/logger.ts';
import { BrowserRuntime } from '../../src-main/browser/browserRuntime.ts';
import { BUILTIN_AUTOFILL } from '../../src-main/contract/models.ts';
import { JobEvents } from '../../src-main/engine/jobs/jobEvents.ts';
import { screenshotName, screenshotsDir } from '../../src-main/engine/jobs/jobRun.ts';
import { JobScheduler } from '../../src-main/engine/jobs/jobScheduler.ts';
import { JobService } from '../../src-main/engine/jobs/jobService.ts';
import { LiveViewHub } from '../../src-main/engine/liveViewHub.ts';
import { PortalService } from '../../src-main/engine/portalService.ts';
import { openStore } from '../../src-main/store/store.ts';
import { html, scratchDir, startPageServer, type LocalServer } from '../helpers/browserFixtures.ts';
import { until } from '../helpers/wait.ts';

/**
 * Once the agent is done, the job's browser closes while its last step screenshot is still being written;
 * the status waits for both. The step's file is a FIFO here, so its write stays open until someone reads it:
 * the context's close reads it (then the write ends), and says whether the write was still under way.
 */
describe.skipIf(process.platform === 'win32')("a job's browser closes while its last screenshot is written", () => {
  const data = scratchDir('portico-closewrite-');
  const runtime = new BrowserRuntime({ dataDir: data.path, tempDir: join(data.path, 'tmp'), spareContext: false });
  let pages: LocalServer;
  let dir = '';

  beforeAll(async () => {
    pages = await startPageServer({ '/done': html('<title>Done</title><h1>Thanks</h1>') });
    dir = await mkdtemp(join(tmpdir(), 'portico-closewrite-jobs-'));
  });
  afterAll(async () => {
    await runtime.close();
    await pages.close();
    await rm(dir, { recursive: true, force: true });
    data.cleanup();
  });

  it('the close starts before the write has ended, and the job completes with its screenshot stored', async () => {
    const artifactsDir = join(dir, 'artifacts');
    /** How the step's write stood when the context began to close. */
    let writeAtClose: 'under way' | 'ended' | undefined;
    let statusAtClose: string | undefined;
    const store = openStore(join(dir, 'portico.db'));
    store.principals.createOrg('default');
    const agent: Agent = {
      async run(ctx) {
        await ctx.page.goto(ctx.startUrl);
        const shots = screenshotsDir(artifactsDir, String(ctx.job?.id));
        mkdirSync(shots, { recursive: true });
        const file = join(shots, screenshotName(0));
        execFileSync('mkfifo', [file]);
        // The write of the step's file ends once the FIFO is read: by the close, or (the old order, which waits for
        // the write before closing) by this fallback, so that a failing run still ends.
        let drained: Promise<Buffer> | undefined;
        const drain = (): Promise<Buffer> => (drained ??= readFile(file));
        await ctx.recordStep('the page');
        const fallback = setTimeout(() => void drain(), 3_000);
        const context = ctx.page.context();
        const close = context.close.bind(context);
        context.close = async (...args: Parameters<typeof close>) => {
          clearTimeout(fallback);
          writeAtClose = drained ? 'ended' : 'under way';
          statusAtClose = store.jobs.get(String(ctx.job?.id))?.status;
          await drain();
          return close(...args);
        };
        return { result: { ok: true } };
      },
    };
    const events = new JobEvents();
    const schemas = new JsonSchemaCompiler();
    const portals = new PortalService(store, schemas);
    const scheduler = new JobScheduler(
      {
        store,
        runtime,
        events,
        liveViews: new LiveViewHub(),
        logger: silentLogger,
        artifactsDir,
        answerTimeoutMs: 60_000,
      },
      { get: (model) => (model === BUILTIN_AUTOFILL ? agent : undefined) },
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
    try {
      portals.create('default', { endpoint_name: 'close', start_url: pages.url('/done'), task: 'read' });
      const { job_id: jobId } = await jobs.start('default', 'close', { form_data: {} });
      await until(
        () => ['completed', 'failed'].includes(String(store.jobs.get(jobId)?.status)),
        'the job to end',
        30_000,
      );
      await scheduler.settled(jobId);
      const job = store.jobs.get(jobId);
      expect({ status: job?.status, error: job?.error, has_screenshots: job?.has_screenshots }).toEqual({
        status: 'completed',
        error: null,
        has_screenshots: true,
      });
      expect({ writeAtClose, statusAtClose }).toEqual({ writeAtClose: 'under way', statusAtClose: 'running' });
    } finally {
      await scheduler.close();
      events.dispose();
      store.close();
    }
  });
});
