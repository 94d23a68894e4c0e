import { useEffect, useRef, useState } from 'react';
import { errorDetail, readEventStream } from '../api.ts';

interface LogLine {
  seq: number;
  timestamp: string;
  line: string;
}

/** The job's log, replayed from the first line and followed live until the job ends. */
export function LogStream(props: { path: string }) {
  const [lines, setLines] = useState<LogLine[]>([]);
  const [state, setState] = useState<'live' | 'ended' | 'error'>('live');
  const [error, setError] = useState<string>();
  const box = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const abort = new AbortController();
    setLines([]);
    setState('live');
    readEventStream(
      props.path,
      (event) => {
        if (event.event === 'log') {
          const line = JSON.parse(event.data) as LogLine;
          setLines((previous) => (previous.some((l) => l.seq === line.seq) ? previous : [...previous, line]));
        } else if (event.event === 'end') {
          setState('ended');
        }
      },
      abort.signal,
    ).then(
      () => setState((s) => (s === 'live' ? 'ended' : s)),
      (failure: unknown) => {
        if (abort.signal.aborted) return;
        setError(errorDetail(failure));
        setState('error');
      },
    );
    return () => abort.abort();
  }, [props.path]);

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
      <div className="log" ref={box} tabIndex={0} aria-label="Job log" data-testid="log">
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
