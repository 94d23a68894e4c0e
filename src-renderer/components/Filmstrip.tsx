import { useEffect, useRef, useState } from 'react';
import { blobUrl } from '../api.ts';

/** What one screenshot shows: its name ("Step 2", "Failure screenshot") and what the step did. */
export interface ShotCaption {
  title: string;
  caption: string;
}

/**
 * Thumbnails of each step's screenshot, captioned with what the step did; one opens large. Loaded with the console token, one by one, and
 * each step only once: a new step fetches just its own screenshot (the page is remounted per job).
 */
export function Filmstrip(props: {
  org: string;
  endpoint: string;
  jobId: string;
  count: number;
  captions: ShotCaption[];
}) {
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
        const url = await blobUrl('getJobScreenshot', {
          params: { org_id: props.org, endpoint_name: props.endpoint, index },
          query: { job_id: props.jobId },
        }).catch(() => null);
        inFlight.current.delete(index);
        if (url === null) continue;
        if (!mounted.current) {
          URL.revokeObjectURL(url);
          return;
        }
        fetched.current.set(index, url);
        setUrls((previous) => {
          const next = [...previous];
          next[index] = url;
          return next;
        });
      }
    };
    void load();
  }, [props.org, props.endpoint, props.jobId, props.count]);

  const shown = urls
    .map((url, index) => ({ url, index }))
    .filter((s): s is { url: string; index: number } => s.url !== null && s.url !== undefined);
  if (props.count === 0) return <p className="muted">No screenshots yet: one is taken at every step.</p>;
  const current = open !== undefined ? shown.find((s) => s.index === open) : undefined;
  const titleOf = (index: number) => props.captions[index]?.title ?? `Step ${index + 1}`;
  const captionOf = (index: number) => props.captions[index]?.caption ?? '';
  return (
    <div>
      <ul className="filmstrip" aria-label="Step screenshots">
        {shown.map((s) => (
          <li key={s.index}>
            {/* The visible title and caption are the button's name ("Step 2 screenshot: read the title"). */}
            <button
              type="button"
              className={open === s.index ? 'frame selected' : 'frame'}
              aria-pressed={open === s.index}
              onClick={() => setOpen(open === s.index ? undefined : s.index)}
            >
              <img src={s.url} alt="" loading="lazy" />
              <span className="frame-title">
                {titleOf(s.index)}
                {titleOf(s.index).startsWith('Step') && <span className="sr-only"> screenshot</span>}
              </span>
              {captionOf(s.index) !== '' && (
                <span className="frame-caption">
                  <span className="sr-only">: </span>
                  {captionOf(s.index)}
                </span>
              )}
            </button>
          </li>
        ))}
      </ul>
      {current && (
        <figure className="shot-large">
          <img src={current.url} alt={`${titleOf(current.index)}, full size`} data-testid="screenshot-large" />
          <figcaption>
            {titleOf(current.index)} ({current.index + 1} of {shown.length})
            {captionOf(current.index) !== '' ? ` — ${captionOf(current.index)}` : ''}
          </figcaption>
        </figure>
      )}
    </div>
  );
}
