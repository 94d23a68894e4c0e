import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import { access, mkdir, readdir, rename, rm } from 'node:fs/promises';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import type { CDPSession, Page } from 'playwright-core';
import { systemClock, type Clock, type TimerHandle } from '../base/clock.ts';
import { recordingMaskScript } from '../agent/injected/index.ts';
import { SECRET_FIELDS_SELECTOR } from './pageScreenshot.ts';
import { answerWithin, scriptableFrames } from './frameAccess.ts';
import { PorticoError } from '../base/errors.ts';

/**
 * Screen recordings: the page's CDP screencast (JPEG frames with Chromium's timestamps) piped into the
 * system's ffmpeg, which writes VP8 WebM. Frames are repeated to a fixed rate by their timestamps, so a
 * page that sits still for ten seconds plays for ten seconds. Secret fields (passwords, one-time codes: pageScreenshot.ts) are painted over with a
 * solid box while recording (the same rule as step screenshots: no password, nor its length, on record).
 */

/** Why a recording could not start or was not kept; `stop()` never throws, it says this instead. */
export class RecordingUnavailable extends PorticoError {
  constructor(message: string) {
    super(message);
  }
}

export interface RecorderOptions {
  /** The ffmpeg executable (see `findFfmpeg`). */
  ffmpegPath: string;
  /** Output size in CSS pixels; default the page's viewport. Odd sizes are rounded up to even (VP8's 4:2:0). */
  width?: number;
  height?: number;
  /** Output frame rate; frames are repeated to it by their timestamps. Default 15. */
  fps?: number;
  /** Measures the tail after the last frame until `stop()`; tests inject a fake one. */
  clock?: Clock;
  /** Told about ffmpeg failing mid-recording (its last stderr lines). */
  onError?: (message: string) => void;
}

export type RecordingOutcome = { ok: true; path: string; frames: number } | { ok: false; reason: string };

export interface Recording {
  readonly path: string;
  /** Ends the screencast, lets ffmpeg finish the file and waits for it to exit. Safe to call twice; never throws. */
  stop(): Promise<RecordingOutcome>;
}

/** The colour secret fields (pageScreenshot.ts SECRET_FIELDS_SELECTOR) are painted with (Playwright's screenshot mask colour). */
export const RECORDING_MASK_COLOR = '#FF00FF';

const MASK_CSS = `:is(${SECRET_FIELDS_SELECTOR}) {
  background: ${RECORDING_MASK_COLOR} !important; background-image: none !important;
  color: transparent !important; -webkit-text-fill-color: transparent !important; caret-color: transparent !important;
  text-shadow: none !important; box-shadow: inset 0 0 0 10000px ${RECORDING_MASK_COLOR} !important;
}
:is(${SECRET_FIELDS_SELECTOR})::placeholder { color: transparent !important; -webkit-text-fill-color: transparent !important; }
input[type="password" i]::-ms-reveal { display: none !important; }`;

/**
 * The ffmpeg to record with: `configured` (PORTICO_FFMPEG) when given — it must be an executable file —
 * else the first `ffmpeg` on PATH. Throws RecordingUnavailable saying what to do when there is none.
 */
export async function findFfmpeg(
  configured: string | undefined,
  env: { PATH?: string | undefined; platform?: NodeJS.Platform } = { PATH: process.env.PATH },
): Promise<string> {
  const executable = async (path: string): Promise<boolean> =>
    access(path, fsConstants.X_OK).then(
      () => true,
      () => false,
    );
  if (configured !== undefined) {
    if (!isAbsolute(configured))
      throw new RecordingUnavailable(`PORTICO_FFMPEG must be an absolute path to ffmpeg (got '${configured}')`);
    if (await executable(configured)) return configured;
    throw new RecordingUnavailable(`PORTICO_FFMPEG '${configured}' is not an executable file`);
  }
  const name = (env.platform ?? process.platform) === 'win32' ? 'ffmpeg.exe' : 'ffmpeg';
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '' || !isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    if (await executable(candidate)) return candidate;
  }
  throw new RecordingUnavailable('ffmpeg was not found on PATH; install ffmpeg or set PORTICO_FFMPEG to its path');
}

