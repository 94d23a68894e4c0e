import { writeFile } from 'node:fs/promises';
import type { CDPSession, Locator, Page } from 'playwright-core';
import { secretFieldsShownScript } from '../agent/injected/index.ts';
import { answerWithin, FrameDidNotAnswer, scriptableFrames } from './frameAccess.ts';

/**
 * The one definition of what no stored or sent picture may show (issue 12: "password fields masked in
 * every frame"). Every screenshot taker (job steps, workflow steps, the pictures sent to a model) masks
 * these through `secretFieldMasks`, and recordings paint the same selector over (`browser/recorder.ts`):
 * - password fields, and fields the page marks as holding a password even while it shows it as text
 *   (`autocomplete=current-password/new-password`, a "show password" toggle);
 * - one-time-code fields: `autocomplete=one-time-code`, numeric 6-character inputs, names or ids with
 *   "otp", and split single-character boxes (the login filler's detection, agent/injected/loginScan.ts);
 * - fields the login filler tagged as password or code (`data-portico-login`, agent/autofill/loginPages.ts)
 *   and fields a model-agent tool typed a credential or code into (`data-portico-secret`).
 * A lone single-character input (a middle initial) is masked too: masking one field too many is the safe side.
 */
export const SECRET_FIELD_ATTRIBUTE = 'data-portico-secret';

const TEXT_LIKE =
  ':is(:not([type]), [type="" i], [type="text" i], [type="tel" i], [type="number" i], [type="password" i])';

export const SECRET_FIELDS_SELECTOR = [
  'input[type="password" i]',
  'input[autocomplete~="current-password" i]',
  'input[autocomplete~="new-password" i]',
  'input[autocomplete~="one-time-code" i]',
  `input[maxlength="6"]:is([inputmode="numeric" i], [type="number" i])`,
  'input[name*="otp" i]',
  'input[id*="otp" i]',
  `input[maxlength="1"]${TEXT_LIKE}`,
  '[data-portico-login="password"]',
  '[data-portico-login^="otp-"]',
  `[${SECRET_FIELD_ATTRIBUTE}]`,
].join(', ');

/**
 * One mask locator per frame that holds a secret field right now (Playwright's `mask` locators are
 * per frame: `page.locator` never reaches into an iframe, same-origin or not). Empty when no frame has one.
 * Playwright's CSS engine pierces open shadow roots, so a field inside a web component counts too.
 */
export async function secretFieldMasks(page: Page): Promise<Locator[]> {
  // A frame too busy to answer may show a secret field: the screenshot fails (FrameDidNotAnswer) rather than go unmasked.
  const found = await Promise.all(
    scriptableFrames(page).map(async (frame) => {
      const locator = frame.locator(SECRET_FIELDS_SELECTOR);
      const count = await answerWithin(frame, locator.count()).catch((error: unknown) => {
        if (error instanceof FrameDidNotAnswer) throw error;
        return 0;
      });
      return count > 0 ? locator : null;
    }),
  );
  return found.filter((l): l is Locator => l !== null);
}

/**
 * A masked screenshot (viewport, or full page) as bytes. A frame that goes away between finding the
 * masks and painting them fails the capture; it is retried once with masks found afresh, and never
 * taken without them.
 */
export async function maskedScreenshot(
  page: Page,
  options: { type: 'png' | 'jpeg'; quality?: number; fullPage?: boolean; timeout?: number; path?: string },
): Promise<Buffer> {
  const take = async (): Promise<Buffer> => {
    const mask = await secretFieldMasks(page);
    return page.screenshot({ ...options, timeout: options.timeout ?? 15_000, ...(mask.length ? { mask } : {}) });
  };
  try {
    return await take();
  } catch {
    return take();
  }
}

/** A page's own CDP session for captures, and its main frame's id (a frame keeps its id across navigations). */
interface CaptureSession {
  cdp: CDPSession;
  mainFrameId: string;
}

const sessions = new WeakMap<Page, Promise<CaptureSession>>();

/** The page's capture session, opened once per page. */
function captureSession(page: Page): Promise<CaptureSession> {
  let session = sessions.get(page);
  if (!session) {
    session = (async () => {
      const cdp = await page.context().newCDPSession(page);
      const { frameTree } = await cdp.send('Page.getFrameTree');
      return { cdp, mainFrameId: frameTree.frame.id };
    })();
    sessions.set(page, session);
  }
  return session;
}

/**
 * Opens `page`'s capture session ahead of its first step screenshot (a spare context's page, made between jobs:
 * browserRuntime.ts), so that capture does not pay the session's two round trips (attach, frame tree) on its
 * job's path. A failure only forgets it: the first capture opens one as before.
 */
export async function prepareCaptureSession(page: Page): Promise<void> {
  await captureSession(page).catch(() => dropCaptureSession(page));
}

/** Forgets a capture session that failed (navigation to another process, a closed target); the next capture opens another. */
function dropCaptureSession(page: Page): void {
  const session = sessions.get(page);
  sessions.delete(page);
  void session?.then(({ cdp }) => cdp.detach()).catch(() => undefined);
}

/** The isolated world the mask check runs in (its own per document; asked again by name, the same one). */
const CAPTURE_WORLD = 'portico-capture';

