import { useMemo, useState, type FormEvent } from 'react';
import type { JobStartRequest } from '../../src-main/contract/job.ts';
import {
  BUILTIN_AUTOFILL,
  DEFAULT_ORCHESTRATOR_MODEL,
  ORCHESTRATOR_MODELS,
  providerOfModel,
} from '../../src-main/contract/orchestrators.ts';
import type { Portal } from '../../src-main/contract/portal.ts';
import { call } from '../api.ts';
import { SchemaForm } from '../components/SchemaForm.tsx';
import { ConfirmButton, Empty, ErrorNote, Loading, PageHeader, StatusBadge } from '../components/ui.tsx';
import { formatWhen } from '../format.ts';
import { useAction, useResource } from '../hooks.ts';
import { routeHash } from '../routes.ts';
import { fieldsOf, formDataOf } from '../schema.ts';
import { useConsole } from '../store.ts';
import { PortalEditor } from './PortalEditor.tsx';

const PROVIDER_NAMES: Record<string, string> = { anthropic: 'Anthropic', openai: 'OpenAI', moonshot: 'Moonshot' };

/**
 * Which engine runs the job: the default the service would pick (the interface's default model when its
 * provider has a key, else builtin:autofill), or any other the operator can use now. The choice is
 * always sent, so the job runs with what the form shows.
 */
function useOrchestrators(): {
  options: { id: string; label: string }[];
  defaultId: string | undefined;
  keyedDefault: string | undefined;
} {
  const providers = useResource(() => call('listProviders'), 'providers');
  const configured = new Set(
    (providers.data?.providers ?? []).filter((p) => p.configured).map((p) => p.provider as string),
  );
  if (providers.data === undefined) return { options: [], defaultId: undefined, keyedDefault: undefined };
  const models = ORCHESTRATOR_MODELS.filter((id) => configured.has(providerOfModel(id)));
  const defaultId = configured.has(providerOfModel(DEFAULT_ORCHESTRATOR_MODEL))
    ? DEFAULT_ORCHESTRATOR_MODEL
    : BUILTIN_AUTOFILL;
  const options = [
    { id: BUILTIN_AUTOFILL, label: 'Built-in autofill (no model, no credits)' },
    ...models.map((id) => ({
      id,
      label: `${id} (${PROVIDER_NAMES[providerOfModel(id)] ?? providerOfModel(id)} key; uses credits)`,
    })),
  ].map((option) => (option.id === defaultId ? { ...option, label: `${option.label} — default` } : option));
  const keyedDefault =
    defaultId === BUILTIN_AUTOFILL
      ? undefined
      : (PROVIDER_NAMES[providerOfModel(defaultId)] ?? providerOfModel(defaultId));
  return { options, defaultId, keyedDefault };
}

/** Run a job with a form drawn from the portal's form_schema. */
function RunForm(props: { portal: Portal }) {
  const org = useConsole((s) => s.org);
  const navigate = useConsole((s) => s.navigate);
  const fields = useMemo(() => fieldsOf(props.portal.form_schema), [props.portal.form_schema]);
  const [values, setValues] = useState<Record<string, unknown>>({});
  const [rawJson, setRawJson] = useState('{}');
  const [maxTurns, setMaxTurns] = useState('');
  const [askMe, setAskMe] = useState(true);
  const orchestrators = useOrchestrators();
  const [chosen, setChosen] = useState<string>();
  const orchestrator = chosen ?? orchestrators.defaultId;
  const start = useAction();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void start.run(async () => {
      let formData: Record<string, unknown>;
      if (fields.length > 0) {
        const built = formDataOf(fields, values);
        if (built.error !== undefined) throw new Error(built.error);
        formData = built.data;
      } else {
        try {
          formData = JSON.parse(rawJson) as Record<string, unknown>;
        } catch {
          throw new Error('Form data: not valid JSON');
        }
      }
      const body: JobStartRequest = { form_data: formData, human_in_the_loop: askMe };
      if (maxTurns.trim() !== '') body.max_turns = Number(maxTurns);
      if (orchestrator !== undefined) body.orchestrator_model = orchestrator;
      const { job_id } = await call('startJob', {
        params: { org_id: org, endpoint_name: props.portal.endpoint_name },
        body,
      });
      navigate({ page: 'job', endpoint: props.portal.endpoint_name, jobId: job_id });
    });
  };
  return (
    <form className="panel run-form" onSubmit={submit} aria-label="Run a job">
      <div className="panel-title">Run a job</div>
      {fields.length > 0 ? (
        <SchemaForm fields={fields} values={values} onChange={setValues} idPrefix="run" />
      ) : (
        <div className="field">
          <label htmlFor="run-json">Form data (JSON)</label>
          <textarea
            id="run-json"
            className="code"
            rows={5}
            value={rawJson}
            onChange={(e) => setRawJson(e.target.value)}
          />
        </div>
      )}
      <div className="form-grid compact">
        <div className="field">
          <label htmlFor="run-max-turns">Max steps</label>
          <input
            id="run-max-turns"
            type="number"
            min={1}
            max={1000}
            value={maxTurns}
            onChange={(e) => setMaxTurns(e.target.value)}
            placeholder="default"
          />
        </div>
        <label className="check">
          <input type="checkbox" checked={askMe} onChange={(e) => setAskMe(e.target.checked)} />
          Ask me when data is missing
        </label>
        <div className="field span-2">
          <label htmlFor="run-orchestrator">Runs with</label>
          <select
            id="run-orchestrator"
            value={orchestrator ?? ''}
            onChange={(e) => setChosen(e.target.value)}
            disabled={orchestrator === undefined}
            aria-describedby="run-orchestrator-note"
          >
            {orchestrator === undefined && <option value="">Loading…</option>}
            {orchestrators.options.map((option) => (
              <option key={option.id} value={option.id}>
                {option.label}
              </option>
            ))}
          </select>
          <p id="run-orchestrator-note" className="muted small" data-testid="orchestrator-note">
            {orchestrators.keyedDefault !== undefined
              ? `Because an ${orchestrators.keyedDefault} key is saved in Settings, jobs default to ${orchestrators.defaultId ?? ''}, which calls the model and uses credits. Choose Built-in autofill to fill the form without a model.`
              : 'No model key is saved, so jobs run with the built-in autofill engine: no model, no network of its own, no credits.'}
          </p>
        </div>
      </div>
      <ErrorNote detail={start.error} title="Not started:" />
      <div className="form-actions">
        <button type="submit" className="primary" disabled={start.busy}>
          {start.busy ? 'Starting…' : 'Run a job'}
        </button>
      </div>
    </form>
  );
}

