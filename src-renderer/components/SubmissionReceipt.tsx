import type { JobEventData } from '../../src-main/contract/job.ts';

/** What the builtin filler saw the form send (the job's `submission` event): where, what, the body's hash, the answer, and which values were checked. */
export function SubmissionReceipt(props: { receipt: JobEventData<'submission'> }) {
  const r = props.receipt;
  const fields = Object.entries(r.fields);
  const answered = r.response_status === null ? 'no answer' : `HTTP ${r.response_status}`;
  return (
    <section className="panel" aria-label="Submission receipt">
      <div className="panel-title">
        What was sent <span className="muted">— {answered}</span>
      </div>
      <p className="small">
        <span className="mono">{r.method}</span>{' '}
        <span className="mono" data-testid="receipt-url">
          {r.url}
        </span>
      </p>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls sideways must take focus so the keyboard can scroll it (WCAG 2.1.1) */}
      <section className="table-scroll" tabIndex={0} aria-label="Fields sent table">
        <table className="table compact" aria-label="Fields sent">
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">Value sent</th>
            </tr>
          </thead>
          <tbody>
            {fields.map(([name, value]) => (
              <tr key={name}>
                <td className="mono">{name}</td>
                <td>{Array.isArray(value) ? value.join(', ') : value}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <p className="small">
        Checked before sending:{' '}
        <span data-testid="receipt-verified">{r.verified.length ? r.verified.join(', ') : 'none'}</span>
      </p>
      {r.unverified.length > 0 && (
        <p className="small error-text">
          Not found in what was sent (unverified):{' '}
          <span data-testid="receipt-unverified">{r.unverified.join(', ')}</span>
        </p>
      )}
      {(r.approved?.length ?? 0) > 0 && <p className="small">Sent changed, as you chose: {r.approved?.join(', ')}</p>}
      {r.body_sha256 !== null && (
        <p className="small muted">
          Body sha256 <span className="mono">{r.body_sha256}</span>
        </p>
      )}
    </section>
  );
}
