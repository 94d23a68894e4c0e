import { z } from 'zod';
import { JsonObject, Timestamp, Uuid } from './common.ts';
import { EndpointName } from './portal.ts';
import { MAX_ACTION_LENGTH } from './singleAction.ts';
import { safeName } from './names.ts';

/** Limits of a workflow definition and a run (docs/api.md, Workflows). */
export const WORKFLOW_LIMITS = {
  steps: 50,
  nameLength: 200,
  variables: 100,
  variableName: 100,
  variableValue: 10_000,
  /** JSON bytes of one portal step's form_data. */
  formDataBytes: 64 * 1024,
  /** Nesting of objects and arrays inside a portal step's form_data. */
  formDataDepth: 16,
  /** JSON bytes of the whole definition (steps and parameters). */
  definitionBytes: 512 * 1024,
} as const;

/** Exact texts of workflow failures (interface §7 where it gives them). */
export const workflowMessages = {
  notFound: 'Workflow not found',
  executionNotFound: 'Execution not found',
  notAMember: (userId: string) => `User ${userId} is not a member of the workflow's workspace`,
  executionsFailed: (message: string) => `Error getting workflow executions: ${message}`,
  notResumable: (status: string) => `Only a failed execution can be resumed (status: ${status})`,
  sessionEnded: (status: string) => `The session of this execution has ended (${status}); start a new run instead`,
  stoppedByRestart: 'The service stopped while this execution was running',
} as const;

const VariableName = z
  .string()
  .min(1)
  .max(WORKFLOW_LIMITS.variableName)
  .regex(
    /^[A-Za-z_][A-Za-z0-9_.-]*$/,
    'must start with a letter or "_" and hold only letters, digits, "_", "." or "-"',
  );
const VariableValue = z.union([z.string().max(WORKFLOW_LIMITS.variableValue), z.number(), z.boolean()]);

/** name → value; at most WORKFLOW_LIMITS.variables entries. */
export const WorkflowVariables = z
  .record(VariableName, VariableValue)
  .refine(
    (v) => Object.keys(v).length <= WORKFLOW_LIMITS.variables,
    `must have at most ${WORKFLOW_LIMITS.variables} entries`,
  );
export type WorkflowVariables = z.infer<typeof WorkflowVariables>;

