import { z } from 'zod';
import { defineModelTool, type ModelTool, type ToolSpec } from '../base/modelTool.ts';
import { FINAL_JOB_STATUSES, JobStartRequest, type JobStatusResponse, type QuestionData } from '../contract/job.ts';
import { EndpointName } from '../contract/portal.ts';
import { SessionCreateRequest } from '../contract/session.ts';
import { SingleActionRequest } from '../contract/singleAction.ts';
import { isUnreachable, PorticoHttpError, serviceNotRunning, type PorticoApi } from './porticoApi.ts';

/** Who the API key speaks for: an org key gets the portal/job tools, an account key the session/action/credential tools. */
export type McpIdentity = { kind: 'org'; orgId: string } | { kind: 'account' };

/** One piece of a tool's answer, as MCP carries it. */
export type ToolContent = { type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string };

/** A tool's answer; `isError` marks a failure the model should read (never a protocol error). */
export interface ToolResult {
  [key: string]: unknown;
  content: ToolContent[];
  isError?: boolean;
}

/** What a tool call may use besides its arguments. */
export interface ToolContext {
  api: PorticoApi;
  identity: McpIdentity;
  /** Sends an MCP progress notification when the client asked for them (a no-op otherwise). */
  progress(message: string): Promise<void>;
  signal: AbortSignal;
  /** The service's base URL, for error texts. */
  serviceUrl: string;
}

/** One MCP tool: a `ModelTool` (one zod input shape → JSON Schema, validation, typed handler) and who gets it. */
export interface PorticoTool extends ModelTool<ToolContext, ToolResult> {
  audience: McpIdentity['kind'];
}

function defineTool<Shape extends z.ZodRawShape>(
  spec: ToolSpec<Shape, ToolContext, ToolResult> & { audience: McpIdentity['kind'] },
): PorticoTool {
  return { ...defineModelTool(spec), audience: spec.audience };
}

const json = (value: unknown): ToolResult => ({ content: [{ type: 'text', text: JSON.stringify(value, null, 2) }] });

/** A failure as the model should read it: the service's `{detail}` with its status, or why the service could not be reached. */
export function toolError(error: unknown, serviceUrl: string): ToolResult {
  let text: string;
  if (isUnreachable(error)) text = serviceNotRunning(serviceUrl);
  else if (error instanceof PorticoHttpError) text = `Portico answered ${error.status}: ${error.detail}`;
  else text = error instanceof Error ? error.message : String(error);
  return { content: [{ type: 'text', text }], isError: true };
}

const orgOf = (ctx: ToolContext): string => {
  if (ctx.identity.kind !== 'org') throw new Error('This tool needs an organization API key');
  return ctx.identity.orgId;
};

/** The question a job waits on: the last `question` event, when the job is waiting for input. */
export function pendingQuestion(status: JobStatusResponse): QuestionData | null {
  if (status.status !== 'waiting_for_input') return null;
  for (let i = status.events.length - 1; i >= 0; i--) {
    const event = status.events[i];
    if (event?.type === 'question') return event.data;
  }
  return null;
}

/** A job's status cut down to what a model acts on: no event log, no page content. */
function jobOutcome(endpointName: string, status: JobStatusResponse): Record<string, unknown> {
  const outcome: Record<string, unknown> = {
    job_id: status.job_id,
    endpoint_name: endpointName,
    status: status.status,
    result: status.result,
    error: status.error,
    steps: status.steps,
    credits: status.credits,
  };
  const question = pendingQuestion(status);
  if (question) {
    outcome.question = question;
    outcome.next =
      'Ask the user (or decide from what you know), then call answer_question with this job_id and the answer';
    if (status.browser_url) outcome.browser_url = status.browser_url;
  }
  return outcome;
}

/** A line for each event the client has not seen yet. */
function eventLine(event: JobStatusResponse['events'][number]): string | null {
  switch (event.type) {
    case 'step':
      return `Step ${event.data.step}: ${event.data.description}`;
    case 'question':
      return `Question: ${event.data.question}`;
    case 'answer':
      return 'Answer received; the job continues';
    case 'agent_mode':
      return `Agent: ${event.data.mode}`;
    case 'extraction':
      return `Read form_data from document bundle (missing: ${event.data.missing.join(', ') || 'none'})`;
    default:
      return null;
  }
}

/**
 * Waits until the job ends or asks a question other than `answeredQuestionId`, sending a progress note for each
 * status change and new event; answers the job's outcome.
 */
