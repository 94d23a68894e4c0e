import type { Page } from 'playwright-core';
import { maskedScreenshot } from '../../browser/pageScreenshot.ts';
import { costOfUsage, type LlmClient } from '../../llm/index.ts';
import { AgentFailure, type AgentContext, type ModelUsageReport } from '../agentTypes.ts';
import { locateByIndex, readPageState, describeElements } from '../model/pageState.ts';
import { TraceRecorder } from '../model/replay/traceRecorder.ts';
import { ResultCheck } from '../model/resultCheck.ts';
import { SecretValues, type ValueSource } from '../model/secretValues.ts';
import { SkillLibrary } from '../model/skillLibrary.ts';
import { AGENT_TOOLS, ToolInputError, type ToolEnv } from '../model/tools/index.ts';
import { VisionLocator } from '../model/visionLocator.ts';
import type { ActionOutcome, Variables } from './actionInterpreter.ts';
import { parseTemplate } from './actionTemplate.ts';
import type { StepRecipe } from './stepRecipe.ts';
import { identify, type TargetIdentity } from './targetIdentity.ts';

/** The agent tools one action may use: a single step on the page, no questions, no credentials, no skills. */
const ACTION_TOOLS = [
  'click',
  'type',
  'select',
  'check',
  'press_key',
  'scroll',
  'navigate',
  'extract',
  'fail',
] as const;

const SYSTEM = [
  "You are Portico's single-action runner. Perform exactly the one browser action the user asks for, on the current page, by calling exactly one tool.",
  'The page is a numbered list of interactive elements plus a screenshot; refer to elements by their [index].',
  'Variable values appear as placeholders such as {{form_data.email}}: pass them to type/select as-is; they are filled in locally.',
  'If the element the action names is not on the page, or more than one element fits equally well, call fail saying what was not found or what is ambiguous. Never act on a look-alike.',
].join('\n');

/** One model call's outcome: the action's outcome plus what the call used. */
export interface ModelActionOutcome extends ActionOutcome {
  usage: ModelUsageReport;
}

/** The action as the model reads it: `{{name}}` becomes `{{form_data.name}}`, the placeholder the agent tools resolve. */
function actionForModel(action: string): string {
  return parseTemplate(action)
    .map((p) => ('text' in p ? p.text : `{{form_data.${p.variable}}}`))
    .join('');
}

function valueTemplate(source: ValueSource | undefined): string | undefined {
  if (!source) return undefined;
  if (source.kind === 'form_data') return `{{${source.key}}}`;
  if (source.kind === 'literal' && !source.value.includes('{{')) return source.value;
  return undefined;
}

/** The cacheable recipe of the tool call the model made; undefined for calls that have none (extract of nothing, fail). */
function recipeOf(
  name: string,
  input: Record<string, unknown>,
  target: TargetIdentity | undefined,
  value: ValueSource | undefined,
): StepRecipe | undefined {
  const base = { version: 1 as const, ...(target && { target }) };
  switch (name) {
    case 'click':
      return target && { ...base, op: 'click' };
    case 'check':
      return target && { ...base, op: 'check', checked: input.checked !== false };
    case 'press_key':
      return typeof input.key === 'string' ? { ...base, op: 'press', key: input.key } : undefined;
    case 'scroll':
      return { version: 1, op: 'scroll', direction: input.direction === 'up' ? 'up' : 'down' };
    case 'extract':
      return { version: 1, op: 'extract' };
    case 'type':
    case 'select': {
      const text = valueTemplate(value);
      return target && text !== undefined ? { ...base, op: name === 'type' ? 'fill' : 'select', text } : undefined;
    }
    case 'navigate':
      return typeof input.url === 'string' && !input.url.includes('{{')
        ? { version: 1, op: 'goto', text: input.url }
        : undefined;
    default:
      return undefined;
  }
}

