import { DEFAULT_WAIT_BUDGET } from '../waitBudget.ts';
import type { Frame, Locator, Page } from 'playwright-core';
import { answerWithin, scriptableFrames } from '../../browser/frameAccess.ts';
import { openUrl } from '../../browser/openUrl.ts';
import { AgentFailure, type AgentContext, type AgentCredential } from '../agentTypes.ts';
import { frameLocation, loginScan, type LoginScan } from '../injected/index.ts';

export type { LoginScan };

const ROLE = 'data-portico-login';

/** Scans one frame; a frame that is navigating or gone reads as no login controls. */
export async function scanLoginFrame(frame: Frame): Promise<LoginScan> {
  return answerWithin(frame, frame.evaluate(loginScan, ROLE)).catch(() => ({
    username: false,
    password: false,
    otpBoxes: 0,
    submit: false,
  }));
}

function originOf(url: string): string | null {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}

/** Whether credential values may be typed into this frame: only one of the credential's `service_url` origin, when it has one. */
export function mayTypeInto(frameUrl: string, credential: Pick<AgentCredential, 'origin'>): boolean {
  return credential.origin === null || originOf(frameUrl) === credential.origin;
}

/** Refuses (AgentFailure) to type a credential value into an element whose frame is of another origin than the credential's site. */
export async function assertCredentialOrigin(
  locator: Locator,
  credential: Pick<AgentCredential, 'origin' | 'serviceName'> | undefined,
): Promise<void> {
  if (!credential || credential.origin === null) return;
  const origin = await locator
    .evaluate(frameLocation)
    .then((where) => where.origin)
    .catch(() => 'unknown');
  if (origin !== credential.origin) {
    throw new AgentFailure(
      `refused to type the credential for ${credential.serviceName} into a frame of ${origin}: it belongs to ${credential.origin}`,
    );
  }
}

type LoginStep = 'credentials' | 'username' | 'code';

interface FoundLogin {
  frame: Frame;
  scan: LoginScan;
  step: LoginStep;
}

async function findLogin(page: Page): Promise<FoundLogin | undefined> {
  for (const frame of scriptableFrames(page)) {
    const scan = await scanLoginFrame(frame);
    const step: LoginStep | null = scan.password
      ? 'credentials'
      : scan.otpBoxes > 0
        ? 'code'
        : scan.username
          ? 'username'
          : null;
    if (step === null) continue;
    return { frame, scan, step };
  }
  return undefined;
}

/** How long one sign-in action waits for its control: the job's remaining time (agent/waitBudget.ts). */
function waitMs(ctx: AgentContext): number {
  return (ctx.budget ?? DEFAULT_WAIT_BUDGET).ms();
}

async function settleAfter(page: Page, frame: Frame, click: () => Promise<void>): Promise<void> {
  const navigated = page.waitForEvent('framenavigated', { timeout: 3000 }).then(
    () => true,
    () => false,
  );
  await click();
  const moved = await Promise.race([
    navigated,
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 500)),
  ]);
  if (moved) await page.waitForLoadState('load', { timeout: 15000 }).catch(() => undefined);
  await frame.waitForLoadState('load', { timeout: 5000 }).catch(() => undefined);
}

async function submit(page: Page, frame: Frame, scan: LoginScan, lastField: Locator, waitMs: number): Promise<void> {
  await settleAfter(page, frame, async () => {
    if (scan.submit) await frame.locator(`[${ROLE}="submit"]`).click({ timeout: waitMs });
    else await lastField.press('Enter', { timeout: waitMs });
  });
}

/** A code page: TOTP when the credential has a seed, else a code pushed to (or asked for) the job, or a mailed sign-in link. */
async function codeFor(credential: AgentCredential): Promise<string | { link: string }> {
  if (credential.hasTotp) return credential.totp();
  return credential.receivedCodeOrLink ? credential.receivedCodeOrLink() : credential.receivedCode();
}

/** Opens a mailed sign-in link in the job's page: only one of the credential's site (the origin rule of typing). */
async function openMagicLink(ctx: AgentContext, credential: AgentCredential, link: string): Promise<void> {
  if (!mayTypeInto(link, credential)) {
    throw new AgentFailure(
      `The sign-in link mailed for ${credential.serviceName} leads to ${originOf(link) ?? 'another site'}, but the credential belongs to ${credential.origin ?? 'another site'}; it was not opened`,
    );
  }
  ctx.log(`login: opening the sign-in link mailed for ${credential.serviceName}`);
  await openUrl(ctx.page, link, { waitUntil: 'load', timeout: 30_000 });
}

