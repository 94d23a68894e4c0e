import { useState } from 'react';
import type { JobEventData, JobStatusResponse, QuestionData } from '../../src-main/contract/job.ts';
import { call, downloadFile, pageUrl } from '../api.ts';
import { Filmstrip, type ShotCaption } from '../components/Filmstrip.tsx';
import { RecordingPlayer } from '../components/RecordingPlayer.tsx';
import { SampleReceived } from '../components/SampleReceived.tsx';
import { SourcedValues } from '../components/SourcedValues.tsx';
import { SubmissionReceipt } from '../components/SubmissionReceipt.tsx';
import { LogStream, useJobStream } from '../components/LogStream.tsx';
import { QuestionCard } from '../components/QuestionCard.tsx';
import { ConfirmButton, ErrorNote, JsonBlock, Loading, PageHeader, StatusBadge } from '../components/ui.tsx';
import { formatDuration, isActive } from '../format.ts';
import { useAction, useNow, useResource } from '../hooks.ts';
import { routeHash } from '../routes.ts';
import { useConsole } from '../store.ts';

/** The later of the polled and the pushed status (a reconnect or a poll may bring either first). */
/** The reference a job's result reports, if any. */
function referenceOf(result: unknown): string | undefined {
  const reference = (result as { reference?: unknown } | null)?.reference;
  return typeof reference === 'string' ? reference : undefined;
}

function newest(
  polled: JobStatusResponse | undefined,
  pushed: JobStatusResponse | undefined,
): JobStatusResponse | undefined {
  if (polled === undefined || pushed === undefined) return polled ?? pushed;
  return Date.parse(pushed.updated_at) >= Date.parse(polled.updated_at) ? pushed : polled;
}

/** The question still waiting for an answer, if any. */
function pendingQuestion(job: JobStatusResponse): QuestionData | undefined {
  if (job.status !== 'waiting_for_input') return undefined;
  const answered = new Set(job.events.flatMap((e) => (e.type === 'answer' ? [e.data.question_id] : [])));
  const asked = job.events.flatMap((e) => (e.type === 'question' && !answered.has(e.data.question_id) ? [e.data] : []));
  return asked.at(-1);
}

/** The options the job was queued with (form_data and the rest), when Portico recorded them. */
function startedWith(job: JobStatusResponse): JobEventData<'queued'> | undefined {
  return job.events.flatMap((e) => (e.type === 'queued' ? [e.data] : []))[0];
}

/** What the job read from its document bundle (form_data with each value's source), when it started from one. */
function extractionOf(job: JobStatusResponse): JobEventData<'extraction'> | undefined {
  return job.events.flatMap((e) => (e.type === 'extraction' ? [e.data] : []))[0];
}

/** The builtin filler's receipt of what the form sent (the last `submission` event), when it saw one. */
function submissionOf(job: JobStatusResponse): JobEventData<'submission'> | undefined {
  return job.events.flatMap((e) => (e.type === 'submission' ? [e.data] : [])).at(-1);
}

/** Each question the job asked, with the answer it got (undefined while none came). */
function questionHistory(job: JobStatusResponse): { question: QuestionData; answer: string | undefined; at: string }[] {
  const answers = new Map(
    job.events.flatMap((e) => (e.type === 'answer' ? [[e.data.question_id, e.data.answer] as const] : [])),
  );
  return job.events.flatMap((e) =>
    e.type === 'question' ? [{ question: e.data, answer: answers.get(e.data.question_id), at: e.timestamp }] : [],
  );
}

/** The description the engine gives the screenshot it takes when a job fails (engine/jobs/jobRun.ts). */
const FAILURE_STEP = 'state when the job failed';

/** A caption per screenshot, in order: each step says what it did; a failed job's last one is the failure's. */
function captionsOf(job: JobStatusResponse, shots: number): ShotCaption[] {
  const steps = job.events.flatMap((e) => (e.type === 'step' ? [e.data] : []));
  return Array.from({ length: shots }, (_, index) => {
    const description = steps[index]?.description ?? '';
    if (job.status === 'failed' && index === shots - 1 && description === FAILURE_STEP)
      return { title: 'Failure screenshot', caption: 'the page when the job failed' };
    return { title: `Step ${index + 1}`, caption: description };
  });
}

