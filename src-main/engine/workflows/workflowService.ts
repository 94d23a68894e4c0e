import { mkdir } from 'node:fs/promises';
import { redactUrlsIn } from '../../base/urlRedaction.ts';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { systemClock, type Clock, type TimerHandle } from '../../base/clock.ts';
import type { Disposable } from '../../base/emitter.ts';
import {
  ConflictError,
  ForbiddenError,
  InternalError,
  isAppError,
  NotFoundError,
  ValidationError,
} from '../../base/errors.ts';
import { newId } from '../../base/ids.ts';
import { silentLogger, type Logger } from '../../base/logger.ts';
import { fullPageScreenshot } from '../../browser/pageScreenshot.ts';
import { FINAL_JOB_STATUSES, type JobStartRequest } from '../../contract/job.ts';
import { messages } from '../../contract/messages.ts';
import { SessionCreateRequest } from '../../contract/session.ts';
import type { SingleActionRequest, SingleActionResponse } from '../../contract/singleAction.ts';
import {
  WORKFLOW_LIMITS,
  WorkflowStep,
  workflowMessages,
  type ExecutionStep,
  type Workflow,
  type WorkflowCreateRequest,
  type WorkflowExecution,
  type WorkflowExecutionDetail,
  type WorkflowExecutionList,
  type WorkflowList,
  type WorkflowResumeRequest,
  type WorkflowRunRequest,
} from '../../contract/workflow.ts';
import type { JobRecord } from '../../store/jobs.ts';
import type {
  ExecutionRow,
  ExecutionStepRow,
  StepOutcome,
  WorkflowRepository,
  WorkflowRow,
} from '../../store/workflows.ts';
import { fillFormData, runVariables, stepVariables } from './workflowVariables.ts';

type Value = string | number | boolean;

/** Who acts: an account key's user in its workspace. */
export interface WorkflowActor {
  userId: string;
  workspaceId: string;
  orgId: string;
}

export interface WorkflowServiceDeps {
  workflows: WorkflowRepository;
  principals: {
    isMember(workspaceId: string, userId: string): boolean;
    workspaceOrg(workspaceId: string): string | undefined;
  };
  portals: { exists(orgId: string, endpointName: string): boolean };
  sessions: {
    create(actor: WorkflowActor, request: SessionCreateRequest, origin: string): Promise<{ session_id: string }>;
    terminate(workspaceId: string, sessionId: string, origin: string): Promise<unknown>;
    isActive(sessionId: string, workspaceId: string): boolean;
    pageFor(sessionId: string, workspaceId: string): Promise<Page>;
  };
  actions: { run(workspaceId: string, request: SingleActionRequest): Promise<SingleActionResponse> };
  jobs: {
    start(orgId: string, endpointName: string, request: JobStartRequest): Promise<{ job_id: string }>;
    get(jobId: string): JobRecord | undefined;
    onDidChangeStatus(listener: (job: JobRecord) => void): Disposable;
  };
  /** Where step screenshots go (`<dir>/<execution_id>/step_<index>.png`). */
  screenshotsDir: string;
  clock?: Clock;
  logger?: Logger;
  /** How long a failed run keeps the session it created, for resume (default 10 minutes). */
  resumeWindowMs?: number;
}

/** What a run needs in memory while its session lives: the values (never stored) and who ran it. */
interface RunState {
  readonly executionId: string;
  readonly workflow: WorkflowRow;
  readonly steps: readonly WorkflowStep[];
  readonly actor: WorkflowActor;
  readonly sessionId: string;
  readonly ownsSession: boolean;
  readonly origin: string;
  variables: Record<string, Value>;
  resumeTimer?: TimerHandle | undefined;
}

const DEFAULT_RESUME_WINDOW_MS = 10 * 60_000;

const describeStep = (step: WorkflowStep): string => ('action' in step ? step.action : `run portal ${step.portal}`);

/** The detail of a failure a step hit, as a person reads it. */
function failureText(error: unknown): string {
  if (isAppError(error)) return error.detail;
  return error instanceof Error ? error.message : String(error);
}

/**
 * Workflows of the public API (local-service.md §5.5): named step lists of a workspace, run in a
 * session one step at a time (single actions cached under `<workflow_id>:<index>`, or portal jobs in
 * that session), each step journaled with its times, outcome and a screenshot.
 */