function RecentJobs(props: { endpoint: string }) {
  const org = useConsole((s) => s.org);
  const jobs = useResource(
    () => call('listJobSummaries', { params: { org_id: org }, query: { endpoint_name: props.endpoint, limit: 8 } }),
    `${org}/${props.endpoint}`,
    3000,
  );
  return (
    <div className="panel">
      <div className="panel-title">Recent jobs</div>
      <ErrorNote detail={jobs.error} />
      {jobs.data?.jobs.length === 0 && (
        <p className="muted">No jobs of this portal yet: fill in the form and run one.</p>
      )}
      <ul className="recent">
        {(jobs.data?.jobs ?? []).map((job) => (
          <li key={job.job_id}>
            <a href={routeHash({ page: 'job', endpoint: props.endpoint, jobId: job.job_id })}>
              <StatusBadge status={job.status} /> <span className="mono">{job.job_id.slice(0, 8)}</span>{' '}
              <span className="muted">{formatWhen(job.created_at)}</span>
            </a>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** One portal: run it, or edit and delete it. */
export function PortalPage(props: { endpoint: string; tab: 'run' | 'edit' }) {
  const org = useConsole((s) => s.org);
  const navigate = useConsole((s) => s.navigate);
  const showToast = useConsole((s) => s.showToast);
  const portal = useResource(
    () => call('getPortal', { params: { org_id: org, endpoint_name: props.endpoint } }),
    `${org}/${props.endpoint}`,
  );
  const remove = useAction();
  const data = portal.data;
  const tabs = (
    <nav className="tabs" aria-label="Portal">
      <a
        href={routeHash({ page: 'portal', endpoint: props.endpoint, tab: 'run' })}
        aria-current={props.tab === 'run' ? 'page' : undefined}
      >
        Run
      </a>
      <a
        href={routeHash({ page: 'portal', endpoint: props.endpoint, tab: 'edit' })}
        aria-current={props.tab === 'edit' ? 'page' : undefined}
      >
        Edit
      </a>
    </nav>
  );
  const doDelete = () =>
    remove.run(async () => {
      await call('deletePortal', { params: { org_id: org, endpoint_name: props.endpoint } });
      showToast(`Portal ${props.endpoint} deleted`);
      navigate({ page: 'portals' });
    });
  return (
    <section className="page">
      <PageHeader
        title={props.endpoint}
        subtitle={
          <>
            <a href={routeHash({ page: 'portals' })}>← Portals</a>
            {data && (
              <>
                {' '}
                · <span className="mono">{data.start_url}</span>
              </>
            )}
          </>
        }
        actions={
          <>
            {tabs}
            <ConfirmButton
              label="Delete"
              confirm="Delete this portal"
              onConfirm={() => void doDelete()}
              disabled={remove.busy}
            />
          </>
        }
      />
      <ErrorNote detail={remove.error} />
      {portal.loading && <Loading what="the portal" />}
      {portal.error !== undefined && (
        <Empty title={portal.error}>
          <a href={routeHash({ page: 'portals' })}>Back to the portals</a>
        </Empty>
      )}
      {data && props.tab === 'run' && (
        <div className="two-col">
          <RunForm key={data.updated_at} portal={data} />
          <div className="stack">
            <div className="panel">
              <div className="panel-title">Task</div>
              <p className="task-text">{data.task}</p>
            </div>
            <RecentJobs endpoint={data.endpoint_name} />
          </div>
        </div>
      )}
      {data && props.tab === 'edit' && (
        <PortalEditor
          key={data.updated_at}
          portal={data}
          onSaved={() => {
            showToast('Portal saved');
            portal.reload();
            navigate({ page: 'portal', endpoint: props.endpoint, tab: 'run' });
          }}
        />
      )}
    </section>
  );
}

export function NewPortalPage() {
  const navigate = useConsole((s) => s.navigate);
  const showToast = useConsole((s) => s.showToast);
  return (
    <section className="page">
      <PageHeader title="New portal" subtitle={<a href={routeHash({ page: 'portals' })}>← Portals</a>} />
      <PortalEditor
        onSaved={(portal) => {
          showToast(`Portal ${portal.endpoint_name} created`);
          navigate({ page: 'portal', endpoint: portal.endpoint_name, tab: 'run' });
        }}
      />
    </section>
  );
}