/** Starts the same portal again with the form data and options this job started with. */
function RunAgain(props: { org: string; endpoint: string; job: JobStatusResponse }) {
  const navigate = useConsole((s) => s.navigate);
  const action = useAction();
  const [secrets, setSecrets] = useState<Record<string, string>>({});
  const [asking, setAsking] = useState(false);
  const started = startedWith(props.job);
  if (started?.form_data === undefined || started.form_data === null) return null;
  const formData = started.form_data;
  // Secret values (passwords, PINs) are never stored in the job's events: their keys are named, to be typed again.
  const hiddenKeys = started.hidden_keys ?? [];
  const again = () =>
    action.run(async () => {
      const { job_id } = await call('startJob', {
        params: { org_id: props.org, endpoint_name: props.endpoint },
        body: {
          form_data: { ...formData, ...secrets },
          orchestrator_model: props.job.orchestrator_model,
          ...(started.max_turns !== undefined && { max_turns: started.max_turns }),
          ...(started.timeout_minutes !== undefined && { timeout_minutes: started.timeout_minutes }),
          ...(started.human_in_the_loop !== undefined && { human_in_the_loop: started.human_in_the_loop }),
        },
      });
      navigate({ page: 'job', endpoint: props.endpoint, jobId: job_id });
    });
  const start = () => (hiddenKeys.length > 0 && !asking ? setAsking(true) : void again());
  return (
    <>
      <button
        type="button"
        className="ghost"
        disabled={action.busy}
        onClick={start}
        title="Start this portal again with the same input data and options"
      >
        Run again
      </button>
      {asking && (
        <form
          className="inline-form wrap"
          aria-label="Values to type again"
          onSubmit={(e) => {
            e.preventDefault();
            void again();
          }}
        >
          {hiddenKeys.map((key) => (
            <label key={key}>
              {key}
              <input
                type="password"
                autoComplete="off"
                value={secrets[key] ?? ''}
                onChange={(e) => setSecrets({ ...secrets, [key]: e.target.value })}
              />
            </label>
          ))}
          <button type="submit" className="primary" disabled={action.busy}>
            Run with these
          </button>
        </form>
      )}
      {action.error !== undefined && (
        <span className="error-text" role="alert">
          Not started: {action.error}
        </span>
      )}
    </>
  );
}

