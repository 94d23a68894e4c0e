import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent, AgentContext, AgentOutcome } from '../../src-main/agent/agentTypes.ts';
import type { AgentRegistry } from '../../src-main/engine/jobs/jobScheduler.ts';
import { RECORDING_MASK_COLOR } from '../../src-main/browser/recorder.ts';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { jsonOf, startService, waitForJob, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';

const PASSWORD = 'hunter2-Secret!';

/** A login page: the password field sits at a known place (40,40, 320×60) on white. */
const LOGIN_PAGE = `<!doctype html><title>Sign in</title><body style="margin:0;background:#fff">
<input id="user" aria-label="Username" style="position:absolute;left:40px;top:140px;width:320px;height:40px;font-size:24px">
<input id="password" type="password" aria-label="Password" style="position:absolute;left:40px;top:40px;width:320px;height:60px;font-size:40px;border:0;outline:none;background:#fff;color:#000">
</body>`;

/** Test agents (the portal's task picks one): `login` types the credentials key by key; `hang` waits to be cancelled or stopped. */
const scripts: Record<string, (ctx: AgentContext) => Promise<AgentOutcome>> = {
  async login(ctx) {
    await ctx.page.goto(ctx.startUrl);
    await ctx.page.locator('#user').pressSequentially(String(ctx.formData.username ?? ''), { delay: 5 });
    await ctx.page.locator('#password').pressSequentially(String(ctx.formData.password ?? ''), { delay: 5 });
    await ctx.recordStep('typed the credentials');
    return { result: { typed: (await ctx.page.locator('#password').inputValue()) === ctx.formData.password } };
  },
  async hang(ctx) {
    await ctx.page.goto(ctx.startUrl);
    await ctx.recordStep('opened the start page');
    await new Promise((_, reject) =>
      ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error), { once: true }),
    );
    return { result: {} };
  },
};
const agent: Agent = { run: (ctx) => (scripts[/^script:(\w+)/.exec(ctx.task)?.[1] ?? ''] ?? scripts.login!)(ctx) };
const registry: AgentRegistry = { get: (model) => (model === 'builtin:autofill' ? agent : undefined) };

function probe(file: string): { codec: string; width: number; height: number; duration: number } {
  const out = execFileSync(
    'ffprobe',
    ['-v', 'error', '-show_entries', 'stream=codec_name,width,height:format=duration', '-of', 'json', file],
    { encoding: 'utf8' },
  );
  const json = JSON.parse(out) as {
    streams: { codec_name: string; width: number; height: number }[];
    format: { duration: string };
  };
  const video = json.streams[0];
  if (!video) throw new Error('no video stream');
  return { codec: video.codec_name, width: video.width, height: video.height, duration: Number(json.format.duration) };
}

/** Every decoded frame of the video as RGB, `width`×`height`. */
function framesRgb(file: string, width: number, height: number): Buffer[] {
  const raw = execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'], {
    maxBuffer: 1024 * 1024 * 1024,
  });
  const size = width * height * 3;
  return Array.from({ length: Math.floor(raw.length / size) }, (_, i) => raw.subarray(i * size, (i + 1) * size));
}