/** ffmpeg's arguments: MJPEG frames in on stdin at `fps`, VP8 WebM out, tuned to keep up in real time on one thread. */
export function ffmpegArgs(width: number, height: number, fps: number, outFile: string): string[] {
  return [
    '-hide_banner',
    '-loglevel',
    'error',
    '-nostdin',
    '-f',
    'image2pipe',
    '-avioflags',
    'direct',
    '-fpsprobesize',
    '0',
    '-probesize',
    '32',
    '-analyzeduration',
    '0',
    '-framerate',
    String(fps),
    '-c:v',
    'mjpeg',
    '-i',
    'pipe:0',
    '-an',
    '-c:v',
    'libvpx',
    '-deadline',
    'realtime',
    '-cpu-used',
    '8',
    '-qmin',
    '0',
    '-qmax',
    '50',
    '-crf',
    '8',
    '-b:v',
    '1M',
    '-threads',
    '1',
    '-vf',
    `pad=${width}:${height}:0:0:gray,crop=${width}:${height}:0:0,format=yuv420p`,
    '-f',
    'webm',
    '-y',
    outFile,
  ];
}

const even = (n: number): number => Math.max(2, Math.ceil(n / 2) * 2);

/** The frames repeated for a long still stretch are capped (an hour at `fps`); the video then jumps, the encoder does not run away. */
const MAX_REPEAT_SECONDS = 3600;

/** How long stopping the screencast, and the capture that ends the video, may each take (a page in a tight loop never answers). */
const CAPTURE_TIMEOUT_MS = 2_000;