/** One job: live view and progress while it runs, its question when it waits, then result, screenshots and log. */
export function JobPage(props: { endpoint: string; jobId: string }) {
  const org = useConsole((s) => s.org);
  const showToast = useConsole((s) => s.showToast);
  const jobArgs = { params: { org_id: org, endpoint_name: props.endpoint }, query: { job_id: props.jobId } };
  // Status is pushed over the log stream while it is connected; the page polls only while it is not.
  const stream = useJobStream(org, props.endpoint, props.jobId);
  const pollMs = stream.pushing || stream.state === 'ended' ? undefined : 1000;
  const job = useResource(
    () => call('getJobStatus', jobArgs),
    `${org}/${props.endpoint}/${props.jobId}`,
    pollMs,
    (status) => isActive(status.status),
  );
  const cancel = useAction();
  const fileDownload = useAction();
  const now = useNow(1000);
  const reachable = useConsole((s) => s.reachable);

  const data = newest(job.data, stream.status);
  if (!data) {
    return (
      <section className="page">
        <PageHeader title={props.endpoint} subtitle={<a href={routeHash({ page: 'jobs' })}>← All jobs</a>} />
        <ErrorNote detail={job.error} />
        {job.loading && <Loading what="the job" />}
      </section>
    );
  }

  // While Portico does not answer, what the job is doing now is unknown: no live view, no question to answer.
  const active = isActive(data.status) && reachable;
  const elapsed = data.started_at
    ? (data.completed_at ? Date.parse(data.completed_at) : now) - Date.parse(data.started_at)
    : 0;
  const question = reachable ? pendingQuestion(data) : undefined;
  // Every screenshot is a step, the one taken when a job fails included.
  const shots = data.steps;
  const input = startedWith(data);
  const history = questionHistory(data);
  const extraction = extractionOf(data);
  const receipt = submissionOf(data);
  const doCancel = () =>
    cancel.run(async () => {
      await call('cancelJob', jobArgs);
      showToast('Cancellation requested');
      job.reload();
    });
  const doDownload = (what: 'downloads' | 'screenshots' | 'recording') =>
    void fileDownload.run(() => {
      if (what === 'recording') return downloadFile(`recording_${props.jobId}.webm`, 'getJobRecording', jobArgs);
      return what === 'downloads'
        ? downloadFile(`downloads_${props.jobId}.zip`, 'getJobDownloads', jobArgs)
        : downloadFile(`screenshots_${props.jobId}.tar.gz`, 'getJobScreenshots', jobArgs);
    });

  return (
    <section className="page job-page" data-updates={stream.pushing ? 'pushed' : 'polled'}>
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
        actions={
          active ? (
            <ConfirmButton
              label="Cancel job"
              confirm="Yes, cancel it"
              onConfirm={() => void doCancel()}
              disabled={cancel.busy}
            />
          ) : (
            <RunAgain org={org} endpoint={props.endpoint} job={data} />
          )
        }
      />
      <ErrorNote detail={cancel.error} />
      <ErrorNote detail={job.error} title="Could not refresh:" />

      <section className="stats" aria-label="Progress">
        <div className="stat">
          <span className="stat-value" data-testid="steps">
            {data.steps}
          </span>
          <span className="stat-label">steps</span>
        </div>
        <div className="stat">
          <span className="stat-value">{data.started_at ? formatDuration(elapsed) : '—'}</span>
          <span className="stat-label">{active ? 'elapsed' : 'duration'}</span>
        </div>
        <div className="stat">
          <span className="stat-value">{data.credits}</span>
          <span className="stat-label">credits</span>
        </div>
        <div className="stat">
          <span className="stat-value mono small">{data.orchestrator_model}</span>
          <span className="stat-label">model</span>
        </div>
        {active && (
          <div className={`progress ${data.status}`} aria-hidden>
            <span />
          </div>
        )}
      </section>

      {question && (
        <QuestionCard
          org={org}
          endpoint={props.endpoint}
          jobId={data.job_id}
          question={question}
          onAnswered={() => {
            showToast('Answer sent');
            job.reload();
          }}
        />
      )}

      {data.status === 'failed' && data.error !== null && (
        <div className="failure" role="alert">
          <strong>The job failed.</strong> {data.error}
        </div>
      )}
      {data.status === 'cancelled' && (
        <div className="notice">This job was cancelled{data.error ? `: ${data.error}` : ''}.</div>
      )}
      {data.status === 'queued' && (
        <div className="notice">Waiting for a free slot or for its browser profile to be released.</div>
      )}

      <div className="job-grid">
        {data.browser_url !== null && active && (
          <div className="panel live-panel">
            <div className="panel-title">
              Live browser <span className="muted">— click to take over</span>
            </div>
            <iframe className="live" title="Live view of the job's browser" src={pageUrl(data.browser_url)} />
          </div>
        )}
        {data.status === 'completed' && (
          <div className="panel">
            <div className="panel-title">Result</div>
            <JsonBlock value={data.result} label="Result JSON" />
            {data.downloads_link !== null && (
              <p>
                <button
                  type="button"
                  className="ghost"
                  disabled={fileDownload.busy}
                  onClick={() => doDownload('downloads')}
                >
                  Download the files this job fetched
                </button>
              </p>
            )}
          </div>
        )}
        <LogStream stream={stream} />
      </div>
      {data.status === 'completed' && <SampleReceived endpoint={props.endpoint} reference={referenceOf(data.result)} />}

      {receipt && <SubmissionReceipt receipt={receipt} />}

      {extraction && (
        <section className="panel" aria-label="Read from documents">
          <div className="panel-title">
            Read from documents <span className="muted">— {extraction.extractor}</span>
          </div>
          <p className="small">
            <a href={routeHash({ page: 'documents', bundleId: extraction.document_bundle_id })}>
              Open the document bundle
            </a>
          </p>
          <SourcedValues
            values={extraction.form_data}
            sources={extraction.sources}
            hiddenKeys={extraction.hidden_keys}
          />
          {extraction.missing.length > 0 && (
            <ul className="missing-keys" aria-label="Not settled by the documents">
              {extraction.missing.map((key) => (
                <li key={key}>
                  <span className="mono">{key}</span>: {extraction.reasons[key] ?? 'nothing in the documents gives it'}
                </li>
              ))}
            </ul>
          )}
        </section>
      )}

      <div className="job-grid">
        <div className="panel">
          <div className="panel-title">Input data</div>
          {input?.form_data ? (
            <JsonBlock value={input.form_data} label="Input data" />
          ) : (
            <p className="muted">Not recorded for this job.</p>
          )}
          {input?.max_turns !== undefined && (
            <p className="muted small">
              At most {input.max_turns} steps, {input.timeout_minutes} min;{' '}
              {input.human_in_the_loop ? 'asks you when data is missing' : 'fails instead of asking'}.
            </p>
          )}
        </div>
        <div className="panel">
          <div className="panel-title">Questions and answers</div>
          {history.length === 0 ? (
            <p className="muted">The job asked nothing.</p>
          ) : (
            <ol className="qa-history" aria-label="Questions and answers">
              {history.map((entry) => (
                <li key={entry.question.question_id}>
                  <strong>{entry.question.question}</strong>
                  {entry.question.message !== '' && <span className="muted"> — {entry.question.message}</span>}
                  <div>
                    {entry.answer !== undefined ? (
                      <>
                        Answered: <span className="answer">{entry.answer}</span>
                      </>
                    ) : (
                      <span className="muted">
                        {data.status === 'waiting_for_input' ? 'Waiting for your answer' : 'Not answered'}
                      </span>
                    )}
                  </div>
                </li>
              ))}
            </ol>
          )}
        </div>
      </div>

      <div className="panel">
        <div className="panel-title">Screenshots</div>
        {!active && data.has_screenshots && (
          <p>
            <button
              type="button"
              className="ghost"
              disabled={fileDownload.busy}
              onClick={() => doDownload('screenshots')}
            >
              Download screenshots
            </button>
            {data.video_recording_url !== null && (
              <>
                {' '}
                <button
                  type="button"
                  className="ghost"
                  disabled={fileDownload.busy}
                  onClick={() => doDownload('recording')}
                >
                  Download the screen recording
                </button>
              </>
            )}
          </p>
        )}
        <ErrorNote detail={fileDownload.error} title="Could not download:" />
        <Filmstrip
          org={org}
          endpoint={props.endpoint}
          jobId={data.job_id}
          count={shots}
          captions={captionsOf(data, shots)}
        />
        {!active && data.video_recording_url !== null && (
          <RecordingPlayer org={org} endpoint={props.endpoint} jobId={data.job_id} />
        )}
      </div>
    </section>
  );
}
