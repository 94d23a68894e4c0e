import { useState } from 'react';
import { call } from '../api.ts';
import { useResource } from '../hooks.ts';
import { useConsole } from '../store.ts';
import { ErrorNote } from './ui.tsx';

/**
 * The first job a newcomer can run: the org's sample portals (served by Portico itself, offline), each
 * started with its example data; the job's page (live view, steps, result) opens at once.
 */
export function RunSample() {
  const org = useConsole((s) => s.org);
  const navigate = useConsole((s) => s.navigate);
  const samples = useResource(() => call('listSamples', { params: { org_id: org } }), org);
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const runnable = (samples.data?.samples ?? []).filter((s) => s.portal_exists);
  if (!runnable.length) return null;
  const run = async (endpoint: string, formData: Record<string, unknown>, asksHuman: boolean): Promise<void> => {
    setBusy(true);
    setError(undefined);
    try {
      const { job_id } = await call('startJob', {
        params: { org_id: org, endpoint_name: endpoint },
        body: { form_data: formData, ...(asksHuman && { human_in_the_loop: true }) },
      });
      navigate({ page: 'job', endpoint, jobId: job_id });
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      setBusy(false);
    }
  };
  return (
    <div className="run-sample">
      <p>See a job from start to finish on a sample form Portico serves itself (nothing leaves this machine):</p>
      <div className="actions">
        {runnable.map((s) => (
          <button
            key={s.sample}
            type="button"
            className={s.asks_human ? 'button' : 'button primary'}
            disabled={busy}
            title={s.description}
            onClick={() => void run(s.endpoint_name, s.example_form_data, s.asks_human)}
          >
            {s.asks_human ? 'Run the sample that asks you' : 'Run the sample'}
          </button>
        ))}
      </div>
      <ErrorNote detail={error} title="The sample job did not start" />
    </div>
  );
}
