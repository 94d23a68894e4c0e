import { createHash } from 'node:crypto';
import type { Page } from 'playwright-core';
import { scriptableFrames } from '../../browser/frameAccess.ts';
import { openUrl } from '../../browser/openUrl.ts';
import { maskedScreenshot } from '../../browser/pageScreenshot.ts';
import type { JsonObject } from '../../contract/common.ts';
import {
  costOfUsage,
  type LlmClient,
  type LlmMessage,
  type ToolResultBlock,
  type UserContent,
} from '../../llm/index.ts';
import { AgentFailure, type Agent, type AgentContext, type AgentJobInfo, type AgentOutcome } from '../agentTypes.ts';
import { buildResult, readFacts } from '../autofill/resultBuilder.ts';
import { fingerprint, locateByIndex, readPageState, type PageState } from './pageState.ts';
import { systemPrompt, turnText } from './prompt.ts';
import { ResultCheck } from './resultCheck.ts';
import { isReplayTrace, replayTrace } from './replay/replayer.ts';
import { TraceRecorder, type ReplayTrace } from './replay/traceRecorder.ts';
import { SecretValues } from './secretValues.ts';
import { SkillLibrary, type SkillSummary } from './skillLibrary.ts';
import { AGENT_TOOLS, type AgentTool, ToolInputError, type ToolEnv, type ToolResult } from './tools/index.ts';
import { VisionLocator } from './visionLocator.ts';

export interface ModelAgentDeps {
  /** Builds a client for a `provider:model` id (throws the llm/ typed errors). */
  llm: { create(modelId: string): Promise<LlmClient> };
  /** The replay cache, one trace per portal. */
  traces: {
    get(portalId: string): { trace: unknown } | undefined;
    put(portalId: string, trace: unknown, sourceJobId: string | null): void;
  };
  /** Skill records by id (name, description). */
  skill(id: string): SkillSummary | undefined;
  skillsDir: string;
  /** Loop guards: the same failing call this many times, or this many turns with an unchanged page, fail the job. */
  maxRepeatedFailures?: number;
  maxIdleTurns?: number;
}

/** The replay key: a trace replays only for the same start URL, task and form_data key names (never values). */
function traceKey(ctx: AgentContext): string {
  return createHash('sha256')
    .update(JSON.stringify([ctx.startUrl, ctx.task, Object.keys(ctx.formData).sort()]))
    .digest('hex')
    .slice(0, 32);
}

/** The model sees one screenshot: the latest. Older ones become a note, which keeps each call's tokens flat. */
function dropOldImages(messages: LlmMessage[]): void {
  for (const message of messages) {
    if (message.role !== 'user') continue;
    message.content = message.content.map(
      (b): UserContent => (b.type === 'image' ? { type: 'text', text: '[earlier screenshot omitted]' } : b),
    );
  }
}

async function screenshotFor(page: Page): Promise<string> {
  return (await maskedScreenshot(page, { type: 'jpeg', quality: 60 })).toString('base64');
}

/**
 * The model-driven agent: replays the portal's recorded trace when it still matches, otherwise (or
 * from the first step that no longer matches) asks the orchestrator model for tool calls turn by
 * turn, then stores the run's trace for the next job.
 */
export class ModelAgent implements Agent {
  readonly #deps: ModelAgentDeps;

  constructor(deps: ModelAgentDeps) {
    this.#deps = deps;
  }