/** `work`'s value, or undefined when it fails or takes longer than `ms`. */
async function answeredWithin<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([work.catch(() => undefined), bound]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Removes the unfinished recordings (`*.webm.part`) a killed service left under `artifactsDir` (job
 * recordings in `<job_id>/`, session recordings in `sessions/`): nothing will ever finish them. Call at
 * start, before anything records. Returns how many went.
 */
export async function removeUnfinishedRecordings(artifactsDir: string): Promise<number> {
  let removed = 0;
  const folders = await readdir(artifactsDir, { withFileTypes: true }).catch(() => []);
  for (const folder of folders) {
    if (!folder.isDirectory()) continue;
    const dir = join(artifactsDir, folder.name);
    for (const name of await readdir(dir).catch(() => [])) {
      if (!name.endsWith('.webm.part')) continue;
      await rm(join(dir, name), { force: true });
      removed += 1;
    }
  }
  return removed;
}

/** How long ffmpeg may take to finish the file after its input ends. */
const FINISH_TIMEOUT_MS = 30_000;

async function viewportOf(target: Page | CDPSession, cdp: CDPSession): Promise<{ width: number; height: number }> {
  if ('viewportSize' in target) {
    const size = target.viewportSize();
    if (size) return size;
  }
  const { result } = await cdp.send('Runtime.evaluate', {
    expression: '[window.innerWidth, window.innerHeight]',
    returnByValue: true,
  });
  const [width, height] = (result.value as [number, number] | undefined) ?? [1280, 800];
  return { width, height };
}

/**
 * Starts recording `target` (a Playwright page, or a CDP session attached to a page target) into
 * `outFile` (WebM). The file appears only when the recording ended well (written as `<outFile>.part`
 * and renamed). Throws RecordingUnavailable when ffmpeg cannot be started.
 */
export async function startRecording(
  target: Page | CDPSession,
  outFile: string,
  options: RecorderOptions,
): Promise<Recording> {
  const clock = options.clock ?? systemClock;
  const fps = options.fps ?? 15;
  const ownSession = 'context' in target;
  const cdp: CDPSession = ownSession ? await target.context().newCDPSession(target) : target;
  const size = await viewportOf(target, cdp);
  const width = even(options.width ?? size.width);
  const height = even(options.height ?? size.height);
  await mkdir(dirname(outFile), { recursive: true });
  const partFile = `${outFile}.part`;
  const maskKey = `__porticoRecordingMask_${randomUUID().replace(/-/g, '')}`;
  // The mask itself is page code (agent/injected/recordingMask.ts), run by its text in every document.
  const installMask = recordingMaskScript({ key: maskKey, css: MASK_CSS, on: true });
  const removeMask = recordingMaskScript({ key: maskKey, css: MASK_CSS, on: false });

  // The mask goes in before the first frame: every document from now on, and the ones already open.
  // Chromium runs a session's new-document scripts only while that session has the Page domain enabled.
  await cdp.send('Page.enable');
  const { identifier: maskScript } = await cdp.send('Page.addScriptToEvaluateOnNewDocument', { source: installMask });
  // The CDP script reaches this target's documents only; Playwright's init script also reaches cross-origin (out-of-process) iframes.
  const frameScript = ownSession ? await target.addInitScript(installMask) : undefined;
  if (ownSession) {
    await Promise.all(
      scriptableFrames(target).map((frame) => answerWithin(frame, frame.evaluate(installMask)).catch(() => undefined)),
    );
  } else {
    await cdp.send('Runtime.evaluate', { expression: installMask }).catch(() => undefined);
  }

  /**
   * Takes the mask off the page (new documents and open ones) and lets go of our own CDP session. The
   * calls run at once, each bounded: a renderer in an endless loop answers none of them.
   */
  const unmask = async (): Promise<void> => {
    await Promise.all([
      answeredWithin(
        cdp.send('Page.removeScriptToEvaluateOnNewDocument', { identifier: maskScript }),
        CAPTURE_TIMEOUT_MS,
      ),
      frameScript ? answeredWithin(frameScript.dispose(), CAPTURE_TIMEOUT_MS) : undefined,
      ...(ownSession
        ? scriptableFrames(target).map((frame) =>
            answerWithin(frame, frame.evaluate(removeMask), CAPTURE_TIMEOUT_MS).catch(() => undefined),
          )
        : [answeredWithin(cdp.send('Runtime.evaluate', { expression: removeMask }), CAPTURE_TIMEOUT_MS)]),
    ]);
    if (ownSession) await answeredWithin(cdp.detach(), CAPTURE_TIMEOUT_MS);
  };

  // Its own process group: a signal to the service's group (systemd's SIGTERM) must not cut the file short;
  // the service ends its input on shutdown and ffmpeg finishes the file. Should the service die first, the input ends with it.
  const child: ChildProcessWithoutNullStreams = spawn(options.ffmpegPath, ffmpegArgs(width, height, fps, partFile), {
    stdio: ['pipe', 'pipe', 'pipe'],
    windowsHide: true,
    detached: true,
  });
  let stderr = '';
  let failure: string | undefined;
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-2000);
  });
  child.stdout.resume();
  const exited = new Promise<number | null>((resolve) => {
    child.once('error', (error) => {
      failure ??= `ffmpeg could not run: ${error.message}`;
      resolve(null);
    });
    child.once('close', (code) => resolve(code));
  });
  // A pipe error (ffmpeg gone) surfaces as its exit; the write side only has to not crash the process.
  child.stdin.on('error', () => undefined);
  await new Promise<void>((resolve) => {
    child.once('spawn', () => resolve());
    void exited.then(() => resolve());
  });
  if (failure !== undefined) {
    await unmask();
    throw new RecordingUnavailable(failure);
  }

  let frames = 0;
  let writing = Promise.resolve();
  let last: { data: Buffer; frameNumber: number; arrivedMs: number } | undefined;
  let firstTimestamp: number | undefined;
  let stopping = false;

  const write = (data: Buffer, count: number): void => {
    if (count <= 0) return;
    frames += count;
    writing = writing.then(async () => {
      for (let i = 0; i < count; i += 1) {
        if (child.stdin.destroyed || child.exitCode !== null) return;
        if (!child.stdin.write(data)) {
          await new Promise<void>((resolve) => {
            const done = (): void => {
              child.stdin.off('drain', done);
              child.stdin.off('close', done);
              resolve();
            };
            child.stdin.on('drain', done);
            child.stdin.on('close', done);
          });
        }
      }
    });
  };

  const onFrame = (frame: { data: string; sessionId: number; metadata: { timestamp?: number } }): void => {
    cdp.send('Page.screencastFrameAck', { sessionId: frame.sessionId }).catch(() => undefined);
    if (stopping) return;
    const arrivedMs = clock.now().getTime();
    const timestamp = frame.metadata.timestamp ?? arrivedMs / 1000;
    firstTimestamp ??= timestamp;
    const frameNumber = Math.max(last?.frameNumber ?? 0, Math.floor((timestamp - firstTimestamp) * fps));
    if (last) write(last.data, Math.min(frameNumber - last.frameNumber, MAX_REPEAT_SECONDS * fps));
    last = { data: Buffer.from(frame.data, 'base64'), frameNumber, arrivedMs };
  };
  // A still page sends no frames: once a second the last one is repeated up to now, so a long still
  // stretch is encoded as it happens rather than all at once when the recording stops.
  const hold = (): void => {
    if (!last) return;
    const n = Math.min(Math.floor(((clock.now().getTime() - last.arrivedMs) / 1000) * fps), MAX_REPEAT_SECONDS * fps);
    if (n <= 0) return;
    write(last.data, n);
    last = { ...last, frameNumber: last.frameNumber + n, arrivedMs: last.arrivedMs + (n * 1000) / fps };
  };
  let holdTimer: TimerHandle | undefined;
  const scheduleHold = (): void => {
    holdTimer = clock.setTimeout(
      () => {
        if (stopping) return;
        hold();
        scheduleHold();
      },
      1000,
      { unref: true },
    );
  };
  scheduleHold();
  cdp.on('Page.screencastFrame', onFrame);
  let stopped: Promise<RecordingOutcome> | undefined;
  const stop = async (): Promise<RecordingOutcome> => {
    stopping = true;
    clock.clearTimeout(holdTimer);
    cdp.off('Page.screencastFrame', onFrame);
    await answeredWithin(cdp.send('Page.stopScreencast'), CAPTURE_TIMEOUT_MS);
    // One capture of the page now (still masked) ends the video, so it shows the page as it was when the
    // recording stopped: the screencast's last frame can lag the page (Chromium's headless shell sends an
    // out-of-process iframe's paint late, or not before the stop), and a page that painted nothing since
    // the start sent no frame at all. The frame before it is held up to now first.
    const shot = await answeredWithin(
      cdp.send('Page.captureScreenshot', { format: 'jpeg', quality: 80 }),
      CAPTURE_TIMEOUT_MS,
    );
    if (shot) {
      hold();
      last = {
        data: Buffer.from(shot.data, 'base64'),
        frameNumber: last?.frameNumber ?? 0,
        arrivedMs: clock.now().getTime(),
      };
    }
    // The frames go to ffmpeg and its input ends before the page is cleaned up: the file must not wait
    // on a page that may never answer again (a shutdown bounds this stop, and a looping renderer answers nothing).
    // The last frame stays on screen until now (at least one frame, so even a still page gives a video).
    if (last) {
      const before = frames;
      hold();
      if (frames === before) write(last.data, 1);
    }
    const unmasked = unmask();
    await writing;
    child.stdin.end();
    // ffmpeg finishes the file and exits at the end of its input; one that does not is killed, never left behind.
    const guard = clock.setTimeout(() => {
      if (child.exitCode === null) {
        failure ??= `ffmpeg did not finish within ${FINISH_TIMEOUT_MS / 1000} s and was stopped`;
        child.kill('SIGKILL');
      }
    }, FINISH_TIMEOUT_MS);
    const code = await exited;
    clock.clearTimeout(guard);
    await unmasked;
    if (failure === undefined && frames === 0) failure = 'the page showed no frame to record';
    if (failure === undefined && code !== 0)
      failure = `ffmpeg exited with code ${String(code)}${stderr.trim() ? `: ${stderr.trim().split('\n').slice(-3).join(' | ')}` : ''}`;
    if (failure !== undefined) {
      await rm(partFile, { force: true });
      options.onError?.(failure);
      return { ok: false, reason: failure };
    }
    await rename(partFile, outFile);
    return { ok: true, path: outFile, frames };
  };

  const recording: Recording = {
    path: outFile,
    stop: () =>
      (stopped ??= stop().catch(async (error: unknown) => {
        // Whatever went wrong, ffmpeg must not outlive the recording.
        if (child.exitCode === null) child.kill('SIGKILL');
        await rm(partFile, { force: true }).catch(() => undefined);
        return { ok: false as const, reason: error instanceof Error ? error.message : String(error) };
      })),
  };
  try {
    await cdp.send('Page.startScreencast', {
      format: 'jpeg',
      quality: 80,
      maxWidth: width,
      maxHeight: height,
      everyNthFrame: 1,
    });
  } catch (error) {
    await recording.stop();
    throw new RecordingUnavailable(
      `the page's screencast could not start: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return recording;
}