export class WorkflowService {
  readonly #deps: WorkflowServiceDeps;
  readonly #clock: Clock;
  readonly #logger: Logger;
  /** Runs whose session may still be used: running ones, and failed ones that can be resumed. */
  readonly #runs = new Map<string, RunState>();
  /** Sessions a running execution is stepping through: one execution per session at a time. */
  readonly #busySessions = new Set<string>();
  readonly #inFlight = new Set<Promise<void>>();
  #closed = false;

  constructor(deps: WorkflowServiceDeps) {
    this.#deps = deps;
    this.#clock = deps.clock ?? systemClock;
    this.#logger = deps.logger ?? silentLogger;
  }

  /** At start-up: executions the previous run left running lost their session with it. */
  recover(): number {
    return this.#deps.workflows.failAllRunning(workflowMessages.stoppedByRestart, this.#now());
  }

  create(actor: WorkflowActor, request: WorkflowCreateRequest): Workflow {
    const parameters = request.parameters ?? {};
    if (Buffer.byteLength(JSON.stringify({ steps: request.steps, parameters })) > WORKFLOW_LIMITS.definitionBytes) {
      throw new ValidationError(
        `body: steps and parameters must be at most ${WORKFLOW_LIMITS.definitionBytes} bytes of JSON`,
      );
    }
    const orgId = this.#orgOf(actor.workspaceId);
    request.steps.forEach((step, index) => {
      const names = stepVariables(step, index);
      if (request.parameters !== undefined) {
        const undeclared = names.find((name) => !Object.hasOwn(parameters, name));
        if (undeclared !== undefined)
          throw new ValidationError(`body.steps[${index}]: variable '${undeclared}' is not declared in parameters`);
      }
      if ('portal' in step && !this.#deps.portals.exists(orgId, step.portal)) {
        throw new ValidationError(`body.steps[${index}].portal: no portal '${step.portal}' in organization '${orgId}'`);
      }
    });
    const row: WorkflowRow = {
      id: newId(),
      workspace_id: actor.workspaceId,
      created_by: actor.userId,
      name: request.name,
      steps_json: JSON.stringify(request.steps),
      parameters_json: JSON.stringify(parameters),
      created_at: this.#now(),
    };
    this.#deps.workflows.insert(row);
    return this.#toWorkflow(row);
  }

