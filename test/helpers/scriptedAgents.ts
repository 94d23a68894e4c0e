import { AgentFailure, type Agent, type AgentContext, type AgentOutcome } from '../../src-main/agent/agentTypes.ts';
import type { AgentRegistry } from '../../src-main/engine/jobs/jobScheduler.ts';

/**
 * Agents with scripted behaviour for testing the job engine's state machine (queue, questions,
 * cancel, timeouts, turns) in real Chromium. The real autofill agent has its own tests.
 * The script is chosen by the portal's task text: `script:<name>`.
 */
const scripts: Record<string, (ctx: AgentContext) => Promise<AgentOutcome>> = {
  /** Opens the start URL, takes two steps, returns the page title. */
  async visit(ctx) {
    await ctx.page.goto(ctx.startUrl);
    await ctx.recordStep('opened the start page');
    ctx.log(`title is ${await ctx.page.title()}`);
    await ctx.recordStep('read the title');
    return { result: { title: await ctx.page.title(), echo: ctx.formData } };
  },
  /** Asks which colour, types the answer into the page, returns it. */
  async ask(ctx) {
    await ctx.page.goto(ctx.startUrl);
    const answer = await ctx.ask({
      question: 'Which colour?',
      options: ['red', 'green'],
      message: "form_data has no key 'colour'",
    });
    await ctx.page.fill('#colour', answer);
    await ctx.recordStep(`typed ${answer}`);
    return { result: { colour: await ctx.page.inputValue('#colour') } };
  },
  /** Waits until aborted (cancel, timeout, shutdown). */
  async hang(ctx) {
    await ctx.page.goto(ctx.startUrl);
    await ctx.recordStep('opened the start page');
    await new Promise((_, reject) =>
      ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error), { once: true }),
    );
    return { result: {} };
  },
  /** Steps forever; max_turns must stop it. */
  async loop(ctx) {
    await ctx.page.goto(ctx.startUrl);
    for (;;) await ctx.recordStep('another step');
  },
  /** Clicks the download link and waits for the file. */
  async download(ctx) {
    await ctx.page.goto(ctx.startUrl);
    const download = ctx.page.waitForEvent('download');
    await ctx.page.click('#dl');
    await (await download).path();
    await ctx.recordStep('downloaded the file');
    return { result: { downloaded: true } };
  },
  /** Opens the start URL, writes localStorage when asked, reports cookies and storage. */
  async storage(ctx) {
    await ctx.page.goto(ctx.startUrl);
    if (ctx.formData.write)
      await ctx.page.evaluate((v) => localStorage.setItem('remember', String(v)), ctx.formData.write);
    await ctx.recordStep('read storage');
    const state = await ctx.page.evaluate(() => ({
      cookie: document.cookie,
      remember: localStorage.getItem('remember'),
    }));
    return { result: state };
  },
  /** Reports a submission receipt (as builtin:autofill does after checking what the form sent), then completes. */
  async submission(ctx) {
    await ctx.page.goto(ctx.startUrl);
    ctx.reportSubmission?.({
      method: 'POST',
      url: `${new URL(ctx.startUrl).origin}/apply?session=[redacted]`,
      fields: { fn: 'Ada Lovelace', pw: '[secret]', topics: ['news', 'events'] },
      body_sha256: 'a'.repeat(64),
      response_status: 201,
      verified: ['full_name', 'password'],
      unverified: ['topics'],
      approved: [],
    });
    await ctx.recordStep('submitted the form');
    return { result: { submitted: true } };
  },
  /** Fails with a message naming a field. */
  async fail(ctx) {
    await ctx.page.goto(ctx.startUrl);
    throw new AgentFailure("No control on the page matches form_data key 'passport_number'");
  },
};

export const scriptedAgent: Agent = {
  run(ctx) {
    const name = /^script:(\w+)/.exec(ctx.task)?.[1] ?? '';
    const script = scripts[name];
    if (!script) throw new AgentFailure(`no test script '${name}'`);
    return script(ctx);
  },
};

export const scriptedRegistry: AgentRegistry = {
  get: (model) => (model === 'builtin:autofill' ? scriptedAgent : undefined),
};