  async run(ctx: AgentContext): Promise<AgentOutcome> {
    const job = ctx.job;
    if (!job) throw new AgentFailure('the model-driven agent needs the job details from the engine');
    // Only the job's own credential (its credential_id, else its portal's) can be read; without one, none.
    const secrets = new SecretValues(ctx.credential, ctx.formData, ctx.formSchema);
    // Actions are recorded after they run; the path that counts is the page they ran on (the turn's page).
    let turnPath = '';
    const recorder = new TraceRecorder(() => turnPath);
    const key = traceKey(ctx);
    await openUrl(ctx.page, ctx.startUrl, { waitUntil: 'load', timeout: 30_000 }, (error) =>
      ctx.log(`the network changed while the start URL opened (${error.message.split('\n')[0]}); opening it again`),
    );

    let note: string | undefined;
    const stored = job.replay && job.portalId ? this.#deps.traces.get(job.portalId) : undefined;
    if (stored && isReplayTrace(stored.trace) && stored.trace.key === key) {
      const trace = stored.trace;
      const outcome = await replayTrace(ctx, trace, secrets);
      recorder.steps.push(...trace.steps.slice(0, outcome.stepsDone));
      if (outcome.completed) {
        ctx.reportMode?.('replayed', `${trace.steps.length} recorded steps, no model calls`);
        await ctx.recordStep('final page (replayed)');
        return { result: await this.#resultFromPage(ctx, secrets) };
      }
      ctx.reportMode?.(
        'healed',
        `replayed ${outcome.stepsDone} of ${trace.steps.length} steps; then ${outcome.reason ?? 'a step failed'}; the model takes over`,
      );
      note = `Steps were replayed from a recorded run up to here; the next recorded step failed (${outcome.reason ?? 'unknown'}). Continue the task from the current page.`;
    } else {
      ctx.reportMode?.(
        'fresh',
        !job.replay
          ? 'replay is off for this job'
          : stored
            ? 'the recorded trace is for another task or form_data shape'
            : 'no recorded trace for this portal',
      );
    }
    const result = await this.#loop(ctx, job, secrets, recorder, note, (path) => (turnPath = path));
    if (job.portalId) {
      const trace: ReplayTrace = { version: 1, key, steps: recorder.steps };
      this.#deps.traces.put(job.portalId, trace, job.id);
    }
    return { result };
  }

  async #resultFromPage(ctx: AgentContext, secrets: SecretValues): Promise<JsonObject> {
    const facts = await readFacts(scriptableFrames(ctx.page));
    const fields: Record<string, string> = {};
    for (const [k, v] of Object.entries(secrets.forModel()))
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') fields[k] = String(v);
    return JSON.parse(
      secrets.redact(JSON.stringify(buildResult(facts, ctx.outputSchema, fields, { submitted: true, receipt: null }))),
    ) as JsonObject;
  }