  list(workspaceId: string): WorkflowList {
    return { workflows: this.#deps.workflows.list(workspaceId).map((row) => this.#toWorkflow(row)) };
  }

  /** Starts a run; it goes on after the answer (status `running`). */
  async run(
    actor: WorkflowActor,
    workflowId: string,
    request: WorkflowRunRequest,
    origin: string,
  ): Promise<WorkflowExecution> {
    if (this.#closed) throw new ConflictError('The service is shutting down');
    const workflow = this.#workflow(actor.workspaceId, workflowId);
    const steps = this.#stepsOf(workflow);
    const variables = runVariables(steps, this.#parametersOf(workflow), request.variables);
    let sessionId = request.session_id;
    if (sessionId !== undefined) {
      if (!this.#deps.sessions.isActive(sessionId, actor.workspaceId))
        throw new NotFoundError(messages.sessionNotFound);
      if (this.#busySessions.has(sessionId))
        throw new ConflictError('This session is running another workflow execution');
    } else {
      sessionId = (await this.#deps.sessions.create(actor, SessionCreateRequest.parse({}), origin)).session_id;
    }
    const now = this.#now();
    const row: ExecutionRow = {
      id: newId(),
      workflow_id: workflow.id,
      workspace_id: actor.workspaceId,
      created_by: actor.userId,
      status: 'running',
      session_id: sessionId,
      owns_session: request.session_id === undefined ? 1 : 0,
      error: null,
      created_at: now,
      updated_at: now,
      completed_at: null,
    };
    try {
      this.#deps.workflows.insertExecution(row, steps.map(describeStep));
    } catch (error) {
      if (row.owns_session)
        await this.#deps.sessions.terminate(actor.workspaceId, sessionId, origin).catch(() => undefined);
      throw error;
    }
    const state: RunState = {
      executionId: row.id,
      workflow,
      steps,
      actor,
      sessionId,
      ownsSession: row.owns_session === 1,
      origin,
      variables,
    };
    this.#pruneEnded();
    this.#runs.set(row.id, state);
    this.#start(state, 0);
    return this.#toExecution(row, workflow.name);
  }

  /** Re-runs a failed execution from its first failed step, in the same session while it lives. */
  resume(
    actor: WorkflowActor,
    workflowId: string,
    executionId: string,
    request: WorkflowResumeRequest,
  ): WorkflowExecution {
    if (this.#closed) throw new ConflictError('The service is shutting down');
    const workflow = this.#workflow(actor.workspaceId, workflowId);
    const execution = this.#execution(workflow, executionId);
    if (execution.status !== 'failed') throw new ConflictError(workflowMessages.notResumable(execution.status));
    const state = this.#runs.get(execution.id);
    if (
      !state ||
      execution.session_id === null ||
      !this.#deps.sessions.isActive(execution.session_id, actor.workspaceId)
    ) {
      this.#forget(execution.id);
      throw new ConflictError(
        workflowMessages.sessionEnded(execution.session_id === null ? 'none' : 'terminated or expired'),
      );
    }
    if (this.#busySessions.has(state.sessionId))
      throw new ConflictError('This session is running another workflow execution');
    const journal = this.#deps.workflows.steps(execution.id);
    const from = journal.find((step) => step.success !== 1)?.step_index ?? 0;
    if (request.variables) state.variables = { ...state.variables, ...request.variables };
    this.#clock.clearTimeout(state.resumeTimer);
    state.resumeTimer = undefined;
    if (!this.#deps.workflows.resume(execution.id, from, this.#now()))
      throw new ConflictError(workflowMessages.notResumable('running'));
    this.#start(state, from);
    return this.#toExecution(this.#deps.workflows.getExecution(execution.id) ?? execution, workflow.name);
  }

  /** All executions of a workflow, most recent first (interface §4.7): members of its workspace only. */
  executions(actor: WorkflowActor & { member: boolean }, workflowId: string): WorkflowExecutionList {
    try {
      // A key whose user left its workspace learns nothing, not even whether the workflow exists.
      if (!actor.member) throw new ForbiddenError(workflowMessages.notAMember(actor.userId));
      const workflow = this.#deps.workflows.get(workflowId);
      if (!workflow) throw new NotFoundError(workflowMessages.notFound);
      // Read now, not from the key: a member removed since the key was made is refused too.
      if (!this.#deps.principals.isMember(workflow.workspace_id, actor.userId)) {
        throw new ForbiddenError(workflowMessages.notAMember(actor.userId));
      }
      return {
        executions: this.#deps.workflows.executions(workflow.id).map((row) => this.#toExecution(row, workflow.name)),
      };
    } catch (error) {
      if (isAppError(error)) throw error;
      throw new InternalError(workflowMessages.executionsFailed(failureText(error)), { cause: error });
    }
  }

  /** One execution with its step journal; `origin` makes the screenshot URLs. */
  execution(workspaceId: string, workflowId: string, executionId: string, origin: string): WorkflowExecutionDetail {
    const workflow = this.#workflow(workspaceId, workflowId);
    const execution = this.#execution(workflow, executionId);
    const base = `${origin}/public/workflows/${workflow.id}/executions/${execution.id}/steps`;
    return {
      ...this.#toExecution(execution, workflow.name),
      steps: this.#deps.workflows.steps(execution.id).map((step) => this.#toStep(step, base)),
    };
  }

  /** The PNG of a step's page after it ran; 404 when the step has none (yet). */
  screenshot(workspaceId: string, workflowId: string, executionId: string, index: number): string {
    const execution = this.#execution(this.#workflow(workspaceId, workflowId), executionId);
    const step = this.#deps.workflows.steps(execution.id).find((s) => s.step_index === index);
    if (!step?.has_screenshot) throw new NotFoundError('This step has no screenshot');
    return this.#screenshotPath(execution.id, index);
  }

  /** At shutdown: no new runs; the ones in flight end as their sessions close. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const state of this.#runs.values()) this.#clock.clearTimeout(state.resumeTimer);
    await Promise.allSettled([...this.#inFlight]);
    this.#runs.clear();
  }

  #start(state: RunState, from: number): void {
    this.#busySessions.add(state.sessionId);
    const work = this.#execute(state, from)
      .catch((error: unknown) => {
        this.#logger.error('workflow execution crashed', { execution_id: state.executionId, error: String(error) });
        this.#deps.workflows.finish(state.executionId, 'failed', `Internal error: ${failureText(error)}`, this.#now());
      })
      .finally(() => {
        this.#busySessions.delete(state.sessionId);
        this.#inFlight.delete(work);
      });
    this.#inFlight.add(work);
  }

  async #execute(state: RunState, from: number): Promise<void> {
    for (let index = from; index < state.steps.length; index += 1) {
      const step = state.steps[index] as WorkflowStep;
      this.#deps.workflows.stepStarted(state.executionId, index, this.#now());
      const outcome = await this.#runStep(state, step, index);
      const completedAt = this.#now();
      const hasScreenshot = await this.#takeScreenshot(state, index);
      this.#deps.workflows.stepFinished(state.executionId, index, { ...outcome, completedAt, hasScreenshot });
      if (!outcome.success) {
        this.#deps.workflows.finish(
          state.executionId,
          'failed',
          `Step ${index} (${describeStep(step)}) failed: ${outcome.error ?? 'no reason given'}`,
          this.#now(),
        );
        this.#afterFailure(state);
        return;
      }
    }
    this.#deps.workflows.finish(state.executionId, 'completed', null, this.#now());
    this.#forget(state.executionId);
  }

  async #runStep(
    state: RunState,
    step: WorkflowStep,
    index: number,
  ): Promise<Omit<StepOutcome, 'completedAt' | 'hasScreenshot'>> {
    const failed = (error: unknown, jobId: string | null = null) => ({
      success: false,
      result: null,
      error: failureText(error),
      usedCache: false,
      jobId,
    });
    if ('action' in step) {
      try {
        // Only the values this action names go with it.
        const values = { ...state.variables, ...step.variables };
        const names = stepVariables({ action: step.action }, index);
        const variables = Object.fromEntries(
          names.filter((name) => Object.hasOwn(values, name)).map((name) => [name, values[name] as Value]),
        );
        const answer = await this.#deps.actions.run(state.actor.workspaceId, {
          action: step.action,
          session_id: state.sessionId,
          id: `${state.workflow.id}:${index}`,
          variables,
          set_cache: true,
        });
        // The journal keeps no URL secrets ("Opened https://…?token=…"): base/urlRedaction.ts.
        return {
          success: answer.success,
          result: answer.result === undefined || answer.result === null ? null : redactUrlsIn(answer.result),
          error: answer.success ? null : redactUrlsIn(answer.error ?? 'the action failed'),
          usedCache: answer.used_cache,
          jobId: null,
        };
      } catch (error) {
        return failed(error);
      }
    }
    let jobId: string | null = null;
    try {
      const formData = fillFormData(step.form_data, state.variables) as Record<string, unknown>;
      const ended = this.#jobEnd(() => jobId);
      try {
        jobId = (
          await this.#deps.jobs.start(this.#orgOf(state.actor.workspaceId), step.portal, {
            form_data: formData,
            browser_session_id: state.sessionId,
          })
        ).job_id;
        this.#deps.workflows.stepJob(state.executionId, index, jobId);
        const current = this.#deps.jobs.get(jobId);
        const job = current && FINAL_JOB_STATUSES.includes(current.status) ? current : await ended.promise;
        const success = job.status === 'completed';
        return {
          success,
          result: job.result === null ? null : JSON.stringify(job.result),
          error: success ? null : (job.error ?? `The job ended ${job.status}`),
          usedCache: false,
          jobId,
        };
      } finally {
        ended.dispose();
      }
    } catch (error) {
      return failed(error, jobId);
    }
  }

  /** A promise of the job (named by `id()` once started) reaching a final status. */
  #jobEnd(id: () => string | null): { promise: Promise<JobRecord>; dispose(): void } {
    let subscription: Disposable | undefined;
    const promise = new Promise<JobRecord>((resolve) => {
      subscription = this.#deps.jobs.onDidChangeStatus((job) => {
        if (job.id === id() && FINAL_JOB_STATUSES.includes(job.status)) resolve(job);
      });
    });
    return { promise, dispose: () => subscription?.dispose() };
  }

  async #takeScreenshot(state: RunState, index: number): Promise<boolean> {
    try {
      const page = await this.#deps.sessions.pageFor(state.sessionId, state.actor.workspaceId);
      const path = this.#screenshotPath(state.executionId, index);
      await mkdir(join(this.#deps.screenshotsDir, state.executionId), { recursive: true });
      // Password and one-time-code fields in every frame are painted over, like every stored screenshot.
      await fullPageScreenshot(page, path);
      return true;
    } catch (error) {
      this.#logger.debug('workflow step screenshot skipped', {
        execution_id: state.executionId,
        step: index,
        error: String(error),
      });
      return false;
    }
  }

  /** A failed run stays resumable while its session lives; a session it created is kept only for the resume window. */
  #afterFailure(state: RunState): void {
    if (!state.ownsSession) return;
    if (this.#closed) {
      this.#forget(state.executionId);
      return;
    }
    state.resumeTimer = this.#clock.setTimeout(
      () => this.#forget(state.executionId),
      this.#deps.resumeWindowMs ?? DEFAULT_RESUME_WINDOW_MS,
      { unref: true },
    );
  }

  /** Drops a run's values; a session the run created is terminated. */
  #forget(executionId: string): void {
    const state = this.#runs.get(executionId);
    if (!state) return;
    this.#runs.delete(executionId);
    this.#clock.clearTimeout(state.resumeTimer);
    if (state.ownsSession) {
      void this.#deps.sessions
        .terminate(state.actor.workspaceId, state.sessionId, state.origin)
        .catch((error: unknown) => {
          this.#logger.warn('workflow session did not terminate', {
            session_id: state.sessionId,
            error: String(error),
          });
        });
    }
  }