/** ffmpeg processes (not zombies) whose arguments name this job. */
function ffmpegFor(jobId: string): string[] {
  return execFileSync('ps', ['-eo', 'stat=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes('ffmpeg') && line.includes(jobId) && !line.trim().startsWith('Z'));
}

describe('job recordings (real Chromium, real ffmpeg)', () => {
  let svc: TestService;
  let pages: PageServer;
  let scratch: string;

  const start = async (endpoint: string, body: Record<string, unknown>): Promise<string> => {
    const res = await svc.send('startJob', { params: { org_id: 'default', endpoint_name: endpoint }, body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return String((res.body as { job_id: string }).job_id);
  };
  const download = async (url: string): Promise<string> => {
    const res = await svc.api(url.slice(svc.url.length));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('video/webm');
    const file = join(scratch, `${Math.random().toString(36).slice(2)}.webm`);
    await writeFile(file, Buffer.from(await res.arrayBuffer()));
    return file;
  };

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'portico-rec-'));
    pages = await startPageServer({ '/login': LOGIN_PAGE });
    svc = await startService(undefined, { agents: registry, jobConcurrency: 2 });
    for (const [name, extra] of [
      ['login', {}],
      ['login-recorded', { record_video: true }],
      ['hang', { task: 'script:hang' }],
    ] as const) {
      const res = await svc.send('createPortal', {
        params: { org_id: 'default' },
        body: { endpoint_name: name, start_url: `${pages.url}/login`, task: 'script:login', ...extra },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
  });
  afterAll(async () => {
    await svc.dispose();
    await pages.close();
    await rm(scratch, { recursive: true, force: true });
  });

  it('a job with record_video gives a playable WebM of its viewport at video_recording_url, password painted over in every frame', async () => {
    const jobId = await start('login', { form_data: { username: 'ana', password: PASSWORD }, record_video: true });
    const done = await waitForJob(svc, 'login', jobId, ['completed', 'failed']);
    expect(done).toMatchObject({
      status: 'completed',
      result: { typed: true },
      video_recording_url: `${svc.url}/task/default/login/recording?job_id=${jobId}`,
    });
    const file = await download(String(done.video_recording_url));
    const info = probe(file);
    expect(info).toMatchObject({ codec: 'vp8', width: 1280, height: 800 });
    expect(info.duration).toBeGreaterThan(0);
    // The field shows the mask colour, never the password's dots, in every frame after the page loaded.
    const mask = [1, 3, 5].map((i) => Number.parseInt(RECORDING_MASK_COLOR.slice(i, i + 2), 16));
    const frames = framesRgb(file, 1280, 800);
    expect(frames.length).toBeGreaterThan(0);
    let loaded = 0;
    for (const frame of frames) {
      const at = (x: number, y: number): number[] => [0, 1, 2].map((c) => frame[(y * 1280 + x) * 3 + c] ?? 0);
      const userBox = at(200, 160);
      if (userBox.every((c) => c > 200) && at(600, 400).every((c) => c > 200) && !at(200, 70).every((c) => c > 200))
        loaded += 1;
      else continue;
      const unmasked: string[] = [];
      for (let y = 44; y < 96; y += 2) {
        for (let x = 44; x < 356; x += 2) {
          const pixel = at(x, y);
          if (!pixel.every((c, i) => Math.abs(c - (mask[i] ?? 0)) <= 48)) unmasked.push(`${x},${y}=${pixel.join('/')}`);
        }
      }
      expect(unmasked.slice(0, 5), `frame ${frames.indexOf(frame)} shows the password field`).toEqual([]);
    }
    expect(loaded).toBeGreaterThan(0);
  });

  it('the portal can ask for recordings, a job can decline them, and without one the link is null and the route 404s', async () => {
    const recorded = await start('login-recorded', { form_data: { username: 'a', password: 'b' } });
    const declined = await start('login-recorded', {
      form_data: { username: 'a', password: 'b' },
      record_video: false,
    });
    const plain = await start('login', { form_data: { username: 'a', password: 'b' } });
    expect(await waitForJob(svc, 'login-recorded', recorded, ['completed'])).toMatchObject({
      video_recording_url: `${svc.url}/task/default/login-recorded/recording?job_id=${recorded}`,
    });
    expect(await waitForJob(svc, 'login-recorded', declined, ['completed'])).toMatchObject({
      video_recording_url: null,
    });
    expect(await waitForJob(svc, 'login', plain, ['completed'])).toMatchObject({ video_recording_url: null });
    expect(
      await svc.send('getJobRecording', {
        params: { org_id: 'default', endpoint_name: 'login' },
        query: { job_id: plain },
      }),
    ).toEqual({ status: 404, body: { detail: 'This job has no recording' } });
    // The portal says what it was told; a bad value is refused and changes nothing.
    expect(
      (await svc.send('getPortal', { params: { org_id: 'default', endpoint_name: 'login-recorded' } })).body,
    ).toMatchObject({ record_video: true });
    const bad = await svc.send('updatePortal', {
      params: { org_id: 'default', endpoint_name: 'login-recorded' },
      body: { record_video: 'yes' },
    });
    expect(bad.status).toBe(422);
    expect((bad.body as { detail: string }).detail).toMatch(/record_video/);
    expect(
      (await svc.send('getPortal', { params: { org_id: 'default', endpoint_name: 'login-recorded' } })).body,
    ).toMatchObject({ record_video: true });
    expect(
      (
        await svc.send('startJob', {
          params: { org_id: 'default', endpoint_name: 'login' },
          body: { form_data: {}, record_video: 1 },
        })
      ).status,
    ).toBe(422);
    // Another portal's path, an unknown job, a bad id, no key or another org: the same answers as the other job routes.
    expect(
      await svc.send('getJobRecording', {
        params: { org_id: 'default', endpoint_name: 'login' },
        query: { job_id: recorded },
      }),
    ).toEqual({ status: 404, body: { detail: 'Job not found' } });
    expect(
      await svc.send('getJobRecording', {
        params: { org_id: 'default', endpoint_name: 'login' },
        query: { job_id: '00000000-0000-4000-8000-000000000000' },
      }),
    ).toEqual({ status: 404, body: { detail: 'Job not found' } });
    expect((await svc.api('/task/default/login/recording?job_id=..%2F..%2Fsettings.json')).status).toBe(422);
    expect(
      (
        await svc.request(
          'getJobRecording',
          { params: { org_id: 'default', endpoint_name: 'login-recorded' }, query: { job_id: recorded } },
          { key: null },
        )
      ).status,
    ).toBe(401);
    for (const path of [`/task/other-org/login-recorded/recording?job_id=${recorded}`]) {
      const recording = await jsonOf(await svc.api(path));
      const status = await jsonOf(await svc.api(path.replace('/recording?', '/status?')));
      expect(recording).toEqual(status);
      expect([403, 404]).toContain(recording.status);
    }
  });

  it('the operator setting records jobs whose request and portal do not say', async () => {
    const patch = async (value: boolean) =>
      await svc.send(
        'updateSettings',
        { body: { record_video: value } },
        { key: null, headers: { 'x-console-token': svc.consoleToken } },
      );
    expect(await patch(true)).toMatchObject({ status: 200, body: { record_video: true } });
    try {
      const jobId = await start('login', { form_data: { username: 'a', password: 'b' } });
      const done = await waitForJob(svc, 'login', jobId, ['completed']);
      expect(done.video_recording_url).toBe(`${svc.url}/task/default/login/recording?job_id=${jobId}`);
    } finally {
      expect(await patch(false)).toMatchObject({ status: 200, body: { record_video: false } });
    }
  });

  it('without ffmpeg the job still completes, with a null link, a recording event and a log line saying why', async () => {
    const path = process.env.PATH;
    process.env.PATH = scratch;
    let jobId: string;
    try {
      jobId = await start('login', { form_data: { username: 'a', password: 'b' }, record_video: true });
      await waitForJob(svc, 'login', jobId, ['completed', 'failed']);
    } finally {
      process.env.PATH = path;
    }
    const done = await waitForJob(svc, 'login', jobId, ['completed']);
    expect(done).toMatchObject({ status: 'completed', video_recording_url: null });
    const reason = 'ffmpeg was not found on PATH; install ffmpeg or set PORTICO_FFMPEG to its path';
    expect(done.events).toContainEqual(
      expect.objectContaining({ type: 'recording', data: { status: 'skipped', detail: reason } }),
    );
    const logs = await (
      await svc.request('streamJobLogs', {
        params: { org_id: 'default', endpoint_name: 'login' },
        query: { job_id: jobId },
      })
    ).text();
    expect(logs).toContain(`recording skipped: ${reason}`);
  });

  it('a cancelled job keeps what was recorded and leaves no ffmpeg running', async () => {
    const jobId = await start('hang', { form_data: {}, record_video: true });
    await until(
      async () =>
        ((await waitForJob(svc, 'hang', jobId, ['running'])).events as { type: string }[]).some(
          (e) => e.type === 'step',
        ),
      'the job on its page',
    );
    await until(() => ffmpegFor(jobId).length > 0, 'ffmpeg recording the job');
    expect(
      (
        await svc.request('cancelJob', {
          params: { org_id: 'default', endpoint_name: 'hang' },
          query: { job_id: jobId },
        })
      ).status,
    ).toBe(200);
    const done = await waitForJob(svc, 'hang', jobId, ['cancelled']);
    expect(ffmpegFor(jobId)).toEqual([]);
    expect(done.events).not.toContainEqual(expect.objectContaining({ type: 'recording' }));
    expect(done.video_recording_url).toBe(`${svc.url}/task/default/hang/recording?job_id=${jobId}`);
    expect(probe(await download(String(done.video_recording_url))).duration).toBeGreaterThan(0);
  });

  it('stopping the service ends a running recording: no ffmpeg outlives it', async () => {
    const jobId = await start('hang', { form_data: {}, record_video: true });
    await waitForJob(svc, 'hang', jobId, ['running']);
    await until(() => ffmpegFor(jobId).length > 0, 'ffmpeg recording the job');
    const dataDir = svc.dataDir;
    await svc.stop();
    expect(ffmpegFor(jobId)).toEqual([]);
    svc = await startService(dataDir, { agents: registry });
  });
});
