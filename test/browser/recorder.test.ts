import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  findFfmpeg,
  RECORDING_MASK_COLOR,
  RecordingUnavailable,
  startRecording,
} from '../../src-main/browser/recorder.ts';
import { html, scratchDir, startPageServer, type LocalServer } from '../helpers/browserFixtures.ts';
import { launchTestBrowser } from '../helpers/chromium.ts';
import { FakeClock } from '../helpers/fakeClock.ts';
import { until } from '../helpers/wait.ts';

const FFMPEG = '/usr/bin/ffmpeg';

/** ffprobe's view of a video file: codec, size and duration in seconds. */
function probe(file: string): { codec: string; width: number; height: number; duration: number; format: string } {
  const out = execFileSync(
    'ffprobe',
    ['-v', 'error', '-show_entries', 'stream=codec_name,width,height:format=duration,format_name', '-of', 'json', file],
    { encoding: 'utf8' },
  );
  const json = JSON.parse(out) as {
    streams: { codec_name: string; width: number; height: number }[];
    format: { duration: string; format_name: string };
  };
  const video = json.streams[0];
  if (!video) throw new Error(`no stream in ${file}`);
  return {
    codec: video.codec_name,
    width: video.width,
    height: video.height,
    duration: Number(json.format.duration),
    format: json.format.format_name,
  };
}

/** Every frame of a video as RGB bytes, decoded by ffmpeg. */
function allFramesRgb(file: string, width: number, height: number): Buffer[] {
  const raw = execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'], {
    maxBuffer: 512 * 1024 * 1024,
  });
  const size = width * height * 3;
  return Array.from({ length: Math.floor(raw.length / size) }, (_, i) => raw.subarray(i * size, (i + 1) * size));
}

function pixelAt(rgb: Buffer, width: number, x: number, y: number): number[] {
  const i = (y * width + x) * 3;
  return [rgb[i] ?? 0, rgb[i + 1] ?? 0, rgb[i + 2] ?? 0];
}

