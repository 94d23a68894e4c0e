import { Fragment, useState } from 'react';
import { call } from '../../api.ts';
import { ConfirmButton, ErrorNote, JsonBlock, SecretOnce } from '../../components/ui.tsx';
import { formatWhen } from '../../format.ts';
import { useAction, useResource } from '../../hooks.ts';
import { useConsole } from '../../store.ts';

/** The org's webhook signing key: generate, rotate, revoke; the secret is shown once. */
function SigningKey() {
  const org = useConsole((s) => s.org);
  const status = useResource(() => call('getWebhookKey', { params: { org_id: org } }), org);
  const [secret, setSecret] = useState<string>();
  const action = useAction();
  const generate = () =>
    action.run(async () => {
      setSecret((await call('createWebhookKey', { params: { org_id: org } })).secret);
      status.reload();
    });
  const revoke = () =>
    action.run(async () => {
      await call('revokeWebhookKey', { params: { org_id: org } });
      setSecret(undefined);
      status.reload();
    });
  const configured = status.data?.configured === true;
  return (
    <div className="subsection">
      <div className="section-head">
        <div>
          <h3>Signing key</h3>
          <p className="muted" data-testid="webhook-key-status">
            {status.data === undefined
              ? ' '
              : configured
                ? `Active key ${status.data.prefix ?? ''}… since ${formatWhen(status.data.created_at ?? '')}. Receivers verify the HMAC-SHA256 signature with it.`
                : 'No signing key: webhooks are not sent until one is generated.'}
          </p>
        </div>
        <div className="actions">
          <button type="button" className="primary" onClick={() => void generate()} disabled={action.busy}>
            {configured ? 'Rotate key' : 'Generate key'}
          </button>
          {configured && <ConfirmButton label="Revoke" confirm="Revoke signing key" onConfirm={() => void revoke()} />}
        </div>
      </div>
      {secret !== undefined && (
        <SecretOnce label="Webhook signing secret" secret={secret} onDone={() => setSecret(undefined)} />
      )}
      <ErrorNote detail={action.error ?? status.error} />
    </div>
  );
}

/** Deliveries with their attempts; any delivery that is not pending can be sent again. */
function Deliveries() {
  const org = useConsole((s) => s.org);
  const deliveries = useResource(
    () => call('listDeliveries', { params: { org_id: org }, query: { limit: 50 } }),
    org,
    2000,
  );
  const [open, setOpen] = useState<string>();
  const action = useAction();
  const redeliver = (id: string) =>
    action.run(async () => {
      await call('redeliver', { params: { org_id: org, delivery_id: id } });
      deliveries.reload();
    });
  const list = deliveries.data?.deliveries ?? [];
  return (
    <div className="subsection">
      <h3>Deliveries</h3>
      <ErrorNote detail={action.error ?? deliveries.error} />
      {deliveries.data && list.length === 0 && (
        <p className="muted">
          No deliveries yet. Give a portal a webhook URL; each finished job, failure or question is sent there.
        </p>
      )}
      {list.length > 0 && (
        <>
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls sideways must take focus so the keyboard can scroll it (WCAG 2.1.1) */}
          <section className="table-scroll" tabIndex={0} aria-label="Webhook deliveries table">
            <table className="table compact" aria-label="Webhook deliveries">
              <thead>
                <tr>
                  <th>Event</th>
                  <th>URL</th>
                  <th>Status</th>
                  <th className="num">Attempts</th>
                  <th>When</th>
                  <th aria-label="Actions" />
                </tr>
              </thead>
              <tbody>
                {list.map((d) => (
                  <Fragment key={d.id}>
                    <tr>
                      <td>{d.event_type}</td>
                      <td className="mono ellipsis" title={d.url}>
                        {d.url}
                      </td>
                      <td>
                        <span className={`pill pill-${d.status}`}>
                          {d.status}
                          {d.last_status_code !== null ? ` · ${d.last_status_code}` : ''}
                        </span>
                      </td>
                      <td className="num" title="Attempts sent, redeliveries included">
                        {d.attempt_log.length}
                      </td>
                      <td>{formatWhen(d.created_at)}</td>
                      <td className="row-actions">
                        <button
                          type="button"
                          className="ghost"
                          aria-expanded={open === d.id}
                          onClick={() => setOpen(open === d.id ? undefined : d.id)}
                        >
                          Attempts
                        </button>
                        <button
                          type="button"
                          className="ghost"
                          disabled={d.status === 'pending' || action.busy}
                          onClick={() => void redeliver(d.id)}
                        >
                          Redeliver
                        </button>
                      </td>
                    </tr>
                    {open === d.id && (
                      <tr className="detail-row">
                        <td colSpan={6}>
                          {d.attempt_log.length === 0 ? (
                            <p className="muted">Not attempted yet.</p>
                          ) : (
                            <ol className="attempts" aria-label="Attempts">
                              {d.attempt_log.map((a, i) => (
                                // A redelivery starts counting at 1 again, so the attempt number alone is not unique.
                                <li
                                  key={`${a.attempt}-${a.started_at}`}
                                  className={
                                    a.status_code !== null && a.status_code < 300 ? 'attempt-ok' : 'attempt-bad'
                                  }
                                >
                                  {a.attempt === 1 && i > 0 ? 'Redelivery, attempt 1' : `Attempt ${a.attempt}`} ·{' '}
                                  {formatWhen(a.started_at)}:{' '}
                                  {a.status_code !== null ? `HTTP ${a.status_code}` : 'no answer'} in {a.duration_ms} ms
                                  {a.error && a.error !== `HTTP ${a.status_code}` ? ` — ${a.error}` : ''}
                                </li>
                              ))}
                            </ol>
                          )}
                          {d.last_error && <p className="error-text">{d.last_error}</p>}
                          <details className="payload">
                            <summary>Payload</summary>
                            <JsonBlock value={d.payload} label="Payload" />
                          </details>
                        </td>
                      </tr>
                    )}
                  </Fragment>
                ))}
              </tbody>
            </table>
          </section>
        </>
      )}
    </div>
  );
}

export function WebhooksSection() {
  return (
    <section className="panel settings-section" aria-labelledby="webhooks-title">
      <h2 id="webhooks-title">Webhooks</h2>
      <SigningKey />
      <Deliveries />
    </section>
  );
}
