import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '../../src-main/agent/agentTypes.ts';
import { silentLogger } from '../../src-main/base/logger.ts';
import { BrowserRuntime } from '../../src-main/browser/browserRuntime.ts';
import type { JobEvent } from '../../src-main/contract/job.ts';
import { BUILTIN_AUTOFILL } from '../../src-main/contract/models.ts';
import { JobEvents } from '../../src-main/engine/jobs/jobEvents.ts';
import { JobScheduler } from '../../src-main/engine/jobs/jobScheduler.ts';
import { JobService } from '../../src-main/engine/jobs/jobService.ts';
import { JsonSchemaCompiler } from '../../src-main/base/jsonSchema.ts';
import { LiveViewHub } from '../../src-main/engine/liveViewHub.ts';
import { PortalService } from '../../src-main/engine/portalService.ts';
import type { JobLogLine } from '../../src-main/store/jobs.ts';
import { openStore } from '../../src-main/store/store.ts';
import { html, scratchDir, startPageServer, type LocalServer } from '../helpers/browserFixtures.ts';
import { until } from '../helpers/wait.ts';

const EVENTS_PER_JOB = 12;

/** Opens the page, takes two steps and reports many events and lines: what a busy job sends its listeners. */
const chattyAgent: Agent = {
  async run(ctx) {
    await ctx.page.goto(ctx.startUrl);
    await ctx.recordStep('opened the start page');
    for (let i = 0; i < EVENTS_PER_JOB; i += 1) ctx.reportMode?.('fresh', `round ${i}`);
    await ctx.recordStep('done');
    return { result: { ok: true } };
  },
};

