import { prepared, type Db } from './database.ts';

export interface WorkflowRow {
  id: string;
  workspace_id: string;
  created_by: string;
  name: string;
  /** JSON array of steps as created. */
  steps_json: string;
  /** JSON object: name → default value or null. */
  parameters_json: string;
  created_at: string;
}

export type ExecutionStatus = 'running' | 'completed' | 'failed';

export interface ExecutionRow {
  id: string;
  workflow_id: string;
  workspace_id: string;
  created_by: string;
  status: ExecutionStatus;
  session_id: string | null;
  /** 1 when the execution created its session (and ends it). */
  owns_session: number;
  error: string | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

export interface ExecutionStepRow {
  execution_id: string;
  step_index: number;
  action: string;
  success: number | null;
  result: string | null;
  error: string | null;
  used_cache: number;
  started_at: string | null;
  completed_at: string | null;
  job_id: string | null;
  has_screenshot: number;
}

/** What a finished step records. */
export interface StepOutcome {
  success: boolean;
  result: string | null;
  error: string | null;
  usedCache: boolean;
  completedAt: string;
  jobId: string | null;
  hasScreenshot: boolean;
}

/** Workflows, their executions and step journals (local-service.md §5.5). */
export class WorkflowRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  insert(row: WorkflowRow): void {
    prepared(
      this.#db,
      `INSERT INTO workflows (id, workspace_id, created_by, name, steps_json, parameters_json, created_at)
       VALUES (@id, @workspace_id, @created_by, @name, @steps_json, @parameters_json, @created_at)`,
    ).run(row);
  }

  get(id: string): WorkflowRow | undefined {
    return prepared<[string], WorkflowRow>(this.#db, 'SELECT * FROM workflows WHERE id = ?').get(id);
  }

  /** A workspace's workflows, newest first. */
  list(workspaceId: string): WorkflowRow[] {
    return prepared<[string], WorkflowRow>(
      this.#db,
      'SELECT * FROM workflows WHERE workspace_id = ? ORDER BY created_at DESC, rowid DESC',
    ).all(workspaceId);
  }

  /** A new execution and its pending steps, in one transaction. */
  insertExecution(row: ExecutionRow, actions: readonly string[]): void {
    const step = prepared(
      this.#db,
      'INSERT INTO workflow_execution_steps (execution_id, step_index, action) VALUES (?, ?, ?)',
    );
    this.#db.transaction(() => {
      prepared(
        this.#db,
        `INSERT INTO workflow_executions (id, workflow_id, workspace_id, created_by, status, session_id, owns_session, error, created_at, updated_at, completed_at)
         VALUES (@id, @workflow_id, @workspace_id, @created_by, @status, @session_id, @owns_session, @error, @created_at, @updated_at, @completed_at)`,
      ).run(row);
      for (const [index, action] of actions.entries()) step.run(row.id, index, action);
    })();
  }

  getExecution(id: string): ExecutionRow | undefined {
    return prepared<[string], ExecutionRow>(this.#db, 'SELECT * FROM workflow_executions WHERE id = ?').get(id);
  }

  /** A workflow's executions, most recent first. */
  executions(workflowId: string): ExecutionRow[] {
    return prepared<[string], ExecutionRow>(
      this.#db,
      'SELECT * FROM workflow_executions WHERE workflow_id = ? ORDER BY created_at DESC, rowid DESC',
    ).all(workflowId);
  }

  steps(executionId: string): ExecutionStepRow[] {
    return prepared<[string], ExecutionStepRow>(
      this.#db,
      'SELECT * FROM workflow_execution_steps WHERE execution_id = ? ORDER BY step_index',
    ).all(executionId);
  }

  stepStarted(executionId: string, index: number, at: string): void {
    prepared(
      this.#db,
      `UPDATE workflow_execution_steps SET started_at = ?, completed_at = NULL, success = NULL, result = NULL, error = NULL, used_cache = 0, job_id = NULL, has_screenshot = 0
       WHERE execution_id = ? AND step_index = ?`,
    ).run(at, executionId, index);
  }

  stepJob(executionId: string, index: number, jobId: string): void {
    prepared(this.#db, 'UPDATE workflow_execution_steps SET job_id = ? WHERE execution_id = ? AND step_index = ?').run(
      jobId,
      executionId,
      index,
    );
  }

  stepFinished(executionId: string, index: number, outcome: StepOutcome): void {
    prepared(
      this.#db,
      `UPDATE workflow_execution_steps SET success = ?, result = ?, error = ?, used_cache = ?, completed_at = ?, job_id = COALESCE(?, job_id), has_screenshot = ?
       WHERE execution_id = ? AND step_index = ?`,
    ).run(
      outcome.success ? 1 : 0,
      outcome.result,
      outcome.error,
      outcome.usedCache ? 1 : 0,
      outcome.completedAt,
      outcome.jobId,
      outcome.hasScreenshot ? 1 : 0,
      executionId,
      index,
    );
  }

  /** Puts a failed execution back to running and clears the journal from `fromIndex` on; false when it was not failed. */
  resume(executionId: string, fromIndex: number, at: string): boolean {
    return this.#db.transaction(() => {
      const changed = prepared(
        this.#db,
        "UPDATE workflow_executions SET status = 'running', error = NULL, completed_at = NULL, updated_at = ? WHERE id = ? AND status = 'failed'",
      ).run(at, executionId).changes;
      if (changed === 0) return false;
      prepared(
        this.#db,
        `UPDATE workflow_execution_steps SET started_at = NULL, completed_at = NULL, success = NULL, result = NULL, error = NULL, used_cache = 0, job_id = NULL, has_screenshot = 0
         WHERE execution_id = ? AND step_index >= ?`,
      ).run(executionId, fromIndex);
      return true;
    })();
  }

  finish(executionId: string, status: Exclude<ExecutionStatus, 'running'>, error: string | null, at: string): void {
    prepared(
      this.#db,
      'UPDATE workflow_executions SET status = ?, error = ?, completed_at = ?, updated_at = ? WHERE id = ?',
    ).run(status, error, status === 'completed' ? at : null, at, executionId);
  }

  /** At start-up: executions the previous run left running lost their worker; they read `failed`. */
  failAllRunning(error: string, at: string): number {
    return prepared(
      this.#db,
      "UPDATE workflow_executions SET status = 'failed', error = ?, updated_at = ? WHERE status = 'running'",
    ).run(error, at).changes;
  }
}
