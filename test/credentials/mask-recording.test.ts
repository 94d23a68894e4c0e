import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECORDING_MASK_COLOR, startRecording } from '../../src-main/browser/recorder.ts';
import { launchTestBrowser } from '../helpers/chromium.ts';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';

const FFMPEG = '/usr/bin/ffmpeg';
const W = 400;
const H = 300;

/** The last frame of a video as RGB bytes, decoded by ffmpeg. */
function lastFrameRgb(file: string): Buffer {
  const raw = execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'], {
    maxBuffer: 256 * 1024 * 1024,
  });
  const size = W * H * 3;
  return raw.subarray(raw.length - size);
}
const pixelAt = (rgb: Buffer, x: number, y: number): number[] => [
  rgb[(y * W + x) * 3] ?? 0,
  rgb[(y * W + x) * 3 + 1] ?? 0,
  rgb[(y * W + x) * 3 + 2] ?? 0,
];
const MASK = [1, 3, 5].map((i) => Number.parseInt(RECORDING_MASK_COLOR.slice(i, i + 2), 16));
const near = (pixel: number[], colour: number[]): boolean =>
  pixel.every((c, i) => Math.abs(c - (colour[i] ?? 0)) <= 48);

const field = 'position:absolute;left:40px;width:320px;height:60px;font-size:40px;border:0;outline:none';
const inner = `<!doctype html><style>body{margin:0;background:#fff}</style>
  <input id="code" autocomplete="one-time-code" aria-label="Code" style="${field};top:40px;background:#fff;color:#000">
  <input id="note" aria-label="Note" value="note" style="${field};top:160px;background:#000;color:#fff">`;

describe('a recording paints one-time-code fields over inside a cross-origin iframe (real Chromium, real ffmpeg)', () => {
  let site: PageServer;
  let dir: string;
  let chromium: Awaited<ReturnType<typeof launchTestBrowser>>;

  beforeAll(async () => {
    let port = '';
    site = await startPageServer({
      '/outer': () => ({
        body: `<!doctype html><style>body{margin:0}iframe{position:absolute;left:0;top:0;width:${W}px;height:${H}px;border:0}</style><iframe src="http://localhost:${port}/inner"></iframe>`,
      }),
      '/inner': inner,
    });
    port = new URL(site.url).port;
    dir = await mkdtemp(join(tmpdir(), 'portico-mask-recording-'));
    chromium = await launchTestBrowser();
  });
  afterAll(async () => {
    await chromium?.close();
    await site?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('the code field of a frame of another site is the mask colour in the recording, the ordinary field next to it is not', async () => {
    const context = await chromium.browser.newContext({ viewport: { width: W, height: H } });
    const page = await context.newPage();
    // Recording starts on the blank page, as a job's does: the out-of-process iframe comes later.
    const out = join(dir, 'otp.webm');
    const recording = await startRecording(page, out, { ffmpegPath: FFMPEG });
    await page.goto(`${site.url}/outer`);
    const frame = page.frames().find((f) => f.url().startsWith('http://localhost:'));
    expect(frame, 'the cross-origin iframe').toBeDefined();
    await frame!.locator('#code').fill('493817');
    await page.evaluate(
      () => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))),
    );
    await frame!.evaluate(
      () => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))),
    );
    expect((await recording.stop()).ok).toBe(true);
    const rgb = lastFrameRgb(out);
    // 4 px in from the field's edges, past VP8's block blur.
    for (let y = 44; y < 96; y += 4)
      for (let x = 44; x < 356; x += 4) expect(near(pixelAt(rgb, x, y), MASK), `code field pixel ${x},${y}`).toBe(true);
    expect(near(pixelAt(rgb, 200, 190), MASK)).toBe(false);
    // Once stopped, the frame no longer carries the mask.
    expect(await frame!.locator('#code').evaluate((el) => getComputedStyle(el).backgroundColor)).toBe(
      'rgb(255, 255, 255)',
    );
    await context.close();
  });
});
