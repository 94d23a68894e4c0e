import { useEffect, useRef, useState } from 'react';
import type { JobLogEvent } from '../../src-main/contract/job.ts';
import { errorDetail, readEventStream } from '../api.ts';

/** The job's log, replayed from the first line and followed live until the job ends. */
export function LogStream(props: { org: string; endpoint: string; jobId: string }) {
  const [lines, setLines] = useState<JobLogEvent[]>([]);
  const [state, setState] = useState<'live' | 'ended' | 'error'>('live');
  const [error, setError] = useState<string>();
  const box = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const abort = new AbortController();
    setLines([]);
    setState('live');
    let ended = false;
    readEventStream(
      (event) => {
        if (event.event === 'log') {
          const line = JSON.parse(event.data) as JobLogEvent;
          setLines((previous) => (previous.some((l) => l.seq === line.seq) ? previous : [...previous, line]));
        } else if (event.event === 'end') {
          ended = true;
          setState('ended');
        }
      },
      abort.signal,
      'streamJobLogs',
      { params: { org_id: props.org, endpoint_name: props.endpoint }, query: { job_id: props.jobId } },
    ).then(
      // A stream that stops without its `end` event was cut (the service stopped), not completed.
      () => {
        if (!abort.signal.aborted) setState(ended ? 'ended' : 'error');
      },
      (failure: unknown) => {
        if (abort.signal.aborted) return;
        setError(errorDetail(failure));
        setState('error');
      },
    );
    return () => abort.abort();
  }, [props.org, props.endpoint, props.jobId]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: runs after each new line to keep the newest in view
  useEffect(() => {
    const el = box.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [lines]);

  return (
    <div className="log-panel">
      <div className="panel-title">
        Log <span className={`dot dot-${state}`} aria-hidden /> <span className="muted">{state === 'live' ? 'following' : state === 'ended' ? 'complete' : 'interrupted'}</span>
      </div>
      {error !== undefined && <div className="error-note" role="alert">{error}</div>}
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
