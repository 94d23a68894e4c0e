import { DEFAULT_WAIT_BUDGET, describeWaitTimeout, isWaitTimeout } from '../waitBudget.ts';
import { scriptableFrames } from '../../browser/frameAccess.ts';
import { HumanInput, type RandomSource } from '../../browser/humanInput.ts';
import { openUrl } from '../../browser/openUrl.ts';
import { AgentFailure, type Agent, type AgentContext, type AgentOutcome, type FillReport } from '../agentTypes.ts';
import { flattenFormData, missingRequiredKeys } from './entries.ts';
import { signIn } from './loginPages.ts';
import { askForOption, askOrFail } from './questions.ts';
import { submissionSeen, type SubmissionSeen } from './submissionSeen.ts';
import { buildResult, readFacts, type PageFacts } from './resultBuilder.ts';
import type { KeyMapper } from './keyMapper.ts';
import { Wizard, type WizardOutcome } from './wizard.ts';

export interface AutofillAgentOptions {
  /** Random source for humanized typing and mouse paths (tests pass a seeded one). */
  random?: RandomSource;
  /** Per-key delay bounds for humanized typing, in ms. */
  minKeyDelayMs?: number;
  maxKeyDelayMs?: number;
  /** Navigation timeout for the start URL, in ms (default 30 s). */
  navigationTimeoutMs?: number;
  /** The assist model's key mapper for a run, when its portal has `assist_model` set (null: rules only). */
  keyMapper?: (ctx: AgentContext) => KeyMapper | null;
}

/**
 * `builtin:autofill`: fills a form it has never seen with no model and no network of its own —
 * matches form_data keys to controls (native ones, ARIA widgets built from divs, contenteditable
 * editors), adapts values (dates to the format the field shows), walks wizards, corrects rejected values,
 * asks a human (when allowed) for what it cannot decide, and reads the result off the final page.
 *
 * Steps (`ctx.recordStep`): one per page it clicks on from (filled page, re-filled page after a
 * validation error, or a review page it confirms), plus one for the final page. A one-page form
 * that submits cleanly therefore takes 2 steps; a 3-page wizard with a check-your-answers page, 5.
 */
export class AutofillAgent implements Agent {
  readonly #options: AutofillAgentOptions;

  constructor(options: AutofillAgentOptions = {}) {
    this.#options = options;
  }

  async run(ctx: AgentContext): Promise<AgentOutcome> {
    const formData = { ...ctx.formData };
    // Required keys absent from form_data: ask up front (or fail) rather than half-fill the form.
    for (const missing of missingRequiredKeys(formData, ctx.formSchema)) {
      if (missing.key.includes('.')) continue;
      const answer = await askOrFail(
        ctx,
        {
          question: `What is the value for '${missing.title || missing.key}'?`,
          options: [],
          message: `form_data has no value for the required key '${missing.key}'.`,
        },
        `form_data has no value for the required key '${missing.key}'; enable human_in_the_loop to be asked`,
      );
      formData[missing.key] = answer;
    }
    const entries = flattenFormData(formData, ctx.formSchema);
    ctx.log(`autofill: ${entries.length} value(s) to place`);
    let human: HumanInput | null = null;
    const humanFor = (url: string): HumanInput | null => {
      if (!ctx.isHumanized(url)) return null;
      human ??= new HumanInput(ctx.page, {
        random: this.#options.random,
        minKeyDelayMs: this.#options.minKeyDelayMs,
        maxKeyDelayMs: this.#options.maxKeyDelayMs,
      });
      return human;
    };
    try {
      await openUrl(
        ctx.page,
        ctx.startUrl,
        { waitUntil: 'load', timeout: this.#options.navigationTimeoutMs ?? 30_000 },
        (error) =>
          ctx.log(`the network changed while the start URL opened (${error.message.split('\n')[0]}); opening it again`),
      );
    } catch (error) {
      throw new AgentFailure(
        `Could not open the start URL ${ctx.startUrl}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
        { cause: error },
      );
    }
    // A job with credential_id signs in first (login and one-time-code pages), then fills the form it lands on.
    const wizard = new Wizard(ctx, entries, humanFor, this.#options.keyMapper?.(ctx) ?? null);
    let outcome: WizardOutcome;
    let seen: SubmissionSeen;
    try {
      if (ctx.credential) {
        // The sign-in's own posts are submissions the filler made: seen (and, with no form_data, the job's submission).
        await wizard.watch.arm();
        await signIn(ctx, ctx.credential);
        await wizard.watch.settle();
      }
      outcome = await wizard.run();
      // "completed" means a submission was seen: ask (the human may bring the form on screen) or fail saying what is missing.
      for (let asked = 0; ; asked += 1) {
        seen = await submissionSeen(ctx, wizard, outcome, entries);
        if (!seen.problem) break;
        if (!ctx.humanInTheLoop || asked >= 2) {
          if (seen.receipt) ctx.reportSubmission?.(seen.receipt);
          throw new AgentFailure(`Not submitted: ${seen.problem}`);
        }
        const picked = await askForOption(
          ctx,
          {
            question: `Portico did not see the form submitted: ${seen.problem}. Continue from the page as it is now, or Cancel?`,
            options: ['Continue', 'Cancel'],
            message: 'Bring the form on screen in the live view (or fix what the page shows), then choose Continue.',
          },
          `Not submitted: ${seen.problem}`,
        );
        if (picked === 1) throw new AgentFailure(`Not submitted (cancelled by a human): ${seen.problem}`);
        outcome = await wizard.run();
      }
    } catch (error) {
      await wizard.watch.dispose();
      // A page action that waited out the job's time (a button never clickable…): say which, not Playwright's bare timeout.
      if (isWaitTimeout(error))
        throw new AgentFailure((ctx.budget ?? DEFAULT_WAIT_BUDGET).exhausted(describeWaitTimeout(error)), {
          cause: error,
        });
      throw error;
    }
    // The submission was seen: the routing is taken off while the final page is read and recorded (the
    // three are independent page calls), and is off before the run returns.
    const disposed = wizard.watch.dispose();
    let facts: PageFacts;
    try {
      facts = await readFacts(scriptableFrames(ctx.page));
      // The capture the wizard started at the confirmation, when it still shows this page; else taken now.
      await ctx.recordStep(`Final page: '${facts.title || facts.url}'`, outcome.shot);
    } finally {
      await disposed;
    }
    const report: FillReport = { placements: {}, unplaced: outcome.unplaced };
    for (const [key, placed] of outcome.placed) {
      report.placements[key] = {
        control: placed.label,
        value: placed.shown,
        how: placed.how,
        matched_by: placed.matchedBy,
      };
    }
    for (const { key, reason } of outcome.unplaced) ctx.log(`${key}: not placed (${reason})`);
    ctx.reportFill?.(report);
    if (seen.receipt) {
      ctx.reportSubmission?.(seen.receipt);
      if (seen.receipt.unverified.length)
        ctx.log(`submission: not found in what was sent (unverified): ${seen.receipt.unverified.join(', ')}`);
    }
    const fields = Object.fromEntries(Object.entries(report.placements).map(([key, p]) => [key, p.value]));
    const result = buildResult(facts, ctx.outputSchema, fields, { submitted: true, receipt: seen.receipt }, report);
    ctx.log(`autofill: done${facts.reference ? `, reference ${facts.reference}` : ''}`);
    return { result };
  }
}

export { AgentFailure };
