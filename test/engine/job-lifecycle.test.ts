import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '../../src-main/agent/agentTypes.ts';
import { dataPaths } from '../../src-main/base/paths.ts';
import { DEFAULT_SCREEN } from '../../src-main/browser/browserRuntime.ts';
import type { AgentRegistry } from '../../src-main/engine/jobs/jobScheduler.ts';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { scriptedAgent } from '../helpers/scriptedAgents.ts';
import { startService, waitForJob, type TestService } from '../helpers/service.ts';

const STATUS_FIELDS = [
  'job_id',
  'portal_id',
  'status',
  'result',
  'error',
  'created_at',
  'updated_at',
  'started_at',
  'completed_at',
  'browser_url',
  'has_screenshots',
  'steps',
  'credits',
  'session_cost_usd',
  'orchestrator_model',
  'vision_model',
  'downloads_link',
  'video_recording_url',
  'log_url',
  'events',
].sort();

/** The PNG signature and the image's size from its IHDR chunk. */
function pngSize(png: Buffer): { png: boolean; width: number; height: number } {
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return { png: png.subarray(0, 8).equals(signature), width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

describe('job lifecycle (scripted agents in real Chromium)', () => {
  let svc: TestService;
  let pages: PageServer;

  /**
   * `script:…` tasks run the shared scripted agents; `blocked-shots` makes its job's screenshot folder a
   * file, takes a step, and says in its log that it went on: a step's file is written off the step's path.
   */
  const blockedShots: Agent = {
    async run(ctx) {
      await ctx.page.goto(ctx.startUrl);
      const jobDir = join(dataPaths(svc.dataDir).artifacts, String(ctx.job?.id));
      await mkdir(jobDir, { recursive: true });
      await writeFile(join(jobDir, 'screenshots'), 'a file where the folder goes');
      await ctx.recordStep('opened the start page');
      ctx.log('went on after the step');
      return { result: {} };
    },
  };
  const registry: AgentRegistry = {
    get: (model) =>
      model === 'builtin:autofill'
        ? { run: (ctx) => (ctx.task === 'blocked-shots' ? blockedShots.run(ctx) : scriptedAgent.run(ctx)) }
        : undefined,
  };

  const portal = (name: string, script: string, extra: Record<string, unknown> = {}) =>
    svc.request('createPortal', {
      params: { org_id: 'default' },
      body: { endpoint_name: name, start_url: `${pages.url}/form`, task: `script:${script}`, ...extra },
    });
  const start = async (name: string, body: Record<string, unknown> = { form_data: {} }) => {
    const res = await svc.send('startJob', { params: { org_id: 'default', endpoint_name: name }, body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return String((res.body as { job_id: string }).job_id);
  };

  beforeAll(async () => {
    pages = await startPageServer({
      '/form': '<!doctype html><title>Test form</title><input id="colour"><a id="dl" href="/file.txt" download>get</a>',
      '/tall': '<!doctype html><title>Tall page</title><div style="height: 4000px">a page three viewports tall</div>',
      '/file.txt': () => ({
        type: 'text/plain',
        body: 'downloaded content',
        headers: { 'content-disposition': 'attachment; filename="report.txt"' },
      }),
    });
    svc = await startService(undefined, { agents: registry, jobConcurrency: 2 });
    for (const [name, script] of [
      ['visit', 'visit'],
      ['ask', 'ask'],
      ['hang', 'hang'],
      ['loop', 'loop'],
      ['download', 'download'],
      ['fail', 'fail'],
    ] as const) {
      expect((await portal(name, script)).status).toBe(200);
    }
  });
  afterAll(async () => {
    await svc.dispose();
    await pages.close();
  });

  it('a job runs to completed with the full status response, steps, events, credits and logs', async () => {
    const jobId = await start('visit', { form_data: { a: 1 } });
    const done = await waitForJob(svc, 'visit', jobId, ['completed', 'failed']);
    expect(Object.keys(done).sort()).toEqual(STATUS_FIELDS);
    expect(done).toMatchObject({
      job_id: jobId,
      portal_id: 'default/visit',
      status: 'completed',
      error: null,
      result: { title: 'Test form', echo: { a: 1 } },
      steps: 2,
      has_screenshots: true,
      browser_url: null,
      orchestrator_model: 'builtin:autofill',
      vision_model: 'anthropic:claude-haiku-4-5-20251001',
      downloads_link: null,
      video_recording_url: null,
      session_cost_usd: 0,
    });
    expect(done.credits).toBeGreaterThanOrEqual(1);
    expect(String(done.log_url)).toBe(`${svc.url}/task/default/visit/logs?job_id=${jobId}`);
    expect((done.events as { type: string }[]).map((e) => e.type)).toEqual(['queued', 'step', 'step']);
    expect(Date.parse(String(done.completed_at))).toBeGreaterThanOrEqual(Date.parse(String(done.started_at)));
  });

  it('screenshots come back as a tar.gz of screenshot_NNNN.png, one per step, full PNGs', async () => {
    const jobId = await start('visit');
    await waitForJob(svc, 'visit', jobId, ['completed']);
    const res = await svc.request('getJobScreenshots', {
      params: { org_id: 'default', endpoint_name: 'visit' },
      query: { job_id: jobId },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/gzip');
    const dir = await mkdtemp(join(tmpdir(), 'portico-shots-'));
    try {
      await writeFile(join(dir, 'shots.tar.gz'), Buffer.from(await res.arrayBuffer()));
      expect(
        execFileSync('tar', ['-tzf', join(dir, 'shots.tar.gz')], { encoding: 'utf8' })
          .trim()
          .split('\n'),
      ).toEqual(['screenshot_0000.png', 'screenshot_0001.png']);
      execFileSync('tar', ['-xzf', join(dir, 'shots.tar.gz'), '-C', dir]);
      const png = await readFile(join(dir, 'screenshot_0001.png'));
      expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
      expect(png.readUInt32BE(16)).toBe(1280);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('step screenshots are the viewport, and the archive holds them as full-resolution PNGs', async () => {
    // A page taller than the viewport: a full-page capture (which lays the whole document out again on
    // the step's path) would be 4000 px tall; the step's picture is what the agent saw, pixel for pixel.
    expect((await portal('tall', 'visit', { start_url: `${pages.url}/tall` })).status).toBe(200);
    const jobId = await start('tall');
    await waitForJob(svc, 'tall', jobId, ['completed']);
    const res = await svc.request('getJobScreenshots', {
      params: { org_id: 'default', endpoint_name: 'tall' },
      query: { job_id: jobId },
    });
    expect(res.status).toBe(200);
    const dir = await mkdtemp(join(tmpdir(), 'portico-shots-'));
    try {
      await writeFile(join(dir, 'shots.tar.gz'), Buffer.from(await res.arrayBuffer()));
      execFileSync('tar', ['-xzf', join(dir, 'shots.tar.gz'), '-C', dir]);
      for (const name of ['screenshot_0000.png', 'screenshot_0001.png']) {
        const size = pngSize(await readFile(join(dir, name)));
        expect({ name, ...size }).toEqual({
          name,
          png: true,
          width: DEFAULT_SCREEN.width,
          height: DEFAULT_SCREEN.height,
        });
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("a step's screenshot is written off the step's path, and a write that fails still fails the job", async () => {
    expect(
      (
        await svc.request('createPortal', {
          params: { org_id: 'default' },
          body: { endpoint_name: 'blocked', start_url: `${pages.url}/form`, task: 'blocked-shots' },
        })
      ).status,
    ).toBe(200);
    const jobId = await start('blocked');
    const ended = await waitForJob(svc, 'blocked', jobId, ['completed', 'failed']);
    expect({ status: ended.status, error: ended.error, has_screenshots: ended.has_screenshots }).toEqual({
      status: 'failed',
      error: expect.stringMatching(/^could not store a step screenshot: /),
      has_screenshots: false,
    });
    const logs = await svc.request('streamJobLogs', {
      params: { org_id: 'default', endpoint_name: 'blocked' },
      query: { job_id: jobId },
    });
    expect(await logs.text()).toContain('went on after the step');
  });

  it('screenshots of a running job or an unknown job are 404', async () => {
    const jobId = await start('hang');
    await waitForJob(svc, 'hang', jobId, ['running']);
    expect(
      (
        await svc.request('getJobScreenshots', {
          params: { org_id: 'default', endpoint_name: 'hang' },
          query: { job_id: jobId },
        })
      ).status,
    ).toBe(404);
    expect(
      await svc.send('getJobScreenshots', {
        params: { org_id: 'default', endpoint_name: 'hang' },
        query: { job_id: '00000000-0000-4000-8000-000000000000' },
      }),
    ).toEqual({ status: 404, body: { detail: 'Job not found' } });
    await svc.request('cancelJob', { params: { org_id: 'default', endpoint_name: 'hang' }, query: { job_id: jobId } });
    await waitForJob(svc, 'hang', jobId, ['cancelled']);
  });

  it('a running job has a live browser_url; cancel ends it as cancelled; a second cancel is 409', async () => {
    const jobId = await start('hang');
    const running = await waitForJob(svc, 'hang', jobId, ['running']);
    expect(String(running.browser_url)).toMatch(new RegExp(`^${svc.url}/live/lv_`));
    const cancel = await svc.send('cancelJob', {
      params: { org_id: 'default', endpoint_name: 'hang' },
      query: { job_id: jobId },
    });
    expect(cancel).toEqual({
      status: 200,
      body: { success: true, message: 'Job cancellation requested', job_id: jobId },
    });
    const ended = await waitForJob(svc, 'hang', jobId, ['cancelled', 'failed', 'completed']);
    expect(ended).toMatchObject({ status: 'cancelled', error: 'Cancelled by user', browser_url: null });
    const again = await svc.send('cancelJob', {
      params: { org_id: 'default', endpoint_name: 'hang' },
      query: { job_id: jobId },
    });
    expect(again).toEqual({ status: 409, body: { detail: 'Job has already ended (status: cancelled)' } });
  });

  it('max_turns stops a job that keeps stepping', async () => {
    const jobId = await start('loop', { form_data: {}, max_turns: 3 });
    const ended = await waitForJob(svc, 'loop', jobId, ['failed', 'completed']);
    expect(ended).toMatchObject({ status: 'failed', error: 'max_turns (3) reached before the job finished' });
    expect(ended.steps).toBeGreaterThanOrEqual(3);
  });

  it('an agent failure becomes the job error verbatim', async () => {
    const jobId = await start('fail');
    expect(await waitForJob(svc, 'fail', jobId, ['failed'])).toMatchObject({
      error: "No control on the page matches form_data key 'passport_number'",
    });
  });

  it('downloads are captured and served as a zip at downloads_link', async () => {
    const jobId = await start('download');
    const done = await waitForJob(svc, 'download', jobId, ['completed', 'failed']);
    expect(done.status).toBe('completed');
    expect(done.downloads_link).toBe(`${svc.url}/task/default/download/downloads?job_id=${jobId}`);
    const res = await svc.request('getJobDownloads', {
      params: { org_id: 'default', endpoint_name: 'download' },
      query: { job_id: jobId },
    });
    expect(res.headers.get('content-type')).toBe('application/zip');
    const dir = await mkdtemp(join(tmpdir(), 'portico-dl-'));
    try {
      await writeFile(join(dir, 'd.zip'), Buffer.from(await res.arrayBuffer()));
      const listing = execFileSync(
        'python3',
        [
          '-c',
          'import zipfile,sys; z=zipfile.ZipFile(sys.argv[1]); print(z.namelist()); print(z.read(z.namelist()[0]).decode())',
          join(dir, 'd.zip'),
        ],
        { encoding: 'utf8' },
      );
      expect(listing).toContain("['report.txt']");
      expect(listing).toContain('downloaded content');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('the log stream replays from the start and ends with the job', async () => {
    const jobId = await start('visit');
    await waitForJob(svc, 'visit', jobId, ['completed']);
    const res = await svc.request('streamJobLogs', {
      params: { org_id: 'default', endpoint_name: 'visit' },
      query: { job_id: jobId },
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const text = await res.text();
    const lines = [...text.matchAll(/^event: log\ndata: (.*)$/gm)].map(
      (m) => (JSON.parse(m[1] ?? '{}') as { line: string }).line,
    );
    expect(lines[0]).toMatch(/^job started on http/);
    expect(lines).toContain('step 1: opened the start page');
    expect(lines).toContain('title is Test form');
    expect(lines.at(-1)).toBe('job completed');
    expect(text.trimEnd().endsWith('event: end\ndata: {"status":"completed"}')).toBe(true);
  });

  it('a log stream opened while the job runs delivers the live lines and ends when it ends', async () => {
    const jobId = await start('hang');
    await waitForJob(svc, 'hang', jobId, ['running']);
    // The response's headers come with the first line the stream sends, after it has subscribed to the
    // job's live lines (api/routes/jobs.ts): the stream is open and following the job from here on.
    const stream = await svc.request('streamJobLogs', {
      params: { org_id: 'default', endpoint_name: 'hang' },
      query: { job_id: jobId },
    });
    const streaming = stream.text();
    await svc.request('cancelJob', { params: { org_id: 'default', endpoint_name: 'hang' }, query: { job_id: jobId } });
    const text = await streaming;
    expect(text).toContain('job cancelled');
    expect(text).toContain('event: end\ndata: {"status":"cancelled"}');
  });

  it('lists jobs newest first with filters and a total', async () => {
    const all = (await svc.send('listJobs', { params: { org_id: 'default' }, query: { limit: '500' } })).body as {
      jobs: { job_id: string; created_at: string }[];
      total: number;
    };
    expect(all.total).toBe(all.jobs.length);
    const times = all.jobs.map((j) => j.created_at);
    expect(times).toEqual([...times].sort().reverse());
    const visits = (
      await svc.send('listJobs', {
        params: { org_id: 'default' },
        query: { endpoint_name: 'visit', status: 'completed', limit: '1' },
      })
    ).body as { jobs: { portal_id: string }[]; total: number };
    expect(visits.jobs).toHaveLength(1);
    expect(visits.jobs[0]?.portal_id).toBe('default/visit');
    expect(visits.total).toBeGreaterThanOrEqual(3);
    expect((await svc.request('listJobs', { params: { org_id: 'default' }, query: { status: 'bogus' } })).status).toBe(
      422,
    );
  });
});
