import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECORDING_MASK_COLOR } from '../../src-main/browser/recorder.ts';
import { cli } from '../helpers/cli.ts';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { startService, type TestService } from '../helpers/service.ts';

const PAGE = `<!doctype html><title>Sign in</title><body style="margin:0;background:#fff">
<input id="password" type="password" style="position:absolute;left:40px;top:40px;width:320px;height:60px;font-size:40px;border:0;outline:none;background:#fff;color:#000">
</body>`;

describe('session recordings (real Chromium over CDP, real ffmpeg)', () => {
  let svc: TestService;
  let pages: PageServer;
  let scratch: string;
  let otherKey: string;

  const create = async (json: Record<string, unknown>): Promise<{ session_id: string; cdp_url: string }> => {
    const res = await svc.send('createSession', { body: json }, { key: svc.accountKey });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as { session_id: string; cdp_url: string };
  };
  /** A client drives the session over its CDP URL: opens the page and types a password. */
  const drive = async (cdpUrl: string): Promise<void> => {
    const browser = await chromium.connectOverCDP(cdpUrl);
    const page = browser.contexts()[0]?.pages()[0] ?? (await browser.contexts()[0]!.newPage());
    await page.goto(`${pages.url}/login`);
    await page.locator('#password').pressSequentially('hunter2-session', { delay: 5 });
    await page.evaluate(
      () => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))),
    );
    await browser.close();
  };

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'portico-srec-'));
    pages = await startPageServer({ '/login': PAGE });
    svc = await startService(undefined, { sessionPoolSize: 0 });
    otherKey = String((await cli(svc.dataDir, ['user', 'create', 'eve', '--workspace', 'elsewhere'])).json.api_key);
  });
  afterAll(async () => {
    await svc?.dispose();
    await pages?.close();
    await rm(scratch, { recursive: true, force: true });
  });

  it('a session with record_video is served as a WebM of its screen once it ended, password masked', async () => {
    const session = await create({ record_video: true, screen_config: { width: 800, height: 600 } });
    await drive(session.cdp_url);
    const early = await svc.send(
      'getSessionRecording',
      { params: { session_id: session.session_id } },
      { key: svc.accountKey },
    );
    expect(early).toEqual({ status: 404, body: { detail: 'The recording is available once the session has ended' } });
    expect(
      (await svc.request('terminateSession', { params: { session_id: session.session_id } }, { key: svc.accountKey }))
        .status,
    ).toBe(200);
    const res = await svc.request(
      'getSessionRecording',
      { params: { session_id: session.session_id } },
      { key: svc.accountKey },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('video/webm');
    const file = join(scratch, 'session.webm');
    await writeFile(file, Buffer.from(await res.arrayBuffer()));
    const probe = JSON.parse(
      execFileSync(
        'ffprobe',
        ['-v', 'error', '-show_entries', 'stream=codec_name,width,height:format=duration', '-of', 'json', file],
        { encoding: 'utf8' },
      ),
    ) as {
      streams: { codec_name: string; width: number; height: number }[];
      format: { duration: string };
    };
    expect(probe.streams[0]).toMatchObject({ codec_name: 'vp8', width: 800, height: 600 });
    expect(Number(probe.format.duration)).toBeGreaterThan(0);
    // The last frame shows the typed-in field wholly masked.
    const rgb = execFileSync(
      'ffmpeg',
      ['-v', 'error', '-sseof', '-0.3', '-i', file, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'],
      { maxBuffer: 64 * 1024 * 1024 },
    );
    const mask = [1, 3, 5].map((i) => Number.parseInt(RECORDING_MASK_COLOR.slice(i, i + 2), 16));
    const off: string[] = [];
    for (let y = 44; y < 96; y += 2) {
      for (let x = 44; x < 356; x += 2) {
        const px = [0, 1, 2].map((c) => rgb[(y * 800 + x) * 3 + c] ?? 0);
        if (!px.every((c, i) => Math.abs(c - (mask[i] ?? 0)) <= 48)) off.push(`${x},${y}`);
      }
    }
    expect(off.slice(0, 5)).toEqual([]);
    // Another workspace's key does not see the session at all.
    expect(
      await svc.send('getSessionRecording', { params: { session_id: session.session_id } }, { key: otherKey }),
    ).toEqual({ status: 404, body: { detail: 'Session not found' } });
    // An org key is not an account key.
    expect((await svc.request('getSessionRecording', { params: { session_id: session.session_id } })).status).toBe(403);
  });

  it('without record_video there is no recording, and an unknown session is not found', async () => {
    const session = await create({});
    await drive(session.cdp_url);
    expect(
      (await svc.request('terminateSession', { params: { session_id: session.session_id } }, { key: svc.accountKey }))
        .status,
    ).toBe(200);
    expect(
      await svc.send('getSessionRecording', { params: { session_id: session.session_id } }, { key: svc.accountKey }),
    ).toEqual({ status: 404, body: { detail: 'This session has no recording' } });
    expect(
      await svc.send(
        'getSessionRecording',
        { params: { session_id: '00000000-0000-4000-8000-000000000000' } },
        { key: svc.accountKey },
      ),
    ).toEqual({ status: 404, body: { detail: 'Session not found' } });
    expect(
      (
        await svc.request(
          'getSessionRecording',
          { params: { session_id: '../../portico.db' } },
          { key: svc.accountKey },
        )
      ).status,
    ).toBe(404);
    expect([414, 422]).toContain(
      (await svc.request('getSessionRecording', { params: { session_id: 'x'.repeat(500) } }, { key: svc.accountKey }))
        .status,
    );
  });
});
