import { useEffect, useRef, useState } from 'react';
import { blobUrl } from '../api.ts';

/**
 * Thumbnails of each step's screenshot; one opens large. Loaded with the console token, one by one, and
 * each step only once: a new step fetches just its own screenshot (the page is remounted per job).
 */
export function Filmstrip(props: { org: string; endpoint: string; jobId: string; count: number }) {
  const [urls, setUrls] = useState<(string | null)[]>([]);
  const [open, setOpen] = useState<number>();
  const fetched = useRef(new Map<number, string>());
  const inFlight = useRef(new Set<number>());
  const mounted = useRef(true);

  useEffect(() => {
    mounted.current = true;
    const cache = fetched.current;
    return () => {
      mounted.current = false;
      for (const url of cache.values()) URL.revokeObjectURL(url);
      cache.clear();
    };
  }, []);

  useEffect(() => {
    const load = async () => {
      for (let index = 0; index < props.count; index++) {
        if (!mounted.current) return;
        if (fetched.current.has(index) || inFlight.current.has(index)) continue;
        inFlight.current.add(index);
        const url = await blobUrl('getJobScreenshot', { params: { org_id: props.org, endpoint_name: props.endpoint, index }, query: { job_id: props.jobId } }).catch(() => null);
        inFlight.current.delete(index);
        if (url === null) continue;
        if (!mounted.current) {
          URL.revokeObjectURL(url);
          return;
        }
        fetched.current.set(index, url);
        setUrls((previous) => { const next = [...previous]; next[index] = url; return next; });
      }
    };
    void load();
  }, [props.org, props.endpoint, props.jobId, props.count]);

  const shown = urls.map((url, index) => ({ url, index })).filter((s): s is { url: string; index: number } => s.url !== null && s.url !== undefined);
  if (props.count === 0) return <p className="muted">No screenshots yet: one is taken at every step.</p>;
  const current = open !== undefined ? shown.find((s) => s.index === open) : undefined;
  return (
    <div>
      <ul className="filmstrip" aria-label="Step screenshots">
        {shown.map((s) => (
          <li key={s.index}>
            <button type="button" className={open === s.index ? 'frame selected' : 'frame'} aria-pressed={open === s.index} onClick={() => setOpen(open === s.index ? undefined : s.index)} aria-label={`Step ${s.index + 1} screenshot`}>
              <img src={s.url} alt="" loading="lazy" />
              <span aria-hidden>Step {s.index + 1}</span>
            </button>
          </li>
        ))}
      </ul>
      {current && (
        <figure className="shot-large">
          <img src={current.url} alt={`Step ${current.index + 1}, full size`} data-testid="screenshot-large" />
          <figcaption>Step {current.index + 1} of {shown.length}</figcaption>
        </figure>
      )}
    </div>
  );
}