/** "Check your email, we sent you a sign-in link": a page that waits for a mailed link and has no field for a code. */
const MAILED_LINK_PAGE =
  /\b(check your (e-?mail|inbox|mailbox)|we(?:'ve| have)? (sent|e-?mailed) (you )?(a |an )?(magic |sign[- ]?in |log[- ]?in |login )?(link|e-?mail))/i;

/**
 * After a submitted username/password page, a page with no field at all that says a sign-in link
 * was mailed: when the credential reads a mailbox, wait for the link (or a code, which has nowhere
 * to go) and open it. A page with any field (a form to fill) is never taken for one.
 */
async function followMailedLink(ctx: AgentContext, credential: AgentCredential): Promise<boolean> {
  if (!credential.receivesCodes || !credential.receivedCodeOrLink) return false;
  const fields = await ctx.page
    .locator('input:visible:not([type="hidden"]), textarea:visible, select:visible')
    .count()
    .catch(() => 1);
  if (fields > 0) return false;
  const text = await ctx.page
    .locator('body')
    .innerText({ timeout: 5000 })
    .catch(() => '');
  if (!MAILED_LINK_PAGE.test(text)) return false;
  const received = await credential.receivedCodeOrLink();
  if (typeof received === 'string') {
    ctx.log(`login: a code arrived for ${credential.serviceName}, but the page has no field for it`);
    return false;
  }
  await openMagicLink(ctx, credential, received.link);
  await ctx.recordStep(`Sign-in link mailed for ${credential.serviceName} opened`);
  return true;
}

/**
 * Signs in with the job's credential on the page as it stands: username + password (on one page or
 * two), then a one-time-code page. Values are typed only into frames of the credential's site; the
 * page left afterwards is where the form filling starts. Returns how many login pages it submitted.
 */
export async function signIn(ctx: AgentContext, credential: AgentCredential, maxPages = 4): Promise<number> {
  let submitted = 0;
  let lastStep: LoginStep | undefined;
  for (let round = 0; round < maxPages; round += 1) {
    ctx.signal.throwIfAborted();
    const found = await findLogin(ctx.page);
    if (!found) {
      if (submitted > 0 && lastStep !== 'code' && (await followMailedLink(ctx, credential))) {
        lastStep = 'code';
        submitted += 1;
        continue;
      }
      break;
    }
    const { frame, scan, step } = found;
    if (!mayTypeInto(frame.url(), credential)) {
      const origin = originOf(frame.url()) ?? frame.url();
      ctx.log(
        `login: refused to type the credential for ${credential.serviceName} into a frame of ${origin}; it belongs to ${credential.origin ?? 'any site'}`,
      );
      throw new AgentFailure(
        `The login form is in a frame of ${origin}, but the credential for ${credential.serviceName} belongs to ${credential.origin ?? 'another site'}; nothing was typed`,
      );
    }
    let last: Locator | undefined;
    if (step === 'code') {
      const code = await codeFor(credential);
      if (typeof code !== 'string') {
        await openMagicLink(ctx, credential, code.link);
        await ctx.recordStep(`Sign-in link mailed for ${credential.serviceName} opened`);
        submitted += 1;
        lastStep = 'code';
        continue;
      }
      if (scan.otpBoxes === 1) {
        last = frame.locator(`[${ROLE}="otp-0"]`);
        await last.fill(code, { timeout: waitMs(ctx) });
      } else {
        if (code.length !== scan.otpBoxes)
          ctx.log(`login: the code page has ${scan.otpBoxes} boxes for a ${code.length}-character code`);
        last = frame.locator(`[${ROLE}="otp-0"]`);
        for (let i = 0; i < scan.otpBoxes && i < code.length; i += 1) {
          last = frame.locator(`[${ROLE}="otp-${i}"]`);
          await last.fill(code[i] ?? '', { timeout: waitMs(ctx) });
        }
      }
      ctx.log(`login: typed the one-time code for ${credential.serviceName}`);
    } else {
      if (scan.username) {
        if (credential.username === null)
          throw new AgentFailure(
            `The login page asks for a username, but the credential for ${credential.serviceName} has none`,
          );
        last = frame.locator(`[${ROLE}="username"]`);
        await last.fill(credential.username, { timeout: waitMs(ctx) });
      }
      if (step === 'credentials') {
        if (!credential.hasPassword)
          throw new AgentFailure(
            `The login page asks for a password, but the credential for ${credential.serviceName} has none`,
          );
        last = frame.locator(`[${ROLE}="password"]`);
        await last.fill(await credential.password(), { timeout: waitMs(ctx) });
      }
      ctx.log(
        `login: typed the ${step === 'credentials' ? 'username and password' : 'username'} for ${credential.serviceName}`,
      );
    }
    await ctx.recordStep(
      `Login page (${step === 'code' ? 'one-time code' : step}) filled from the credential for ${credential.serviceName}`,
    );
    await submit(ctx.page, frame, scan, last ?? frame.locator(`[${ROLE}="username"]`), waitMs(ctx));
    submitted += 1;
    lastStep = step;
  }
  return submitted;
}