function actionContext(page: Page, action: string, variables: Variables, signal: AbortSignal): AgentContext {
  return {
    page,
    startUrl: page.url(),
    task: action,
    formData: { ...variables },
    formSchema: {},
    outputSchema: null,
    humanInTheLoop: false,
    isHumanized: () => false,
    signal,
    recordStep: async () => undefined,
    log: () => undefined,
    ask: () => Promise.reject(new AgentFailure('a single action cannot ask a question')),
  };
}

/**
 * Asks the model once: the page's element list and a screenshot in, one tool call out, run with the
 * agent's own tool. Variable values stay placeholders on the model's side.
 */
export async function runWithModel(
  client: LlmClient,
  page: Page,
  action: string,
  variables: Variables,
  signal: AbortSignal,
): Promise<ModelActionOutcome> {
  const ctx = actionContext(page, action, variables, signal);
  // Every variable counts as sensitive: its value is replaced by its placeholder wherever the page shows it.
  const writeOnly = {
    type: 'object',
    properties: Object.fromEntries(Object.keys(variables).map((k) => [k, { type: 'string', writeOnly: true }])),
  };
  const secrets = new SecretValues(undefined, ctx.formData, writeOnly);
  const state = await readPageState(page);
  const screenshot = (await maskedScreenshot(page, { type: 'jpeg', quality: 60 })).toString('base64');
  const text = [
    `Action: ${actionForModel(action)}`,
    `Variables: ${
      Object.keys(variables)
        .map((k) => `{{form_data.${k}}}`)
        .join(', ') || 'none'
    }`,
    `URL: ${state.url}`,
    `Title: ${state.title}`,
    'Interactive elements:',
    describeElements(state.elements) || '(none)',
    `Visible text: ${state.text}`,
  ].join('\n');
  const tools = ACTION_TOOLS.map((name) => AGENT_TOOLS.get(name))
    .filter((t) => t !== undefined)
    .map(({ name, description, inputSchema }) => ({ name, description, inputSchema }));
  const response = await client.complete({
    system: SYSTEM,
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: secrets.redact(text) },
          { type: 'image', mediaType: 'image/jpeg', data: screenshot },
        ],
      },
    ],
    tools,
    maxTokens: 1024,
    signal,
  });
  const usage: ModelUsageReport = {
    model: client.modelId,
    ...response.usage,
    costUsd: costOfUsage(client.modelId, response.usage),
  };
  const call = response.content.find((b) => b.type === 'tool_use');
  const tool = call && (ACTION_TOOLS as readonly string[]).includes(call.name) ? AGENT_TOOLS.get(call.name) : undefined;
  if (!call || !tool) return { success: false, error: 'The model did not choose an action for this page', usage };

  const index = call.input.index;
  let target: TargetIdentity | undefined;
  if (typeof index === 'number' && state.elements[index])
    target = await identify(locateByIndex(state, index)).catch(() => undefined);
  const trace = new TraceRecorder(() => new URL(state.url).pathname);
  const env: ToolEnv = {
    page,
    ctx,
    state,
    secrets,
    trace,
    skills: new SkillLibrary([], ''),
    results: new ResultCheck(null),
    vision: new VisionLocator(() => Promise.reject(new Error('no vision model for single actions')), ctx),
    element(i) {
      const element = state.elements[i];
      if (!element) throw new ToolInputError(`no element [${i}] in the current listing`);
      return { element, locator: locateByIndex(state, element.index) };
    },
  };
  try {
    const outcome = await tool.call(call.input, env);
    if (outcome.final?.kind === 'fail') return { success: false, error: outcome.final.message, usage };
    if (outcome.error) return { success: false, error: secrets.redact(outcome.output), usage };
    const recipe = recipeOf(call.name, call.input, target, trace.steps[0]?.value);
    const result =
      call.name === 'extract'
        ? secrets.redact(outcome.output)
        : `${secrets.redact(outcome.output)} (chosen by ${client.modelId})`;
    return { success: true, result, ...(recipe && { recipe }), usage };
  } catch (error) {
    if (signal.aborted || !(error instanceof Error)) throw error;
    return { success: false, error: secrets.redact(error.message.split('\n')[0] ?? 'the action failed'), usage };
  }
}
