import { useState } from 'react';
import type { ApiKeyCreated } from '../../../src-main/contract/console.ts';
import { call } from '../../api.ts';
import { ConfirmButton, ErrorNote, SecretOnce } from '../../components/ui.tsx';
import { formatWhen } from '../../format.ts';
import { useAction, useResource } from '../../hooks.ts';
import { useConsole } from '../../store.ts';

/** Org API keys for scripts: created (secret shown once), listed by prefix, revoked; the org's account keys listed with their workspace, revocable. */
export function KeysSection() {
  const org = useConsole((s) => s.org);
  const keys = useResource(() => call('listOrgKeys', { params: { org_id: org } }), org);
  const [created, setCreated] = useState<ApiKeyCreated>();
  const action = useAction();
  const create = () =>
    action.run(async () => {
      setCreated(await call('createOrgKey', { params: { org_id: org } }));
      keys.reload();
    });
  const revoke = (id: string) =>
    action.run(async () => {
      await call('revokeOrgKey', { params: { org_id: org, key_id: id } });
      keys.reload();
    });
  const orgKeys = (keys.data?.keys ?? []).filter((k) => k.kind === 'org');
  const live = orgKeys.filter((k) => k.revoked_at === null);
  const revoked = orgKeys.filter((k) => k.revoked_at !== null);
  // Account keys are made with `portico user create`; listed here so one can be revoked by sight.
  const accountKeys = (keys.data?.keys ?? []).filter((k) => k.kind === 'account' && k.revoked_at === null);
  return (
    <section className="panel settings-section" aria-labelledby="keys-title">
      <div className="section-head">
        <div>
          <h2 id="keys-title">API keys</h2>
          <p className="muted">
            Scripts send one as <code>X-API-Key</code> to act for organization <strong>{org}</strong>.
          </p>
        </div>
        <button type="button" className="primary" onClick={() => void create()} disabled={action.busy}>
          Create API key
        </button>
      </div>
      {created && <SecretOnce label="New API key" secret={created.api_key} onDone={() => setCreated(undefined)} />}
      <ErrorNote detail={action.error ?? keys.error} />
      {keys.data && live.length === 0 && <p className="muted">No live keys: create one for your scripts.</p>}
      {live.length > 0 && (
        <>
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls sideways must take focus so the keyboard can scroll it (WCAG 2.1.1) */}
          <section className="table-scroll" tabIndex={0} aria-label="API keys table">
            <table className="table compact" aria-label="API keys">
              <thead>
                <tr>
                  <th>Key</th>
                  <th>Created</th>
                  <th aria-label="Actions" />
                </tr>
              </thead>
              <tbody>
                {live.map((key) => (
                  <tr key={key.id}>
                    <td className="mono">{key.prefix}…</td>
                    <td>{formatWhen(key.created_at)}</td>
                    <td className="row-actions">
                      <ConfirmButton label="Revoke" confirm="Revoke key" onConfirm={() => void revoke(key.id)} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        </>
      )}
      {accountKeys.length > 0 && (
        <>
          <h3 id="account-keys-title">Account keys</h3>
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls sideways must take focus so the keyboard can scroll it (WCAG 2.1.1) */}
          <section className="table-scroll" tabIndex={0} aria-label="Account keys table">
            <table className="table compact" aria-labelledby="account-keys-title">
              <thead>
                <tr>
                  <th>Key</th>
                  <th>Workspace</th>
                  <th>User</th>
                  <th>Created</th>
                  <th aria-label="Actions" />
                </tr>
              </thead>
              <tbody>
                {accountKeys.map((key) => (
                  <tr key={key.id}>
                    <td className="mono">{key.prefix}…</td>
                    <td>{key.workspace_id}</td>
                    <td>{key.user_id}</td>
                    <td>{formatWhen(key.created_at)}</td>
                    <td className="row-actions">
                      <ConfirmButton label="Revoke" confirm="Revoke key" onConfirm={() => void revoke(key.id)} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        </>
      )}
      {revoked.length > 0 && (
        <p className="muted small">
          {revoked.length === 1 ? '1 revoked key no longer works.' : `${revoked.length} revoked keys no longer work.`}
        </p>
      )}
    </section>
  );
}
