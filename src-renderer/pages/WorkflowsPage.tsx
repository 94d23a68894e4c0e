import { useEffect, useId, useState, type FormEvent } from 'react';
import type {
  ExecutionStatus,
  ExecutionStep,
  Workflow,
  WorkflowCreateRequest,
  WorkflowExecution,
  WorkflowVariables,
} from '../../src-main/contract/workflow.ts';
import { blobUrl, call } from '../api.ts';
import { Empty, ErrorNote, JsonBlock, Loading, PageHeader } from '../components/ui.tsx';
import { formatDuration, formatWhen } from '../format.ts';
import { useAction, useResource } from '../hooks.ts';
import { routeHash } from '../routes.ts';
import { useConsole } from '../store.ts';

const STATUS_LABEL: Record<ExecutionStatus, string> = { running: 'Running', completed: 'Completed', failed: 'Failed' };
const EXAMPLE_STEPS =
  '[\n  { "action": "go to https://example.com/login" },\n  { "action": "type {{user}} into Username" },\n  { "action": "click Sign in" }\n]';

function ExecutionBadge(props: { status: ExecutionStatus }) {
  return (
    <span className={`status execution-${props.status}`} data-testid="execution-status">
      {STATUS_LABEL[props.status]}
    </span>
  );
}

/** Parses a JSON text the person typed; the message says what is wrong. */
function parseJson(text: string, what: string): { value?: unknown; error?: string } {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (failure) {
    return { error: `${what} is not valid JSON: ${failure instanceof Error ? failure.message : String(failure)}` };
  }
}

/** A new workflow from its JSON steps (and optional parameters); the server checks every field. */
function NewWorkflowForm(props: { onCreated: (workflow: Workflow) => void }) {
  const [name, setName] = useState('');
  const [steps, setSteps] = useState(EXAMPLE_STEPS);
  const [parameters, setParameters] = useState('');
  const [invalid, setInvalid] = useState<string>();
  const ids = useId();
  const create = useAction();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsedSteps = parseJson(steps, 'Steps');
    const parsedParameters = parameters.trim() === '' ? { value: undefined } : parseJson(parameters, 'Parameters');
    const problem = parsedSteps.error ?? parsedParameters.error;
    setInvalid(problem);
    if (problem !== undefined) return;
    void create.run(async () => {
      // The shapes are the server's to judge: it answers a 422 naming the field.
      const body = {
        name,
        steps: parsedSteps.value,
        ...(parsedParameters.value !== undefined && { parameters: parsedParameters.value }),
      } as WorkflowCreateRequest;
      props.onCreated(await call('createWorkflow', { body }));
    });
  };
  return (
    <form className="panel" onSubmit={submit} aria-label="New workflow">
      <label className="field">
        <span className="field-label">Name</span>
        <input
          required
          maxLength={200}
          value={name}
          onChange={(e) => setName(e.target.value)}
          placeholder="Sign in and read the balance"
        />
      </label>
      {/* Labelled by id, not by wrapping: a wrapping label would take the textarea's JSON into its name. */}
      <div className="field">
        <label className="field-label" htmlFor={`${ids}-steps`}>
          Steps (JSON)
        </label>
        <textarea
          id={`${ids}-steps`}
          className={`code${invalid?.startsWith('Steps') ? ' invalid' : ''}`}
          rows={8}
          spellCheck={false}
          value={steps}
          onChange={(e) => setSteps(e.target.value)}
        />
      </div>
      <p className="muted small">
        Each step is <code>{'{"action": "…"}'}</code> (a single action, may use <code>{'{{name}}'}</code>) or{' '}
        <code>{'{"portal": "endpoint", "form_data": {…}}'}</code>.
      </p>
      <div className="field">
        <label className="field-label" htmlFor={`${ids}-parameters`}>
          Parameters (JSON, optional)
        </label>
        <textarea
          id={`${ids}-parameters`}
          className={`code${invalid?.startsWith('Parameters') ? ' invalid' : ''}`}
          rows={3}
          spellCheck={false}
          value={parameters}
          onChange={(e) => setParameters(e.target.value)}
          placeholder={'{ "user": null, "site": "https://example.com" }'}
        />
      </div>
      <div>
        <button type="submit" className="primary" disabled={create.busy || name.trim() === ''}>
          {create.busy ? 'Creating…' : 'Create workflow'}
        </button>
      </div>
      <ErrorNote detail={invalid ?? create.error} />
    </form>
  );
}

