import { useEffect, useState } from 'react';
import { blobUrl, errorDetail } from '../api.ts';

/** The job's screen recording, played in the page: fetched once with the console token (a `<video src>` could not send it). */
export function RecordingPlayer(props: { org: string; endpoint: string; jobId: string }) {
  const [url, setUrl] = useState<string>();
  const [error, setError] = useState<string>();

  useEffect(() => {
    let alive = true;
    let loaded: string | undefined;
    setUrl(undefined);
    setError(undefined);
    blobUrl('getJobRecording', {
      params: { org_id: props.org, endpoint_name: props.endpoint },
      query: { job_id: props.jobId },
    })
      .then((objectUrl) => {
        if (!alive) {
          URL.revokeObjectURL(objectUrl);
          return;
        }
        loaded = objectUrl;
        setUrl(objectUrl);
      })
      .catch((err: unknown) => {
        if (alive) setError(errorDetail(err));
      });
    return () => {
      alive = false;
      if (loaded !== undefined) URL.revokeObjectURL(loaded);
    };
  }, [props.org, props.endpoint, props.jobId]);

  if (error !== undefined) return <p className="muted">The screen recording could not be loaded: {error}</p>;
  if (url === undefined) return <p className="muted">Loading the screen recording…</p>;
  return (
    <figure className="recording">
      {/* biome-ignore lint/a11y/useMediaCaption: a silent screen recording has no speech to caption; the figcaption says what it shows */}
      <video
        controls
        preload="metadata"
        src={url}
        aria-label="Screen recording of the job"
        style={{ maxWidth: '100%' }}
      />
      <figcaption className="muted">Screen recording (password fields are masked)</figcaption>
    </figure>
  );
}
