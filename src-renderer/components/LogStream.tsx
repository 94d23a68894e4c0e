import { useEffect, useRef, useState } from 'react';
import type { JobLogEvent, JobStatusResponse } from '../../src-main/contract/job.ts';
import { errorDetail, readEventStream } from '../api.ts';
import { isActive } from '../format.ts';

/** The slowest reconnect of a dropped stream (the page polls meanwhile). */
const MAX_RECONNECT_MS = 30_000;

export interface JobStream {
  lines: JobLogEvent[];
  /** `live`: connected; `ended`: the job ended and the stream closed; `error`: cut or refused (reconnecting while the job runs). */
  state: 'live' | 'ended' | 'error';
  error: string | undefined;
  /** The newest status the stream pushed; undefined until the first arrives after each (re)connect. */
  status: JobStatusResponse | undefined;
  /** True while connected and pushing status: the job page need not poll. */
  pushing: boolean;
}

/**
 * The job's log stream with pushed status (`status=true`): log lines replayed from the first and followed
 * live, the status response after each change, and a reconnect (backing off) when the stream drops.
 */
export function useJobStream(org: string, endpoint: string, jobId: string): JobStream {
  const [lines, setLines] = useState<JobLogEvent[]>([]);
  const [state, setState] = useState<JobStream['state']>('live');
  const [error, setError] = useState<string>();
  const [status, setStatus] = useState<JobStatusResponse>();
  const [pushing, setPushing] = useState(false);
  const [attempt, setAttempt] = useState(0);
  const failures = useRef(0);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `attempt` reconnects
  useEffect(() => {
    const abort = new AbortController();
    let ended = false;
    let lastStatus: JobStatusResponse | undefined;
    let retry: ReturnType<typeof setTimeout> | undefined;
    setState('live');
    setPushing(false);
    const dropped = (detail: string | undefined) => {
      setPushing(false);
      setError(detail);
      setState('error');
      // Reconnect while the job may still change; the page polls until then.
      if (lastStatus !== undefined && !isActive(lastStatus.status)) return;
      failures.current += 1;
      retry = setTimeout(() => setAttempt((n) => n + 1), Math.min(1000 * 2 ** failures.current, MAX_RECONNECT_MS));
    };
    readEventStream(
      (event) => {
        if (event.event === 'log') {
          const line = JSON.parse(event.data) as JobLogEvent;
          setLines((previous) => (previous.some((l) => l.seq === line.seq) ? previous : [...previous, line]));
        } else if (event.event === 'status') {
          lastStatus = JSON.parse(event.data) as JobStatusResponse;
          failures.current = 0;
          setStatus(lastStatus);
          setError(undefined);
          setPushing(true);
        } else if (event.event === 'end') {
          ended = true;
          setPushing(false);
          setState('ended');
        }
      },
      abort.signal,
      'streamJobLogs',
      { params: { org_id: org, endpoint_name: endpoint }, query: { job_id: jobId, status: 'true' } },
    ).then(
      // A stream that stops without its `end` event was cut (the service stopped), not completed.
      () => {
        if (!abort.signal.aborted && !ended) dropped(undefined);
      },
      (failure: unknown) => {
        if (!abort.signal.aborted) dropped(errorDetail(failure));
      },
    );
    return () => {
      abort.abort();
      clearTimeout(retry);
    };
  }, [org, endpoint, jobId, attempt]);

  return { lines, state, error, status, pushing };
}

/** The job's log, replayed from the first line and followed live until the job ends. */
export function LogStream(props: { stream: JobStream }) {
  const { lines, state, error } = props.stream;
  const box = useRef<HTMLDivElement>(null);

  // biome-ignore lint/correctness/useExhaustiveDependencies: runs after each new line to keep the newest in view
  useEffect(() => {
    const el = box.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [lines]);

  return (
    <div className="log-panel">
      <div className="panel-title">
        Log <span className={`dot dot-${state}`} aria-hidden />{' '}
        <span className="muted">{state === 'live' ? 'following' : state === 'ended' ? 'complete' : 'interrupted'}</span>
      </div>
      {error !== undefined && (
        <div className="error-note" role="alert">
          {error}
        </div>
      )}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: the log scrolls, so it must take focus for the keyboard to scroll it (WCAG 2.1.1) */}
      <div className="log" role="log" ref={box} tabIndex={0} aria-label="Job log" data-testid="log">
        {lines.length === 0 && <span className="muted">No log lines yet.</span>}
        {lines.map((l) => (
          <div key={l.seq} className="log-line">
            <time>{new Date(l.timestamp).toLocaleTimeString()}</time> {l.line}
          </div>
        ))}
      </div>
    </div>
  );
}
