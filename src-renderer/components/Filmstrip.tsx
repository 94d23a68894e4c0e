import { useEffect, useState } from 'react';
import { blobUrl } from '../api.ts';

/** Thumbnails of each step's screenshot; one opens large. Loaded with the console token, one by one. */
export function Filmstrip(props: { basePath: string; jobId: string; count: number }) {
  const [urls, setUrls] = useState<(string | null)[]>([]);
  const [open, setOpen] = useState<number>();

  useEffect(() => {
    let cancelled = false;
    const made: string[] = [];
    const load = async () => {
      for (let index = 0; index < props.count; index++) {
        if (cancelled) return;
        const url = await blobUrl(`${props.basePath}/screenshots/${index}?job_id=${encodeURIComponent(props.jobId)}`).catch(() => null);
        if (url) made.push(url);
        if (!cancelled) setUrls((previous) => { const next = [...previous]; next[index] = url; return next; });
      }
    };
    void load();
    return () => {
      cancelled = true;
      for (const url of made) URL.revokeObjectURL(url);
    };
  }, [props.basePath, props.jobId, props.count]);

  const shown = urls.map((url, index) => ({ url, index })).filter((s): s is { url: string; index: number } => s.url !== null && s.url !== undefined);
  if (props.count === 0) return <p className="muted">No screenshots yet: one is taken at every step.</p>;
  const current = open !== undefined ? shown.find((s) => s.index === open) : undefined;
  return (
    <div>
      <ul className="filmstrip" aria-label="Step screenshots">
        {shown.map((s) => (
          <li key={s.index}>
            <button type="button" className={open === s.index ? 'frame selected' : 'frame'} aria-pressed={open === s.index} onClick={() => setOpen(open === s.index ? undefined : s.index)} aria-label={`Step ${s.index + 1} screenshot`}>
              <img src={s.url} alt="" />
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
