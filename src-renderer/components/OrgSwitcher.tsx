import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { ApiKeyCreated, Org } from '../../src-main/contract/console.ts';
import { call } from '../api.ts';
import { useAction } from '../hooks.ts';
import { useConsole } from '../store.ts';
import { ErrorNote, SecretOnce } from './ui.tsx';

const orgLabel = (org: Org): string => (org.name === org.id ? org.id : `${org.name} (${org.id})`);

/**
 * A dialog (native `<dialog>`, so focus and Escape behave) that creates an organization and its first
 * API key, shown once: a new org without a key could not be used by any script.
 */
function NewOrgDialog(props: { onClosed: () => void }) {
  const { refreshOrgs, setOrg } = useConsole();
  const dialog = useRef<HTMLDialogElement>(null);
  // Mounted only while open, so its fields never sit hidden in the page.
  useEffect(() => {
    if (dialog.current && !dialog.current.open) dialog.current.showModal();
  }, []);
  const [id, setId] = useState('');
  const [name, setName] = useState('');
  const [created, setCreated] = useState<{ org: Org; key: ApiKeyCreated }>();
  const action = useAction();
  // Closing after a creation (Done, or Escape) switches to the new organization.
  const close = () => {
    if (created) setOrg(created.org.id);
    props.onClosed();
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void action.run(async () => {
      const org = await call('createOrg', {
        body: { org_id: id.trim(), ...(name.trim() !== '' && { name: name.trim() }) },
      });
      const key = await call('createOrgKey', { params: { org_id: org.id } });
      setCreated({ org, key });
      await refreshOrgs();
    });
  };
  return (
    <dialog ref={dialog} className="dialog" aria-labelledby="new-org-title" onClose={close}>
      <h2 id="new-org-title">New organization</h2>
      {created === undefined ? (
        <form onSubmit={submit} className="stack" aria-label="New organization">
          <p className="muted">An organization has its own portals, jobs, profiles, skills and keys.</p>
          <label>
            Organization id
            <input
              value={id}
              onChange={(e) => setId(e.target.value)}
              required
              pattern="[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}"
              placeholder="acme"
              autoFocus
            />
            <span className="hint">Used in API paths: letters, digits, “.”, “-” or “_”.</span>
          </label>
          <label>
            Display name (optional)
            <input value={name} onChange={(e) => setName(e.target.value)} placeholder="Acme Ltd" />
          </label>
          <ErrorNote detail={action.error} title="Not created:" />
          <div className="actions end">
            <button type="button" className="ghost" onClick={close}>
              Cancel
            </button>
            <button type="submit" className="primary" disabled={action.busy || id.trim() === ''}>
              {action.busy ? 'Creating…' : 'Create organization'}
            </button>
          </div>
        </form>
      ) : (
        <div className="stack">
          <p>
            Organization <strong>{orgLabel(created.org)}</strong> is ready. Scripts use this key to act for it.
          </p>
          <SecretOnce label="API key" secret={created.key.api_key} onDone={close} />
        </div>
      )}
    </dialog>
  );
}

/** The organization the console acts for: always visible in the sidebar, with a way to add one. */
export function OrgSwitcher() {
  const { org, orgs, setOrg } = useConsole();
  const [creating, setCreating] = useState(false);
  const opener = useRef<HTMLButtonElement>(null);
  const closed = () => {
    setCreating(false);
    opener.current?.focus();
  };
  return (
    <div className="org-switch">
      <label htmlFor="org-select" className="org-label">
        Organization
      </label>
      <select id="org-select" title={org} value={org} onChange={(e) => setOrg(e.target.value)}>
        {orgs.map((o) => (
          <option key={o.id} value={o.id} title={o.id}>
            {o.name}
          </option>
        ))}
      </select>
      <button ref={opener} type="button" className="org-new" onClick={() => setCreating(true)}>
        + New organization
      </button>
      {creating && <NewOrgDialog onClosed={closed} />}
    </div>
  );
}