async function waitForJob(
  ctx: ToolContext,
  orgId: string,
  endpointName: string,
  jobId: string,
  answeredQuestionId?: string,
): Promise<ToolResult> {
  let seenEvents = -1;
  let lastStatus = '';
  let settled: JobStatusResponse | undefined;
  await ctx.api.followJob(
    orgId,
    endpointName,
    jobId,
    async (status) => {
      // The events already there when we start were the caller's doing (its start or answer): only newer ones are news.
      if (seenEvents === -1) seenEvents = status.events.length;
      for (const event of status.events.slice(seenEvents)) {
        const line = eventLine(event);
        if (line) await ctx.progress(line);
      }
      seenEvents = status.events.length;
      if (status.status !== lastStatus) {
        lastStatus = status.status;
        await ctx.progress(`Status: ${status.status}`);
      }
      const question = pendingQuestion(status);
      const asking = question !== null && question.question_id !== answeredQuestionId;
      if (asking || FINAL_JOB_STATUSES.includes(status.status)) {
        settled = status;
        return true;
      }
      return false;
    },
    ctx.signal,
  );
  const final =
    settled ??
    (await ctx.api.call('getJobStatus', {
      params: { org_id: orgId, endpoint_name: endpointName },
      query: { job_id: jobId },
    }));
  return json(jobOutcome(endpointName, final));
}

const endpointName = EndpointName.describe("The portal's endpoint_name (from list_portals)");
const jobId = z.uuid().describe('The job_id run_job returned');
const startFields = JobStartRequest.shape;

