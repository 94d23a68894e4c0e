import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent, AgentContext, StepCapture } from '../../src-main/agent/agentTypes.ts';
import { dataPaths } from '../../src-main/base/paths.ts';
import type { AgentRegistry } from '../../src-main/engine/jobs/jobScheduler.ts';
import { screenshotName, screenshotsDir } from '../../src-main/engine/jobs/jobRun.ts';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { startService, waitForJob, type TestService } from '../helpers/service.ts';

/** Paints the page's background (the capture waits for the frame that shows it). */
const paint = (ctx: AgentContext, colour: string) =>
  ctx.page.evaluate((c) => {
    document.body.style.background = c;
  }, colour);

/** Starts a step capture and waits until it is done. */
async function captured(ctx: AgentContext): Promise<StepCapture> {
  const capture = ctx.captureStep?.();
  if (!capture) throw new Error('the job engine offers no captureStep');
  await capture.taken;
  return capture;
}

/**
 * Steps: 0 captured white then painted red (the capture is the picture), 1 red at the step, 2 captured red, then
 * painted white and a question asked (taken again: white), 3 white at the step, 4 a password field shown at the
 * capture (taken masked at the step), 5 the same at the step.
 */
const captureAgent: Agent = {
  async run(ctx) {
    await ctx.page.goto(ctx.startUrl);
    await paint(ctx, 'white');
    const white = await captured(ctx);
    await paint(ctx, 'rgb(200, 0, 0)');
    await ctx.recordStep('captured before the page turned red', white);
    await ctx.recordStep('red at the step');
    const red = await captured(ctx);
    await paint(ctx, 'white');
    await ctx.ask({ question: 'Go on?', options: ['yes'], message: 'a question between a capture and its step' });
    await ctx.recordStep('captured red, then a question', red);
    await ctx.recordStep('white at the step');
    await ctx.page.evaluate(() => {
      const field = document.createElement('input');
      field.type = 'password';
      field.value = 'hunter2';
      document.body.append(field);
    });
    const secret = await captured(ctx);
    await ctx.recordStep('captured with a password field shown', secret);
    await ctx.recordStep('the password field at the step');
    return { result: {} };
  },
};

describe("a step's screenshot started ahead of its step (captureStep)", () => {
  let svc: TestService;
  let pages: PageServer;
  const registry: AgentRegistry = { get: (model) => (model === 'builtin:autofill' ? captureAgent : undefined) };

  beforeAll(async () => {
    pages = await startPageServer({ '/plain': '<!doctype html><title>Plain</title><p>A plain page</p>' });
    svc = await startService(undefined, { agents: registry });
    await svc.request('createPortal', {
      params: { org_id: 'default' },
      body: { endpoint_name: 'capture', start_url: `${pages.url}/plain`, task: 'capture' },
    });
  });
  afterAll(async () => {
    await svc.dispose();
    await pages.close();
  });

  it('is the step picture; taken again at the step after a question, and when a secret field is shown', async () => {
    const start = await svc.send('startJob', {
      params: { org_id: 'default', endpoint_name: 'capture' },
      body: { form_data: {}, human_in_the_loop: true },
    });
    const jobId = String((start.body as { job_id: string }).job_id);
    const waiting = await waitForJob(svc, 'capture', jobId, ['waiting_for_input', 'failed']);
    expect(waiting.status, JSON.stringify(waiting.error)).toBe('waiting_for_input');
    const question = (waiting.events as { type: string; data: { question_id: string } }[]).find(
      (e) => e.type === 'question',
    );
    await svc.request('answerJob', {
      params: { org_id: 'default', endpoint_name: 'capture' },
      query: { job_id: jobId },
      body: { question_id: question?.data.question_id, answer: 'yes' },
    });
    const done = await waitForJob(svc, 'capture', jobId, ['completed', 'failed']);
    expect(done, JSON.stringify(done.error)).toMatchObject({ status: 'completed', steps: 6 });
    const dir = screenshotsDir(dataPaths(svc.dataDir).artifacts, jobId);
    const shots = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => readFile(join(dir, screenshotName(i)))));
    const [white, red, afterQuestion, whiteAtStep, secret, secretAtStep] = shots as [
      Buffer,
      Buffer,
      Buffer,
      Buffer,
      Buffer,
      Buffer,
    ];
    expect(white.equals(red), 'the capture taken before the page turned red').toBe(false);
    expect(white.equals(whiteAtStep), 'the capture is the picture of the page when it was taken').toBe(true);
    expect(afterQuestion.equals(whiteAtStep), 'a capture started before a question is taken again').toBe(true);
    expect(secret.equals(secretAtStep), 'a secret field shown: the masked picture, taken at the step').toBe(true);
  });
});