/** The workspace's workflows, newest first, and a form to add one. */
function WorkflowList() {
  const showToast = useConsole((s) => s.showToast);
  const workflows = useResource(() => call('listWorkflows'), 'workflows');
  const list = workflows.data?.workflows ?? [];
  return (
    <>
      <NewWorkflowForm
        onCreated={(workflow) => {
          showToast(`Workflow ${workflow.name} created`);
          window.location.hash = routeHash({ page: 'workflow', workflowId: workflow.id });
        }}
      />
      <ErrorNote detail={workflows.error} />
      {workflows.loading && !workflows.data && <Loading what="workflows" />}
      {workflows.data && list.length === 0 && (
        <Empty title="No workflows yet">
          <p>A workflow runs single actions and portal jobs in order, in one browser session.</p>
        </Empty>
      )}
      {list.length > 0 && (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls sideways must take focus so the keyboard can scroll it (WCAG 2.1.1)
        <section className="table-scroll" tabIndex={0} aria-label="Workflows table">
          <table className="table">
            <thead>
              <tr>
                <th>Workflow</th>
                <th className="num">Steps</th>
                <th>Parameters</th>
                <th>Created</th>
              </tr>
            </thead>
            <tbody>
              {list.map((workflow) => (
                <tr key={workflow.id} data-workflow={workflow.id}>
                  <td>
                    <a href={routeHash({ page: 'workflow', workflowId: workflow.id })}>{workflow.name}</a>
                  </td>
                  <td className="num">{workflow.steps.length}</td>
                  <td>{Object.keys(workflow.parameters).join(', ') || <span className="muted">—</span>}</td>
                  <td>{formatWhen(workflow.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
    </>
  );
}

/** Values for a run: one field per declared parameter (a default pre-filled, a required one marked). */
function RunForm(props: { workflow: Workflow; onStarted: (execution: WorkflowExecution) => void }) {
  const names = Object.keys(props.workflow.parameters);
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(
      names.map((name) => [
        name,
        props.workflow.parameters[name] === null || props.workflow.parameters[name] === undefined
          ? ''
          : String(props.workflow.parameters[name]),
      ]),
    ),
  );
  const run = useAction();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run.run(async () => {
      const variables: WorkflowVariables = {};
      for (const name of names) if ((values[name] ?? '') !== '') variables[name] = values[name] ?? '';
      props.onStarted(await call('runWorkflow', { params: { workflow_id: props.workflow.id }, body: { variables } }));
    });
  };
  return (
    <form className="panel inline-form wrap" onSubmit={submit} aria-label="Run workflow">
      {names.map((name) => (
        <label key={name}>
          {name}
          <input
            required={props.workflow.parameters[name] === null}
            value={values[name] ?? ''}
            onChange={(e) => setValues({ ...values, [name]: e.target.value })}
          />
        </label>
      ))}
      <button type="submit" className="primary" disabled={run.busy}>
        {run.busy ? 'Starting…' : 'Run'}
      </button>
      <ErrorNote detail={run.error} />
    </form>
  );
}

/** One workflow: its steps, a run form, and its executions (every member's), most recent first. */
function WorkflowDetail(props: { workflowId: string }) {
  const workflows = useResource(() => call('listWorkflows'), 'workflows');
  const executions = useResource(
    () => call('listWorkflowExecutions', { params: { workflow_id: props.workflowId } }),
    props.workflowId,
    3000,
  );
  const workflow = workflows.data?.workflows.find((w) => w.id === props.workflowId);
  const list = executions.data?.executions ?? [];
  return (
    <>
      <ErrorNote detail={workflows.error} />
      {workflows.data && workflow === undefined && <ErrorNote detail="Workflow not found" />}
      {workflow !== undefined && (
        <>
          <h2>{workflow.name}</h2>
          <RunForm
            workflow={workflow}
            onStarted={(execution) => {
              window.location.hash = routeHash({
                page: 'workflow-execution',
                workflowId: workflow.id,
                executionId: execution.id,
              });
            }}
          />
          <details className="more">
            <summary>Steps ({workflow.steps.length})</summary>
            <JsonBlock value={workflow.steps} label="Workflow steps" />
          </details>
        </>
      )}
      <h2>Executions</h2>
      <ErrorNote detail={executions.error} />
      {executions.loading && !executions.data && <Loading what="executions" />}
      {executions.data && list.length === 0 && <Empty title="Not run yet" />}
      {list.length > 0 && (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls sideways must take focus so the keyboard can scroll it (WCAG 2.1.1)
        <section className="table-scroll" tabIndex={0} aria-label="Executions table">
          <table className="table">
            <thead>
              <tr>
                <th>Started</th>
                <th>Status</th>
                <th>Finished</th>
                <th>Error</th>
              </tr>
            </thead>
            <tbody>
              {list.map((execution) => (
                <tr key={execution.id} data-execution={execution.id}>
                  <td>
                    <a
                      href={routeHash({
                        page: 'workflow-execution',
                        workflowId: props.workflowId,
                        executionId: execution.id,
                      })}
                    >
                      {formatWhen(execution.created_at)}
                    </a>
                  </td>
                  <td>
                    <ExecutionBadge status={execution.status} />
                  </td>
                  <td>
                    {execution.completed_at !== null ? (
                      formatWhen(execution.completed_at)
                    ) : (
                      <span className="muted">—</span>
                    )}
                  </td>
                  <td>{execution.error ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
    </>
  );
}

/** The page after a step, fetched with the console token (an `<img src>` cannot send it). */
function StepScreenshot(props: { workflowId: string; executionId: string; step: ExecutionStep }) {
  const [url, setUrl] = useState<string>();
  const [failed, setFailed] = useState<string>();
  const { workflowId, executionId } = props;
  const { index, completed_at: completedAt } = props.step;
  // biome-ignore lint/correctness/useExhaustiveDependencies: a step run again (resume) has a new completed_at and a new screenshot
  useEffect(() => {
    let objectUrl: string | undefined;
    let live = true;
    blobUrl('getWorkflowStepScreenshot', {
      params: { workflow_id: workflowId, execution_id: executionId, index },
    }).then(
      (made) => {
        objectUrl = made;
        if (live) setUrl(made);
        else URL.revokeObjectURL(made);
      },
      (failure: unknown) => live && setFailed(failure instanceof Error ? failure.message : String(failure)),
    );
    return () => {
      live = false;
      if (objectUrl !== undefined) URL.revokeObjectURL(objectUrl);
    };
  }, [workflowId, executionId, index, completedAt]);
  if (failed !== undefined) return <p className="muted small">No screenshot: {failed}</p>;
  if (url === undefined) return <p className="muted small">Loading screenshot…</p>;
  return <img className="step-shot" src={url} alt={`The page after step ${index + 1}`} />;
}

function stepOutcome(step: ExecutionStep): { label: string; className: string } {
  if (step.success === true) return { label: 'Succeeded', className: 'step-ok' };
  if (step.success === false) return { label: 'Failed', className: 'step-failed' };
  return step.started_at !== null
    ? { label: 'Running', className: 'step-running' }
    : { label: 'Not run', className: 'step-pending' };
}

/** One execution: its step timeline (action, outcome, cache, duration, screenshot) and Resume when it failed. */
function ExecutionDetail(props: { workflowId: string; executionId: string }) {
  const showToast = useConsole((s) => s.showToast);
  // Polls while the execution runs; a resume (a new key) loads and polls it again.
  const [resumes, setResumes] = useState(0);
  const execution = useResource(
    () => call('getWorkflowExecution', { params: { workflow_id: props.workflowId, execution_id: props.executionId } }),
    `${props.executionId}/${resumes}`,
    1500,
    (data) => data.status === 'running',
  );
  const resume = useAction();
  const doResume = () =>
    resume.run(async () => {
      await call('resumeWorkflowExecution', {
        params: { workflow_id: props.workflowId, execution_id: props.executionId },
        body: {},
      });
      showToast('Execution resumed from its failed step');
      setResumes((n) => n + 1);
    });
  const shown = execution.data;
  return (
    <>
      <p>
        <a href={routeHash({ page: 'workflow', workflowId: props.workflowId })}>← All executions of this workflow</a>
      </p>
      <ErrorNote detail={execution.error} />
      {execution.loading && !shown && <Loading what="the execution" />}
      {shown !== undefined && (
        <>
          <div className="panel execution-head">
            <h2>{shown.name}</h2>
            <p>
              <ExecutionBadge status={shown.status} /> started {formatWhen(shown.created_at)}
              {shown.completed_at !== null && <>, finished {formatWhen(shown.completed_at)}</>}
            </p>
            {shown.error !== null && (
              <p className="error-note" data-testid="execution-error">
                {shown.error}
              </p>
            )}
            {shown.status === 'failed' && (
              <div>
                <button type="button" className="primary" disabled={resume.busy} onClick={() => void doResume()}>
                  {resume.busy ? 'Resuming…' : 'Resume from the failed step'}
                </button>
              </div>
            )}
            <ErrorNote detail={resume.error} />
          </div>
          <ol className="timeline" aria-label="Steps">
            {shown.steps.map((step) => {
              const outcome = stepOutcome(step);
              const took =
                step.started_at !== null && step.completed_at !== null
                  ? Date.parse(step.completed_at) - Date.parse(step.started_at)
                  : undefined;
              return (
                <li key={step.index} className={`timeline-step ${outcome.className}`} data-step={step.index}>
                  <div className="step-head">
                    <span className="step-number">{step.index + 1}</span>
                    <span className="step-action">{step.action}</span>
                    <span className={`status ${outcome.className}`} data-testid="step-outcome">
                      {outcome.label}
                    </span>
                    {step.used_cache && (
                      <span className="pill" data-testid="step-cache">
                        From cache
                      </span>
                    )}
                    {took !== undefined && (
                      <span className="muted" data-testid="step-duration">
                        {formatDuration(took)}
                      </span>
                    )}
                  </div>
                  {step.result !== null && <p className="step-result">{step.result}</p>}
                  {step.error !== null && <p className="error-note">{step.error}</p>}
                  {step.job_id !== null && (
                    <p className="muted small">
                      Job <span className="mono">{step.job_id}</span>
                    </p>
                  )}
                  {step.screenshot_url !== null && (
                    <StepScreenshot workflowId={props.workflowId} executionId={props.executionId} step={step} />
                  )}
                </li>
              );
            })}
          </ol>
        </>
      )}
    </>
  );
}

/** Workflows of the default workspace: create from JSON steps, run, and follow each execution step by step. */
export function WorkflowsPage(props: { workflowId?: string; executionId?: string }) {
  const { workflowId, executionId } = props;
  return (
    <section className="page">
      <PageHeader
        title="Workflows"
        subtitle="Single actions and portal jobs run in order in one browser session, in the default workspace."
        actions={workflowId !== undefined ? <a href={routeHash({ page: 'workflows' })}>All workflows</a> : undefined}
      />
      {workflowId === undefined ? (
        <WorkflowList />
      ) : executionId === undefined ? (
        <WorkflowDetail workflowId={workflowId} />
      ) : (
        <ExecutionDetail workflowId={workflowId} executionId={executionId} />
      )}
    </section>
  );
}
