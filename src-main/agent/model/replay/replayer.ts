import type { Page } from 'playwright-core';
import { openUrl } from '../../../browser/openUrl.ts';
import { SECRET_FIELD_ATTRIBUTE } from '../../../browser/pageScreenshot.ts';
import { assertCredentialOrigin } from '../../autofill/loginPages.ts';
import { filePayloads } from '../../autofill/valueAdapter.ts';
import type { AgentContext } from '../../agentTypes.ts';
import { markField } from '../../injected/index.ts';
import { resolveDescriptor } from '../pageState.ts';
import type { SecretValues } from '../secretValues.ts';
import type { ReplayTrace, TraceStep } from './traceRecorder.ts';

export interface ReplayOutcome {
  /** Steps that ran as recorded (a prefix of the trace). */
  stepsDone: number;
  completed: boolean;
  /** Why the next step could not run, when not completed. */
  reason?: string;
}

/** Whether a stored value is a trace this version can replay. */
export function isReplayTrace(value: unknown): value is ReplayTrace {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as ReplayTrace).version === 1 &&
    Array.isArray((value as ReplayTrace).steps)
  );
}

async function waitForPath(page: Page, path: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (new URL(page.url()).pathname === path) return true;
    if (Date.now() > deadline) return false;
    await page.waitForTimeout(50);
  }
}

/** Runs one recorded step; resolves a reason string when the page no longer offers it. */
async function runStep(
  page: Page,
  step: TraceStep,
  secrets: SecretValues,
  formData: Record<string, unknown>,
  credential: AgentContext['credential'],
): Promise<string | undefined> {
  if (!(await waitForPath(page, step.path, 5_000)))
    return `expected page ${step.path}, found ${new URL(page.url()).pathname}`;
  const locator = step.target ? await resolveDescriptor(page, step.target) : undefined;
  if (step.target && !locator)
    return `no single element matches ${step.target.role} ${JSON.stringify(step.target.name)} any more`;
  const value = step.value ? await secrets.valueOf(step.value) : undefined;
  if (step.value && value === undefined)
    return `no value for ${step.value.kind === 'form_data' ? `form_data.${step.value.key}` : step.value.kind}`;
  switch (step.action) {
    case 'click':
      await locator?.click({ timeout: 5_000 });
      break;
    case 'type':
      // A replayed credential or code is masked in screenshots like the tools' own typing (browser/pageScreenshot.ts).
      if (step.value?.kind === 'credential' || step.value?.kind === 'totp') {
        // A replayed credential value goes only into a frame of the credential's site, like the tools' own typing.
        if (locator) await assertCredentialOrigin(locator, credential);
        await locator?.evaluate(markField, SECRET_FIELD_ATTRIBUTE).catch(() => undefined);
      }
      await locator?.fill(value ?? '', { timeout: 5_000 });
      break;
    case 'select':
      await locator
        ?.selectOption({ label: value ?? '' }, { timeout: 3_000 })
        .catch(() => locator.selectOption(value ?? '', { timeout: 3_000 }));
      break;
    case 'check':
      await locator?.setChecked(value === 'true', { timeout: 5_000 });
      break;
    case 'press_key':
      if (locator) await locator.press(step.key ?? 'Enter', { timeout: 5_000 });
      else await page.keyboard.press(step.key ?? 'Enter');
      break;
    case 'navigate':
      await openUrl(page, step.url ?? page.url(), { waitUntil: 'load', timeout: 30_000 });
      break;
    case 'upload_file': {
      const files = step.value?.kind === 'form_data' ? filePayloads(formData[step.value.key]) : [];
      if (files.length === 0) return 'no file to upload';
      await locator?.setInputFiles(
        files.map((f) => ({ name: f.name, mimeType: f.mimeType, buffer: f.buffer })),
        { timeout: 5_000 },
      );
      break;
    }
    case 'click_at':
      await page.mouse.click(step.x ?? 0, step.y ?? 0);
      break;
    case 'done':
      break;
  }
  if (step.action === 'click' || step.action === 'press_key' || step.action === 'click_at')
    await page.waitForLoadState('domcontentloaded').catch(() => undefined);
  return undefined;
}

/** Replays a trace with no model calls, one engine step per page left; stops at the first step that no longer matches. */
export async function replayTrace(
  ctx: AgentContext,
  trace: ReplayTrace,
  secrets: SecretValues,
): Promise<ReplayOutcome> {
  for (const [i, step] of trace.steps.entries()) {
    if (ctx.signal.aborted) throw ctx.signal.reason as Error;
    let reason: string | undefined;
    try {
      reason = await runStep(ctx.page, step, secrets, ctx.formData, ctx.credential);
    } catch (error) {
      reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    }
    if (reason !== undefined) return { stepsDone: i, completed: false, reason: secrets.redact(reason) };
    if (step.action === 'done') return { stepsDone: i + 1, completed: true };
    if (
      step.action === 'click' ||
      step.action === 'press_key' ||
      step.action === 'navigate' ||
      step.action === 'click_at'
    ) {
      await ctx.recordStep(`replayed ${step.action}${step.target ? ` ${JSON.stringify(step.target.name)}` : ''}`);
    }
  }
  return { stepsDone: trace.steps.length, completed: false, reason: 'the trace ended before the task was done' };
}