/** Every tool, for both transports. */
export const porticoTools: readonly PorticoTool[] = [
  defineTool({
    name: 'list_portals',
    audience: 'org',
    description:
      'List the portals (saved web forms/errands) this organization can run, with the form_data each expects (its form_schema). Call this before run_job.',
    input: {},
    async run(_args, ctx) {
      const portals = await ctx.api.call('listPortals', { params: { org_id: orgOf(ctx) } });
      return json({
        portals: portals.map((portal) => ({
          endpoint_name: portal.endpoint_name,
          start_url: portal.start_url,
          task: portal.task.length > 300 ? `${portal.task.slice(0, 300)}…` : portal.task,
          form_schema: portal.form_schema,
        })),
      });
    },
  }),
  defineTool({
    name: 'run_job',
    audience: 'org',
    description:
      'Run a portal: a local browser opens its start_url and fills and submits the form from form_data (or a document bundle). Waits until the job ends or asks a question; returns status, result or error, and on a question the question text, options and job_id (answer it with answer_question). Sends a progress note per step.',
    input: {
      endpoint_name: endpointName,
      form_data: startFields.form_data.describe("The values to fill in, keyed as the portal's form_schema"),
      document_bundle_id: startFields.document_bundle_id.describe(
        'Read form_data from this uploaded document bundle instead',
      ),
      human_in_the_loop: z
        .boolean()
        .default(true)
        .describe('Ask a question when data is missing or ambiguous (default true); false fails the job instead'),
      orchestrator_model: startFields.orchestrator_model.describe(
        "provider:model to drive the browser; default the portal's (builtin:autofill needs no model)",
      ),
      max_turns: startFields.max_turns,
      timeout_minutes: startFields.timeout_minutes,
      profile_id: startFields.profile_id.describe('A saved browser profile (signed-in state) to run in'),
      credential_id: startFields.credential_id.describe(
        'Sign in with this stored credential; its secrets never reach you',
      ),
      replay: startFields.replay,
    },
    async run(args, ctx) {
      const orgId = orgOf(ctx);
      const { endpoint_name, ...body } = args;
      const started = await ctx.api.call('startJob', { params: { org_id: orgId, endpoint_name }, body });
      await ctx.progress(`Job ${started.job_id} started`);
      return waitForJob(ctx, orgId, endpoint_name, started.job_id);
    },
  }),
  defineTool({
    name: 'get_job',
    audience: 'org',
    description:
      "Get a job's status, result or error, its pending question if it waits for one, and its last steps. include_screenshot adds the latest step screenshot as an image.",
    input: {
      endpoint_name: endpointName,
      job_id: jobId,
      include_screenshot: z.boolean().default(false).describe('Add the latest step screenshot (PNG)'),
    },
    async run(args, ctx) {
      const orgId = orgOf(ctx);
      const status = await ctx.api.call('getJobStatus', {
        params: { org_id: orgId, endpoint_name: args.endpoint_name },
        query: { job_id: args.job_id },
      });
      const steps = status.events.flatMap((event) => (event.type === 'step' ? [event.data.description] : []));
      const result = json({
        ...jobOutcome(args.endpoint_name, status),
        last_steps: steps.slice(-5),
        created_at: status.created_at,
        completed_at: status.completed_at,
      });
      if (args.include_screenshot) {
        const png =
          steps.length > 0
            ? await ctx.api.jobScreenshot(orgId, args.endpoint_name, args.job_id, steps.length - 1)
            : null;
        if (png)
          result.content.push({ type: 'image', data: Buffer.from(png).toString('base64'), mimeType: 'image/png' });
        else result.content.push({ type: 'text', text: 'No screenshot is available for this job yet' });
      }
      return result;
    },
  }),
  defineTool({
    name: 'answer_question',
    audience: 'org',
    description:
      'Answer the question a job is waiting on, then wait (like run_job) until it ends or asks again. question_id defaults to the pending question.',
    input: {
      endpoint_name: endpointName,
      job_id: jobId,
      answer: z.string().min(1).max(100_000).describe('The answer; for a question with options, one of them'),
      question_id: z.uuid().optional().describe('The question being answered (default: the one pending)'),
      wait: z.boolean().default(true).describe('Wait until the job ends or asks again (default true)'),
    },
    async run(args, ctx) {
      const orgId = orgOf(ctx);
      const params = { org_id: orgId, endpoint_name: args.endpoint_name };
      let questionId = args.question_id;
      if (questionId === undefined) {
        const status = await ctx.api.call('getJobStatus', { params, query: { job_id: args.job_id } });
        const pending = pendingQuestion(status);
        if (!pending)
          return {
            content: [
              { type: 'text', text: `Job ${args.job_id} is not waiting for an answer (status: ${status.status})` },
            ],
            isError: true,
          };
        questionId = pending.question_id;
      }
      const answered = await ctx.api.call('answerJob', {
        params,
        query: { job_id: args.job_id },
        body: { question_id: questionId, answer: args.answer },
      });
      if (!args.wait) return json(answered);
      return waitForJob(ctx, orgId, args.endpoint_name, args.job_id, questionId);
    },
  }),
  defineTool({
    name: 'cancel_job',
    audience: 'org',
    description: 'Cancel a queued, running or waiting job.',
    input: { endpoint_name: endpointName, job_id: jobId },
    async run(args, ctx) {
      return json(
        await ctx.api.call('cancelJob', {
          params: { org_id: orgOf(ctx), endpoint_name: args.endpoint_name },
          query: { job_id: args.job_id },
        }),
      );
    },
  }),
  defineTool({
    name: 'create_session',
    audience: 'account',
    description:
      'Open a browser session (its own local browser) for run_action. Returns session_id and live_url, a page where the user can watch it. End it with terminate_session.',
    input: {
      timeout_minutes: SessionCreateRequest.shape.timeout_minutes,
      profile_id: SessionCreateRequest.shape.profile_id,
      screen_config: SessionCreateRequest.shape.screen_config
        .optional()
        .describe('Viewport in CSS pixels; default 1280x800'),
    },
    async run(args, ctx) {
      const session = await ctx.api.call('createSession', { body: args });
      return json({
        session_id: session.session_id,
        status: session.status,
        live_url: session.live_url,
        expires_at: session.expires_at,
      });
    },
  }),
  defineTool({
    name: 'run_action',
    audience: 'account',
    description:
      'Run one plain-English browser action in a session: "go to <url>", "click Sign in", "type {{email}} into Email", "select X from Country", "check Terms", "press Enter", "extract the text of Total". Steps are cached (per id, else action and page): a repeat replays without a model. Put secrets in variables, never in the action text.',
    input: {
      session_id: SingleActionRequest.shape.session_id.describe('From create_session'),
      action: SingleActionRequest.shape.action,
      id: SingleActionRequest.shape.id,
      variables: SingleActionRequest.shape.variables,
      set_cache: SingleActionRequest.shape.set_cache,
    },
    async run(args, ctx) {
      return json(await ctx.api.runAction(args));
    },
  }),
  defineTool({
    name: 'terminate_session',
    audience: 'account',
    description: 'End a browser session: its browser closes.',
    input: { session_id: z.string().min(1).max(128).describe('From create_session') },
    async run(args, ctx) {
      const session = await ctx.api.call('terminateSession', { params: { session_id: args.session_id } });
      return json({ session_id: session.session_id, status: session.status });
    },
  }),
  defineTool({
    name: 'list_credentials',
    audience: 'account',
    description:
      "List the stored sign-in credentials by name and id (never a secret). Pass an id as run_job's credential_id.",
    input: {},
    async run(_args, ctx) {
      const credentials = await ctx.api.call('listCredentials');
      return json({
        credentials: credentials.map((credential) => ({ id: credential.id, service_name: credential.service_name })),
      });
    },
  }),
];

/** The tools a key of this kind gets. */
export const toolsFor = (kind: McpIdentity['kind']): readonly PorticoTool[] =>
  porticoTools.filter((tool) => tool.audience === kind);