  async #loop(
    ctx: AgentContext,
    job: AgentJobInfo,
    secrets: SecretValues,
    recorder: TraceRecorder,
    firstNote: string | undefined,
    onPage: (path: string) => void,
  ): Promise<JsonObject> {
    const client = await this.#deps.llm.create(job.orchestratorModel);
    const skills = new SkillLibrary(
      job.skillIds.map((id) => this.#deps.skill(id)).filter((s): s is SkillSummary => s !== undefined),
      this.#deps.skillsDir,
    );
    const vision = new VisionLocator(() => this.#deps.llm.create(job.visionModel), ctx);
    const resultCheck = new ResultCheck(ctx.outputSchema);
    const system = systemPrompt(ctx, secrets, skills.skills);
    const tools = [...AGENT_TOOLS.values()].map(({ name, description, inputSchema }) => ({
      name,
      description,
      inputSchema,
    }));
    const maxFailures = this.#deps.maxRepeatedFailures ?? 3;
    const maxIdle = this.#deps.maxIdleTurns ?? 5;
    const messages: LlmMessage[] = [];
    const failures = new Map<string, number>();
    let results: ToolResultBlock[] = [];
    let note = firstNote;
    let lastPrint = '';
    let idle = 0;
    let silent = 0;
    for (let turn = 1; ; turn += 1) {
      if (ctx.signal.aborted) throw ctx.signal.reason as Error;
      const state = await readPageState(ctx.page);
      onPage(new URL(state.url).pathname);
      const print = fingerprint(state);
      idle = print === lastPrint ? idle + 1 : 0;
      lastPrint = print;
      if (idle >= maxIdle) throw new AgentFailure(`no progress: the page did not change in ${maxIdle} turns`);
      dropOldImages(messages);
      messages.push({
        role: 'user',
        content: [
          ...results,
          { type: 'text', text: secrets.redact(turnText(turn, state, note)) },
          { type: 'image', mediaType: 'image/jpeg', data: await screenshotFor(ctx.page) },
        ],
      });
      note = undefined;
      const response = await client.complete({ system, messages, tools, maxTokens: 2048, signal: ctx.signal });
      ctx.reportUsage?.({
        model: client.modelId,
        ...response.usage,
        costUsd: costOfUsage(client.modelId, response.usage),
      });
      messages.push({ role: 'assistant', content: response.content });
      const calls = response.content.filter((b) => b.type === 'tool_use');
      results = [];
      if (calls.length === 0) {
        silent += 1;
        if (silent >= 2) throw new AgentFailure('the model stopped calling tools before finishing the task');
        note = 'Answer with tool calls only: continue the task, or call done / fail.';
        await ctx.recordStep(`turn ${turn}: no action`);
        continue;
      }
      silent = 0;
      const env = this.#env(ctx, state, secrets, recorder, skills, vision, resultCheck);
      let skipRest = false;
      const summary: string[] = [];
      for (const call of calls) {
        if (skipRest) {
          results.push({
            type: 'tool_result',
            toolUseId: call.id,
            content: 'skipped: an earlier action of this turn may have changed the page; look at the new listing',
            isError: true,
          });
          continue;
        }
        const tool = AGENT_TOOLS.get(call.name);
        const outcome: ToolResult = tool
          ? await this.#runTool(ctx, tool, call.input, env)
          : { output: `unknown tool '${call.name}'`, error: true };
        const signature = `${call.name} ${JSON.stringify(call.input)}`;
        if (outcome.error) {
          const count = (failures.get(signature) ?? 0) + 1;
          failures.set(signature, count);
          if (count >= maxFailures)
            throw new AgentFailure(
              secrets.redact(`the same action failed ${count} times: ${signature}: ${outcome.output}`),
            );
        }
        const output = secrets.redact(outcome.output);
        results.push({
          type: 'tool_result',
          toolUseId: call.id,
          content: output,
          ...(outcome.error && { isError: true }),
        });
        summary.push(secrets.redact(`${call.name}${outcome.error ? ' (failed)' : ''}`));
        ctx.log(secrets.redact(`${call.name} ${JSON.stringify(call.input)} → ${output}`).slice(0, 500));
        if (outcome.final) {
          await ctx.recordStep(`turn ${turn}: ${summary.join(', ')}`);
          if (outcome.final.kind === 'fail') throw new AgentFailure(outcome.final.message);
          return outcome.final.result;
        }
        if (tool?.changesPage) skipRest = true;
      }
      await ctx.recordStep(`turn ${turn}: ${summary.join(', ')}`);
    }
  }

  async #runTool(
    ctx: AgentContext,
    tool: AgentTool,
    input: Record<string, unknown>,
    env: ToolEnv,
  ): Promise<ToolResult> {
    try {
      return await tool.call(input, env);
    } catch (error) {
      // Aborts, the engine's own failures (max_turns, HITL off) end the run; page errors go back to the model.
      if (ctx.signal.aborted || error instanceof AgentFailure) throw error;
      if (!(error instanceof Error)) throw error;
      return {
        output: error instanceof ToolInputError ? error.message : (error.message.split('\n')[0] ?? 'failed'),
        error: true,
      };
    }
  }

  #env(
    ctx: AgentContext,
    state: PageState,
    secrets: SecretValues,
    trace: TraceRecorder,
    skills: SkillLibrary,
    vision: VisionLocator,
    resultCheck: ResultCheck,
  ): ToolEnv {
    return {
      page: ctx.page,
      ctx,
      state,
      secrets,
      trace,
      skills,
      vision,
      results: resultCheck,
      element(index) {
        const element = state.elements[index];
        if (!element) throw new ToolInputError(`no element [${index}] in the current listing`);
        return { element, locator: locateByIndex(state, element.index) };
      },
    };
  }
}
