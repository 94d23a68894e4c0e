import type { JobStatusResponse, QuestionData } from '../../src-main/contract/job.ts';
import { call, downloadFile, pageUrl } from '../api.ts';
import { Filmstrip } from '../components/Filmstrip.tsx';
import { LogStream } from '../components/LogStream.tsx';
import { QuestionCard } from '../components/QuestionCard.tsx';
import { ConfirmButton, ErrorNote, JsonBlock, Loading, PageHeader, StatusBadge } from '../components/ui.tsx';
import { formatDuration, isActive } from '../format.ts';
import { useAction, useNow, useResource } from '../hooks.ts';
import { routeHash } from '../routes.ts';
import { useConsole } from '../store.ts';

/** The question still waiting for an answer, if any. */
function pendingQuestion(job: JobStatusResponse): QuestionData | undefined {
  if (job.status !== 'waiting_for_input') return undefined;
  const answered = new Set(job.events.flatMap((e) => (e.type === 'answer' ? [e.data.question_id] : [])));
  const asked = job.events.flatMap((e) => (e.type === 'question' && !answered.has(e.data.question_id) ? [e.data] : []));
  return asked.at(-1);
}

/** One job: live view and progress while it runs, its question when it waits, then result, screenshots and log. */
export function JobPage(props: { endpoint: string; jobId: string }) {
  const org = useConsole((s) => s.org);
  const showToast = useConsole((s) => s.showToast);
  const jobArgs = { params: { org_id: org, endpoint_name: props.endpoint }, query: { job_id: props.jobId } };
  const job = useResource(() => call('getJobStatus', jobArgs), `${org}/${props.endpoint}/${props.jobId}`, 1000, (status) => isActive(status.status));
  const cancel = useAction();
  const fileDownload = useAction();
  const now = useNow(1000);

  const data = job.data;
  if (!data) {
    return (
      <section className="page">
        <PageHeader title={props.endpoint} subtitle={<a href={routeHash({ page: 'jobs' })}>← All jobs</a>} />
        <ErrorNote detail={job.error} />
        {job.loading && <Loading what="the job" />}
      </section>
    );
  }

  const active = isActive(data.status);
  const elapsed = data.started_at ? (data.completed_at ? Date.parse(data.completed_at) : now) - Date.parse(data.started_at) : 0;
  const question = pendingQuestion(data);
  const shots = data.steps + (data.status === 'failed' && data.has_screenshots ? 1 : 0);
  const doCancel = () =>
    cancel.run(async () => {
      await call('cancelJob', jobArgs);
      showToast('Cancellation requested');
      job.reload();
    });
  const doDownload = (what: 'downloads' | 'screenshots') =>
    void fileDownload.run(() =>
      what === 'downloads' ? downloadFile(`downloads_${props.jobId}.zip`, 'getJobDownloads', jobArgs) : downloadFile(`screenshots_${props.jobId}.tar.gz`, 'getJobScreenshots', jobArgs),
    );

  return (
    <section className="page job-page">
      <PageHeader
        title={
          <>
            {props.endpoint} <StatusBadge status={data.status} />
          </>
        }
        subtitle={
          <>
            <a href={routeHash({ page: 'jobs' })}>← All jobs</a> · <span className="mono">{data.job_id}</span>
          </>
        }
        actions={active ? <ConfirmButton label="Cancel job" confirm="Yes, cancel it" onConfirm={() => void doCancel()} disabled={cancel.busy} /> : undefined}
      />
      <ErrorNote detail={cancel.error} />
      <ErrorNote detail={job.error} title="Could not refresh:" />

      <div className="stats" aria-label="Progress">
        <div className="stat"><span className="stat-value" data-testid="steps">{data.steps}</span><span className="stat-label">steps</span></div>
        <div className="stat"><span className="stat-value">{data.started_at ? formatDuration(elapsed) : '—'}</span><span className="stat-label">{active ? 'elapsed' : 'duration'}</span></div>
        <div className="stat"><span className="stat-value">{data.credits}</span><span className="stat-label">credits</span></div>
        <div className="stat"><span className="stat-value mono small">{data.orchestrator_model}</span><span className="stat-label">model</span></div>
        {active && <div className={`progress ${data.status}`} aria-hidden><span /></div>}
      </div>

      {question && <QuestionCard org={org} endpoint={props.endpoint} jobId={data.job_id} question={question} onAnswered={() => { showToast('Answer sent'); job.reload(); }} />}

      {data.status === 'failed' && data.error !== null && (
        <div className="failure" role="alert">
          <strong>The job failed.</strong> {data.error}
        </div>
      )}
      {data.status === 'cancelled' && <div className="notice">This job was cancelled{data.error ? `: ${data.error}` : ''}.</div>}
      {data.status === 'queued' && <div className="notice">Waiting for a free slot or for its browser profile to be released.</div>}

      <div className="job-grid">
        {data.browser_url !== null && active && (
          <div className="panel live-panel">
            <div className="panel-title">Live browser <span className="muted">— click to take over</span></div>
            <iframe className="live" title="Live view of the job's browser" src={pageUrl(data.browser_url)} />
          </div>
        )}
        {data.status === 'completed' && (
          <div className="panel">
            <div className="panel-title">Result</div>
            <JsonBlock value={data.result} label="Result JSON" />
            {data.downloads_link !== null && (
              <p>
                <button type="button" className="ghost" disabled={fileDownload.busy} onClick={() => doDownload('downloads')}>Download the files this job fetched</button>
              </p>
            )}
          </div>
        )}
        <LogStream org={org} endpoint={props.endpoint} jobId={data.job_id} />
      </div>

      <div className="panel">
        <div className="panel-title">Screenshots</div>
        {!active && data.has_screenshots && (
          <p>
            <button type="button" className="ghost" disabled={fileDownload.busy} onClick={() => doDownload('screenshots')}>Download screenshots</button>
          </p>
        )}
        <ErrorNote detail={fileDownload.error} title="Could not download:" />
        <Filmstrip org={org} endpoint={props.endpoint} jobId={data.job_id} count={shots} />
      </div>
    </section>
  );
}