/** The ffmpeg processes whose arguments mention `needle` (the recording's unique file name). */
function ffmpegProcessesFor(needle: string): string[] {
  const out = execFileSync('ps', ['-eo', 'pid=,stat=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((line) => line.includes('ffmpeg') && line.includes(needle) && !/\sZ/.test(line.slice(0, 16)));
}

const PASSWORD_PAGE = `<style>body{margin:0;background:#fff}</style>
  <input id="pw" type="password" placeholder="Password" style="position:absolute;left:40px;top:40px;width:320px;height:60px;font-size:40px;border:0;outline:none;background:#fff;color:#000">
  <p id="t" style="position:absolute;left:40px;top:200px;font-size:30px">hello</p>`;

describe('startRecording', () => {
  let browser: Browser;
  let close: () => Promise<void>;
  let pages: LocalServer;
  let context: BrowserContext;
  const dir = scratchDir('portico-recorder-');

  beforeAll(async () => {
    const launched = await launchTestBrowser();
    browser = launched.browser;
    close = launched.close;
    pages = await startPageServer({
      '/pw': html(PASSWORD_PAGE),
      '/plain': html('<p style="font-size:40px">plain</p>'),
    });
  });
  afterEach(async () => {
    await context.close();
  });
  afterAll(async () => {
    await close();
    await pages.close();
    dir.cleanup();
  });

  it('writes a WebM of the page at its viewport size that plays for as long as the page was recorded', async () => {
    context = await browser.newContext({ viewport: { width: 640, height: 360 } });
    const page = await context.newPage();
    await page.goto(pages.url('/plain'));
    const clock = new FakeClock();
    const out = join(dir.path, 'plain.webm');
    const recording = await startRecording(page, out, { ffmpegPath: FFMPEG, clock });
    await page.evaluate(() => {
      document.body.style.background = '#0a0';
    });
    await until(
      async () => page.evaluate(() => new Promise<boolean>((resolve) => requestAnimationFrame(() => resolve(true)))),
      'a painted frame',
    );
    // Chromium delivers the screencast's frames on its own time (late, on a loaded machine): the clock moves
    // on in quarter seconds until a frame has reached ffmpeg (its file appears), so the still stretch below
    // starts after a frame the recorder holds.
    await until(
      () => {
        if (existsSync(`${out}.part`)) return true;
        clock.advance(250);
        return undefined;
      },
      'a frame written to ffmpeg',
      30_000,
    );
    // The page then sits still for 4 s (on the injected clock): the last frame is held that long.
    clock.advance(4000);
    const outcome = await recording.stop();
    expect(outcome).toMatchObject({ ok: true, path: out });
    const info = probe(out);
    expect(info).toMatchObject({ codec: 'vp8', width: 640, height: 360 });
    expect(info.format).toContain('webm');
    expect(info.duration).toBeGreaterThanOrEqual(3.9);
    expect(existsSync(`${out}.part`)).toBe(false);
    expect(ffmpegProcessesFor(out)).toEqual([]);
    // Stopping twice is harmless and gives the same answer.
    expect(await recording.stop()).toEqual(outcome);
  });

  it('paints password fields over in every frame, and leaves the page as it was afterwards', async () => {
    context = await browser.newContext({ viewport: { width: 400, height: 300 } });
    const page = await context.newPage();
    // Recording starts on the blank page, as a job's does; the mask must follow every document after it.
    const out = join(dir.path, 'pw.webm');
    const recording = await startRecording(page, out, { ffmpegPath: FFMPEG });
    await page.goto(pages.url('/pw'));
    await page.locator('#pw').pressSequentially('hunter2hunter2', { delay: 10 });
    // A navigation brings a new document: the mask follows it.
    await page.goto(pages.url('/pw'));
    await page.locator('#pw').fill('hunter2hunter2');
    await page.evaluate(
      () => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))),
    );
    const outcome = await recording.stop();
    expect(outcome.ok).toBe(true);
    const frames = allFramesRgb(out, 400, 300);
    const mask = [1, 3, 5].map((i) => Number.parseInt(RECORDING_MASK_COLOR.slice(i, i + 2), 16));
    const near = (pixel: number[], colour: number[]): boolean =>
      pixel.every((c, i) => Math.abs(c - (colour[i] ?? 0)) <= 48);
    // In every frame the field (4 px in from its edges, past VP8's block blur) is wholly the mask colour, or wholly
    // blank while a new document has not painted it yet: never the password's dots, nor their number.
    let masked = 0;
    for (const frame of frames) {
      const region: number[][] = [];
      for (let y = 44; y < 96; y += 2) for (let x = 44; x < 356; x += 2) region.push(pixelAt(frame, 400, x, y));
      const allMask = region.every((p) => near(p, mask));
      if (allMask) masked += 1;
      else
        expect(
          region.every((p) => near(p, [255, 255, 255])),
          `frame ${frames.indexOf(frame)} shows the field unmasked`,
        ).toBe(true);
    }
    expect(masked).toBeGreaterThan(frames.length / 2);
    const rgb = frames[frames.length - 1] ?? Buffer.alloc(0);
    const at = (x: number, y: number): number[] => pixelAt(rgb, 400, x, y);
    expect(near(at(200, 70), mask)).toBe(true);
    // Outside the field the page shows as it is (white background).
    expect(at(200, 150).every((c) => c > 200)).toBe(true);
    // Once stopped, the page no longer carries the mask (the live view and screenshots see the page itself).
    const background = await page.locator('#pw').evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(background).toBe('rgb(255, 255, 255)');
    expect(await page.locator('#pw').inputValue()).toBe('hunter2hunter2');
  });

  it('records from a CDP session as well as from a page', async () => {
    context = await browser.newContext({ viewport: { width: 320, height: 240 } });
    const page = await context.newPage();
    await page.goto(pages.url('/plain'));
    const cdp = await context.newCDPSession(page);
    const out = join(dir.path, 'cdp.webm');
    const recording = await startRecording(cdp, out, { ffmpegPath: FFMPEG });
    await page.evaluate(() => {
      document.body.style.background = '#00a';
    });
    await page.evaluate(
      () => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))),
    );
    expect(await recording.stop()).toMatchObject({ ok: true });
    expect(probe(out)).toMatchObject({ codec: 'vp8', width: 320, height: 240 });
    // The caller's session stays usable.
    await expect(cdp.send('Runtime.evaluate', { expression: '1 + 1', returnByValue: true })).resolves.toMatchObject({
      result: { value: 2 },
    });
  });

  it('refuses to start when ffmpeg cannot run, and keeps no file when ffmpeg fails, saying why', async () => {
    context = await browser.newContext({ viewport: { width: 320, height: 240 } });
    const page = await context.newPage();
    await page.goto(pages.url('/pw'));
    const out = join(dir.path, 'nothing', 'none.webm');
    await expect(startRecording(page, out, { ffmpegPath: join(dir.path, 'missing-ffmpeg') })).rejects.toBeInstanceOf(
      RecordingUnavailable,
    );
    expect(await page.locator('#pw').evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(255, 255, 255)');
    // An "ffmpeg" that runs but fails: the recording ends without a file, with ffmpeg's own words.
    const broken = join(dir.path, 'broken-ffmpeg');
    writeFileSync(broken, '#!/bin/sh\necho "Unknown encoder libvpx" >&2\nexit 3\n');
    chmodSync(broken, 0o755);
    const errors: string[] = [];
    const recording = await startRecording(page, out, {
      ffmpegPath: broken,
      onError: (message) => errors.push(message),
    });
    await page.locator('#pw').fill('secret');
    const outcome = await recording.stop();
    expect(outcome).toEqual({ ok: false, reason: 'ffmpeg exited with code 3: Unknown encoder libvpx' });
    expect(errors).toEqual([outcome.ok ? '' : outcome.reason]);
    expect(readdirSync(join(dir.path, 'nothing'))).toEqual([]);
    expect(await page.locator('#pw').evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(255, 255, 255)');
  });
});

describe('findFfmpeg', () => {
  const dir = scratchDir('portico-ffmpeg-');
  afterAll(() => dir.cleanup());

  it('takes the configured path, else the first ffmpeg on PATH, else says how to get one', async () => {
    expect(await findFfmpeg(undefined, { PATH: `${dir.path}:/usr/bin` })).toBe('/usr/bin/ffmpeg');
    expect(await findFfmpeg(FFMPEG, { PATH: '' })).toBe(FFMPEG);
    await expect(findFfmpeg(undefined, { PATH: dir.path })).rejects.toThrow(
      'ffmpeg was not found on PATH; install ffmpeg or set PORTICO_FFMPEG to its path',
    );
    await expect(findFfmpeg(join(dir.path, 'nope'), { PATH: '/usr/bin' })).rejects.toThrow(
      /PORTICO_FFMPEG '.*nope' is not an executable file/,
    );
    await expect(findFfmpeg('ffmpeg', { PATH: '/usr/bin' })).rejects.toThrow('PORTICO_FFMPEG must be an absolute path');
    // A relative PATH entry is never searched (it would depend on the working folder).
    await expect(findFfmpeg(undefined, { PATH: '.:bin' })).rejects.toBeInstanceOf(RecordingUnavailable);
  });
});