/**
 * Whether a secret field (`SECRET_FIELDS_SELECTOR`) is in the page, asked in one call of the capture
 * session when the page is one frame: the document and its open shadow roots, searched in an isolated world
 * (agent/injected/secretFieldsShown.ts), so neither Playwright's injected script (345 KB, compiled into
 * each document it first runs in: ~20-40 ms of a job's renderer and browser CPU for the result page alone)
 * nor a page script that replaced the DOM's query functions is involved. Undefined when it cannot be told
 * this way — a page with frames (Playwright reaches every frame, out-of-process ones too), a session or
 * document that went away: the caller then asks Playwright per frame (`secretFieldMasks`). A document
 * that does not answer fails the capture (FrameDidNotAnswer), as there. Exported for its test.
 */
export async function secretFieldShownInPage(page: Page): Promise<boolean | undefined> {
  const frames = scriptableFrames(page);
  const main = page.mainFrame();
  if (frames.length !== 1 || frames[0] !== main) return undefined;
  const ask = async (): Promise<boolean | undefined> => {
    const { cdp, mainFrameId } = await captureSession(page);
    const { executionContextId } = await cdp.send('Page.createIsolatedWorld', {
      frameId: mainFrameId,
      worldName: CAPTURE_WORLD,
    });
    const { result, exceptionDetails } = await cdp.send('Runtime.evaluate', {
      contextId: executionContextId,
      expression: secretFieldsShownScript(SECRET_FIELDS_SELECTOR),
      returnByValue: true,
    });
    return exceptionDetails === undefined && typeof result.value === 'boolean' ? result.value : undefined;
  };
  try {
    return await answerWithin(main, ask());
  } catch (error) {
    if (error instanceof FrameDidNotAnswer) throw error;
    dropCaptureSession(page);
    return undefined;
  }
}

/** Whether the page shows a secret field now: the one-call check, else Playwright's count per frame. */
async function secretFieldShown(page: Page): Promise<boolean> {
  return (await secretFieldShownInPage(page)) ?? (await secretFieldMasks(page)).length > 0;
}

/** The viewport as Chromium's own PNG (its fast encoder), through the page's capture session; nothing masked. */
async function viewportCapture(page: Page): Promise<Buffer> {
  const { cdp } = await captureSession(page);
  const { data } = await cdp.send('Page.captureScreenshot', { format: 'png', optimizeForSpeed: true });
  return Buffer.from(data, 'base64');
}

/**
 * A job step's screenshot: the viewport (what the agent saw and acted on), as a full-resolution PNG
 * (the page's device pixels, never scaled: the `screenshots` archive is made of these files and the spec
 * wants full-resolution PNGs), every secret field (`SECRET_FIELDS_SELECTOR`, in every frame) painted over.
 * Returned as bytes, so the caller can write them off the job's path. Without anything to mask it asks
 * Chromium directly with its fast PNG encoder; with something to mask, Playwright's screenshot paints it.
 * A viewport capture leaves the page's layout alone, where a full-page one resizes the view to the whole
 * document, lays it out and paints it, and resizes it back (docs/decisions.md, "Step screenshots").
 */
export async function stepScreenshot(page: Page): Promise<Buffer> {
  if (await secretFieldShown(page)) return maskedScreenshot(page, { type: 'png' });
  try {
    return await viewportCapture(page);
  } catch {
    // A session that cannot be opened or has gone (navigation to another process, a closed target): Playwright's way.
    dropCaptureSession(page);
    return maskedScreenshot(page, { type: 'png' });
  }
}

/**
 * A step screenshot started ahead of its step (AgentContext.captureStep) while the agent reads the page: only
 * Chromium's own capture, which reads the page and never changes it, and only once the page was asked for secret
 * fields and showed none. Undefined when one is shown (the masked capture paints over the page: the step takes it
 * with `stepScreenshot` when it is recorded) or the capture failed (taken again then).
 */
export async function unmaskedStepScreenshot(page: Page): Promise<Buffer | undefined> {
  try {
    if (await secretFieldShown(page)) return undefined;
    return await viewportCapture(page);
  } catch {
    return undefined;
  }
}

/**
 * A full-page PNG of `page` written to `path`, with every secret field (`SECRET_FIELDS_SELECTOR`, in
 * every frame) painted over (workflow steps take one). Without anything to mask it asks Chromium directly
 * (one layout query and one capture tuned for speed, about half of Playwright's full-page path); with
 * something to mask it uses Playwright's screenshot, which paints the masked elements over.
 */
export async function fullPageScreenshot(page: Page, path: string): Promise<void> {
  if (await secretFieldShown(page)) {
    await maskedScreenshot(page, { path, fullPage: true, type: 'png' });
    return;
  }
  try {
    const { cdp } = await captureSession(page);
    const { cssContentSize } = await cdp.send('Page.getLayoutMetrics');
    const clip = {
      x: 0,
      y: 0,
      width: Math.max(1, Math.ceil(cssContentSize.width)),
      height: Math.max(1, Math.ceil(cssContentSize.height)),
      scale: 1,
    };
    const { data } = await cdp.send('Page.captureScreenshot', {
      format: 'png',
      captureBeyondViewport: true,
      optimizeForSpeed: true,
      clip,
    });
    await writeFile(path, Buffer.from(data, 'base64'));
  } catch {
    // A session that cannot be opened or has gone (navigation to another process, a closed target): Playwright's way.
    dropCaptureSession(page);
    await maskedScreenshot(page, { path, fullPage: true, type: 'png' });
  }
}