// The engine's job signals go by job id: with n jobs running, each with its log stream open, a job's line
// reaches its own listeners only (not n listeners that each drop it), and announcing an event or a status
// change reads no job row beyond the one the move itself reads.
describe('job signals per job (real Chromium, real SQLite)', () => {
  const data = scratchDir('portico-fanout-');
  const runtime = new BrowserRuntime({ dataDir: data.path, tempDir: join(data.path, 'tmp'), spareContext: false });
  let pages: LocalServer;

  beforeAll(async () => {
    pages = await startPageServer({ '/form': html('<input id="name">') });
  });
  afterAll(async () => {
    await runtime.close();
    await pages.close();
    data.cleanup();
  });

  /** A store, the job signals, a scheduler running `agent` as the builtin model and the job service, in a folder of their own. */
  async function engine(name: string, agent: Agent, concurrency: number) {
    const dir = await mkdtemp(join(tmpdir(), `portico-fanout-${name}-`));
    const store = openStore(join(dir, 'portico.db'));
    const events = new JobEvents();
    const scheduler = new JobScheduler(
      {
        store,
        runtime,
        events,
        liveViews: new LiveViewHub(),
        logger: silentLogger,
        artifactsDir: join(dir, 'artifacts'),
        answerTimeoutMs: 60_000,
      },
      { get: (model) => (model === BUILTIN_AUTOFILL ? agent : undefined) },
      { concurrency },
    );
    const schemas = new JsonSchemaCompiler();
    const portals = new PortalService(store, schemas);
    const jobs = new JobService({
      store,
      portals,
      schemas,
      scheduler,
      artifactsDir: join(dir, 'artifacts'),
      baseUrl: () => 'http://127.0.0.1:1',
      models: { canRun: (model) => model === BUILTIN_AUTOFILL, hasKey: async (model) => model === BUILTIN_AUTOFILL },
    });
    const close = async (): Promise<void> => {
      await scheduler.close();
      events.dispose();
      store.close();
      await rm(dir, { recursive: true, force: true });
    };
    return { store, events, scheduler, portals, jobs, close };
  }

  it("a job's listeners hear only its own lines, events and status; no row is re-read per event; a step is one transaction", async () => {
    const { store, events, scheduler, portals, jobs, close } = await engine('jobs', chattyAgent, 4);
    try {
      store.principals.createOrg('default');
      portals.create('default', { endpoint_name: 'chatty', start_url: pages.url('/form'), task: 'fill' });

      // Row reads of jobs (the real repository, counted).
      const get = store.jobs.get.bind(store.jobs);
      let reads = 0;
      store.jobs.get = (id) => {
        reads += 1;
        return get(id);
      };
      const heard = new Map<string, { lines: JobLogLine[]; events: JobEvent[]; statuses: string[] }>();
      const ids: string[] = [];
      // Jobs are stored queued first, then listened to, then run: every signal of a run is heard.
      scheduler.setConcurrency(0);
      for (let i = 0; i < 3; i += 1) {
        const { job_id } = await jobs.start('default', 'chatty', { form_data: {} });
        ids.push(job_id);
        const mine = { lines: [] as JobLogLine[], events: [] as JobEvent[], statuses: [] as string[] };
        heard.set(job_id, mine);
        events.onDidLogOf(job_id, (line) => mine.lines.push(line));
        events.onDidAppendEventOf(job_id, (event) => mine.events.push(event));
        events.onDidChangeStatusOf(job_id, (job) => {
          expect(job.id).toBe(job_id);
          mine.statuses.push(job.status);
        });
      }
      reads = 0;
      scheduler.setConcurrency(4);
      for (const id of ids) {
        await until(() => get(id)?.status === 'completed', `job ${id} to complete`, 60_000);
        await scheduler.settled(id);
      }

      for (const id of ids) {
        const mine = heard.get(id);
        // Exactly the job's own lines and events, in order: every listener call was for this job.
        expect(mine?.lines.map((line) => line.seq)).toEqual(store.jobs.logs(id).map((line) => line.seq));
        // (the job's `queued` event was written at its start, before the listeners were added)
        expect(mine?.events.map((event) => event.type)).toEqual(
          store.jobs
            .events(id)
            .slice(1)
            .map((event) => event.type),
        );
        expect(mine?.events).toHaveLength(EVENTS_PER_JOB + 2);
        expect(mine?.statuses).toEqual(['running', 'completed']);
        // The step count went in with each step's event.
        expect(get(id)?.steps).toBe(2);
      }
      // One read to start the run and one per status move (running, completed): none per event. Reading
      // the job for each of its 14 events, as before, would be 14 more per job.
      expect(reads).toBeLessThanOrEqual(3 * ids.length);
      // A step's count, event and line are one transaction: an event its schema refuses leaves none of them.
      const [first = ''] = ids;
      expect(() =>
        store.jobs.appendStep(first, { steps: 3 }, { type: 'step', data: { step: 'three' } }, 'step 3: refused'),
      ).toThrow();
      expect(get(first)?.steps).toBe(2);
      expect(store.jobs.logs(first).map((line) => line.line)).not.toContain('step 3: refused');
      expect(store.jobs.events(first)).toHaveLength(EVENTS_PER_JOB + 3);
      // Nothing is left listening to a job once its listeners let go.
      for (const id of ids) expect(events.listenersOf(id)).toBe(3);
      events.dispose();
      for (const id of ids) expect(events.listenersOf(id)).toBe(0);
    } finally {
      await close();
    }
  }, 120_000);
  it("a backlog is ordered by the queued jobs' ids alone: a job's whole record is read when it starts, not at every look at the queue", async () => {
    const quickAgent: Agent = { run: async () => ({ result: {} }) };
    const { store, events, scheduler, portals, jobs, close } = await engine('backlog', quickAgent, 0);
    try {
      store.principals.createOrg('default');
      store.principals.createOrg('other');
      for (const org of ['default', 'other'])
        portals.create(org, { endpoint_name: 'quick', start_url: pages.url('/form'), task: 'x' });
      const BACKLOG = 20;
      const ids: string[] = [];
      for (let i = 0; i < BACKLOG; i += 1)
        ids.push((await jobs.start(i % 4 === 3 ? 'other' : 'default', 'quick', { form_data: {} })).job_id);
      // Whole job records read (the real repository, counted): by id, or as a list of them.
      const get = store.jobs.get.bind(store.jobs);
      const listQueued = store.jobs.listQueued.bind(store.jobs);
      let records = 0;
      store.jobs.get = (id) => {
        records += 1;
        return get(id);
      };
      store.jobs.listQueued = () => {
        const queued = listQueued();
        records += queued.length;
        return queued;
      };
      const started: string[] = [];
      events.onDidChangeStatus((job) => {
        if (job.status === 'running') started.push(job.id);
      });
      scheduler.setConcurrency(2);
      for (const id of ids) {
        await until(() => get(id)?.status === 'completed', `job ${id} to complete`, 60_000);
        await scheduler.settled(id);
      }
      // Each org's own oldest first, the orgs in turn (the `other` org's jobs are every fourth).
      expect(started).toHaveLength(BACKLOG);
      expect(started.slice(0, 2).map((id) => get(id)?.org_id)).toEqual(['default', 'other']);
      // Per job: its record when its turn comes and once per status move. Reading the whole backlog at every
      // look at the queue (each job's end looks again) is ~BACKLOG²/2 records: 210 for 20.
      expect(records).toBeLessThanOrEqual(4 * BACKLOG);
    } finally {
      await close();
    }
  }, 120_000);
});
