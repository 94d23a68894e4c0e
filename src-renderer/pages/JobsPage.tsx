import { useState } from 'react';
import { RunSample } from '../components/RunSample.tsx';
import type { JobStatus } from '../../src-main/contract/job.ts';
import { call } from '../api.ts';
import { Empty, ErrorNote, Loading, PageHeader, StatusBadge } from '../components/ui.tsx';
import { endpointOf, formatDuration, formatWhen, statusLabel } from '../format.ts';
import { useNow, useResource } from '../hooks.ts';
import { routeHash } from '../routes.ts';
import { useConsole } from '../store.ts';

/** Every job of the org, newest first, refreshed every two seconds. */
export function JobsPage() {
  const org = useConsole((s) => s.org);
  const [status, setStatus] = useState<JobStatus | ''>('');
  const [endpoint, setEndpoint] = useState('');
  const now = useNow(1000);
  const query = { limit: 200, ...(status !== '' && { status }), ...(endpoint !== '' && { endpoint_name: endpoint }) };
  const jobs = useResource(
    () => call('listJobSummaries', { params: { org_id: org }, query }),
    `${org}?${JSON.stringify(query)}`,
    2000,
  );
  const portals = useResource(() => call('listPortals', { params: { org_id: org } }), org);

  const filters = (
    <div className="filters">
      <label>
        Status
        <select value={status} onChange={(e) => setStatus(e.target.value as JobStatus | '')}>
          <option value="">All</option>
          {(Object.keys(statusLabel) as JobStatus[]).map((s) => (
            <option key={s} value={s}>
              {statusLabel[s]}
            </option>
          ))}
        </select>
      </label>
      <label>
        Portal
        <select value={endpoint} onChange={(e) => setEndpoint(e.target.value)}>
          <option value="">All</option>
          {(portals.data ?? []).map((p) => (
            <option key={p.id} value={p.endpoint_name}>
              {p.endpoint_name}
            </option>
          ))}
        </select>
      </label>
    </div>
  );

  const list = jobs.data?.jobs ?? [];
  const waiting = list.filter((j) => j.status === 'waiting_for_input').length;
  return (
    <section className="page">
      <PageHeader
        title="Jobs"
        subtitle={
          jobs.data
            ? `${jobs.data.total} job${jobs.data.total === 1 ? '' : 's'}${waiting > 0 ? ` · ${waiting} waiting for an answer` : ''}`
            : 'Every job of this organization, live'
        }
        actions={filters}
      />
      <ErrorNote detail={jobs.error} />
      {jobs.loading && <Loading what="jobs" />}
      {jobs.data && list.length === 0 && (
        <Empty title={status === '' && endpoint === '' ? 'No jobs yet' : 'No job matches these filters'}>
          {status === '' && endpoint === '' ? (
            <>
              <RunSample />
              <p>
                Open a <a href={routeHash({ page: 'portals' })}>portal</a> and press <em>Run a job</em>, or start one
                from a script with <code>POST /jobs/{org}/&lt;endpoint&gt;/start</code>.
              </p>
            </>
          ) : (
            <p>Clear the filters to see every job.</p>
          )}
        </Empty>
      )}
      {list.length > 0 && (
        <>
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls sideways must take focus so the keyboard can scroll it (WCAG 2.1.1) */}
          <section className="table-scroll" tabIndex={0} aria-label="Jobs table">
            <table className="table jobs-table">
              <thead>
                <tr>
                  <th>Status</th>
                  <th>Portal</th>
                  <th>Model</th>
                  <th className="num">Steps</th>
                  <th className="num">Duration</th>
                  <th className="num">Credits</th>
                  <th>Created</th>
                </tr>
              </thead>
              <tbody>
                {list.map((job) => {
                  const end = job.completed_at ? Date.parse(job.completed_at) : now;
                  const duration = job.started_at ? formatDuration(end - Date.parse(job.started_at)) : '—';
                  const href = routeHash({ page: 'job', endpoint: endpointOf(job.portal_id), jobId: job.job_id });
                  return (
                    <tr key={job.job_id} className={job.status === 'waiting_for_input' ? 'attention' : undefined}>
                      <td>
                        <StatusBadge status={job.status} />
                      </td>
                      <td>
                        <a className="row-link" href={href}>
                          {endpointOf(job.portal_id)}
                        </a>
                        <span className="id">{job.job_id.slice(0, 8)}</span>
                      </td>
                      <td className="mono">{job.orchestrator_model}</td>
                      <td className="num">{job.steps}</td>
                      <td className="num">{duration}</td>
                      <td className="num">{job.credits}</td>
                      <td title={new Date(job.created_at).toLocaleString()}>{formatWhen(job.created_at, now)}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </section>
        </>
      )}
    </section>
  );
}
