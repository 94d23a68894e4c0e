import { call } from '../api.ts';
import { useResource } from '../hooks.ts';
import { useConsole } from '../store.ts';

/**
 * For a job on a sample portal: what the sample site itself recorded for the reference the job
 * reported — the other side of the submission, not what the job says it sent.
 */
export function SampleReceived(props: { endpoint: string; reference: string | undefined }) {
  const org = useConsole((s) => s.org);
  const samples = useResource(() => call('listSamples', { params: { org_id: org } }), org);
  const isSample = (samples.data?.samples ?? []).some((s) => s.portal_exists && s.endpoint_name === props.endpoint);
  if (!isSample || !props.reference) return null;
  return <Received org={org} reference={props.reference} />;
}

function Received(props: { org: string; reference: string }) {
  const received = useResource(
    () => call('getSampleSubmission', { params: { org_id: props.org, reference: props.reference } }),
    `${props.org}/${props.reference}`,
  );
  if (!received.data) return null;
  return (
    <section className="panel" aria-label="What the sample form received">
      <div className="panel-title">
        What the sample form received <span className="muted">— {received.data.reference}</span>
      </div>
      <dl className="pairs">
        {Object.entries(received.data.fields).map(([name, value]) => (
          <div key={name}>
            <dt>{name}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