/** Depth of nested objects and arrays, walked without recursion (a hostile body cannot exhaust the stack). */
export function jsonDepth(value: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (node === null || typeof node !== 'object') continue;
    deepest = Math.max(deepest, depth + 1);
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** A single action (interface §4.5), `{{variables}}` from the run and its own `variables`. */
export const WorkflowActionStep = z.strictObject({
  action: z
    .string()
    .trim()
    .min(1)
    .max(MAX_ACTION_LENGTH)
    .describe('Plain imperative English, as a single action; may contain {{variable_name}} references'),
  variables: WorkflowVariables.optional().describe("This step's own values; they win over the run's"),
});

/** A portal job of the workspace's organization, run inside the workflow's session. */
export const WorkflowPortalStep = z.strictObject({
  portal: EndpointName.describe("endpoint_name of a portal of the workspace's organization"),
  form_data: JsonObject.superRefine((value, ctx) => {
    // Depth first: serializing a hostile, deeply nested value would exhaust the stack.
    if (jsonDepth(value) > WORKFLOW_LIMITS.formDataDepth)
      ctx.addIssue({ code: 'custom', message: `must nest at most ${WORKFLOW_LIMITS.formDataDepth} levels` });
    else if (new TextEncoder().encode(JSON.stringify(value)).length > WORKFLOW_LIMITS.formDataBytes)
      ctx.addIssue({ code: 'custom', message: `must be at most ${WORKFLOW_LIMITS.formDataBytes} bytes of JSON` });
  }).describe('The job\'s form_data; a string value that is exactly "{{name}}" (or contains it) takes the variable'),
});

export const WorkflowStep = z.union([WorkflowActionStep, WorkflowPortalStep], {
  error: 'must be either {action, variables?} or {portal, form_data}',
});
export type WorkflowStep = z.infer<typeof WorkflowStep>;

/** POST /public/workflows (local-service.md §5.5). */
export const WorkflowCreateRequest = z.strictObject({
  name: safeName(z.string().trim().min(1).max(WORKFLOW_LIMITS.nameLength)),
  steps: z.array(WorkflowStep).min(1).max(WORKFLOW_LIMITS.steps),
  parameters: z
    .record(VariableName, VariableValue.nullable())
    .refine(
      (v) => Object.keys(v).length <= WORKFLOW_LIMITS.variables,
      `must have at most ${WORKFLOW_LIMITS.variables} entries`,
    )
    .optional()
    .describe('The variables a run may give: name → default value, or null for one every run must give'),
});
export type WorkflowCreateRequest = z.infer<typeof WorkflowCreateRequest>;

export const Workflow = z.object({
  id: z.string(),
  name: z.string(),
  workspace_id: z.string(),
  steps: z.array(WorkflowStep),
  parameters: z.record(z.string(), VariableValue.nullable()),
  created_at: Timestamp,
});
export type Workflow = z.infer<typeof Workflow>;

export const WorkflowList = z.object({ workflows: z.array(Workflow) });
export type WorkflowList = z.infer<typeof WorkflowList>;

export const WorkflowParams = z.object({ workflow_id: Uuid });
export const ExecutionParams = z.object({ workflow_id: Uuid, execution_id: Uuid });
export const StepScreenshotParams = z.object({
  workflow_id: Uuid,
  execution_id: Uuid,
  index: z.coerce
    .number()
    .int()
    .min(0)
    .max(WORKFLOW_LIMITS.steps - 1),
});

/** POST /public/workflows/{workflow_id}/run. */
export const WorkflowRunRequest = z.strictObject({
  session_id: Uuid.optional().describe(
    'Run in this live session of the workspace; without it a session is created and terminated at the end',
  ),
  variables: WorkflowVariables.default({}).describe('Values for {{name}} references; never stored'),
});
export type WorkflowRunRequest = z.infer<typeof WorkflowRunRequest>;

/** POST …/executions/{execution_id}/resume: values to give again (they are kept in memory only while the session lives). */
export const WorkflowResumeRequest = z.strictObject({
  variables: WorkflowVariables.optional(),
});
export type WorkflowResumeRequest = z.infer<typeof WorkflowResumeRequest>;

export const ExecutionStatus = z.enum(['running', 'completed', 'failed']);
export type ExecutionStatus = z.infer<typeof ExecutionStatus>;

/** A workflow execution (interface §2.8) plus the session it runs in and why it failed. */
export const WorkflowExecution = z.object({
  id: z.string(),
  name: z.string().describe("The workflow's name"),
  workflow_id: z.string(),
  status: ExecutionStatus,
  created_at: Timestamp,
  completed_at: Timestamp.nullable().describe('null while running or if failed'),
  session_id: z.string().nullable().describe('The session the steps run in (Portico addition)'),
  error: z.string().nullable().describe('Why the execution failed (Portico addition)'),
});
export type WorkflowExecution = z.infer<typeof WorkflowExecution>;

export const WorkflowExecutionList = z.object({ executions: z.array(WorkflowExecution) });
export type WorkflowExecutionList = z.infer<typeof WorkflowExecutionList>;

/** One step of an execution's journal; a step not run yet has nulls. */
export const ExecutionStep = z.object({
  index: z.int(),
  action: z.string().describe('The action as written, or "run portal <endpoint_name>"'),
  success: z.boolean().nullable(),
  result: z.string().nullable(),
  error: z.string().nullable(),
  used_cache: z.boolean(),
  started_at: Timestamp.nullable(),
  completed_at: Timestamp.nullable(),
  job_id: z.string().nullable().describe('The portal job of a portal step (Portico addition)'),
  screenshot_url: z.string().nullable().describe('The page after the step, as image/png (Portico addition)'),
});
export type ExecutionStep = z.infer<typeof ExecutionStep>;

export const WorkflowExecutionDetail = WorkflowExecution.extend({ steps: z.array(ExecutionStep) });
export type WorkflowExecutionDetail = z.infer<typeof WorkflowExecutionDetail>;