  /** Forgets failed runs whose session has ended: they can no longer be resumed, so their values go. */
  #pruneEnded(): void {
    for (const state of [...this.#runs.values()]) {
      if (
        !this.#busySessions.has(state.sessionId) &&
        !this.#deps.sessions.isActive(state.sessionId, state.actor.workspaceId)
      )
        this.#forget(state.executionId);
    }
  }

  #screenshotPath(executionId: string, index: number): string {
    return join(this.#deps.screenshotsDir, executionId.replace(/[^A-Za-z0-9-]/g, ''), `step_${Math.trunc(index)}.png`);
  }

  #workflow(workspaceId: string, workflowId: string): WorkflowRow {
    const row = this.#deps.workflows.get(workflowId);
    if (!row || row.workspace_id !== workspaceId) throw new NotFoundError(workflowMessages.notFound);
    return row;
  }

  #execution(workflow: WorkflowRow, executionId: string): ExecutionRow {
    const row = this.#deps.workflows.getExecution(executionId);
    if (!row || row.workflow_id !== workflow.id) throw new NotFoundError(workflowMessages.executionNotFound);
    return row;
  }

  #orgOf(workspaceId: string): string {
    return this.#deps.principals.workspaceOrg(workspaceId) ?? 'default';
  }

  #stepsOf(row: WorkflowRow): WorkflowStep[] {
    return WorkflowStep.array().parse(JSON.parse(row.steps_json));
  }

  #parametersOf(row: WorkflowRow): Record<string, Value | null> {
    return JSON.parse(row.parameters_json) as Record<string, Value | null>;
  }

  #now(): string {
    return this.#clock.now().toISOString();
  }

  #toWorkflow(row: WorkflowRow): Workflow {
    return {
      id: row.id,
      name: row.name,
      workspace_id: row.workspace_id,
      steps: this.#stepsOf(row),
      parameters: this.#parametersOf(row),
      created_at: row.created_at,
    };
  }

  #toExecution(row: ExecutionRow, name: string): WorkflowExecution {
    return {
      id: row.id,
      name,
      workflow_id: row.workflow_id,
      status: row.status,
      created_at: row.created_at,
      completed_at: row.status === 'completed' ? row.completed_at : null,
      session_id: row.session_id,
      error: row.error,
    };
  }

  #toStep(row: ExecutionStepRow, base: string): ExecutionStep {
    return {
      index: row.step_index,
      action: row.action,
      success: row.success === null ? null : row.success === 1,
      result: row.result,
      error: row.error,
      used_cache: row.used_cache === 1,
      started_at: row.started_at,
      completed_at: row.completed_at,
      job_id: row.job_id,
      screenshot_url: row.has_screenshot ? `${base}/${row.step_index}/screenshot` : null,
    };
  }
}
