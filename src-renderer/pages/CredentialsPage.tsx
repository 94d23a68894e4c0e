import { useState, type FormEvent } from 'react';
import type { CredentialCreateRequest, CredentialListItem } from '../../src-main/contract/credential.ts';
import { call } from '../api.ts';
import { ConfirmButton, Empty, ErrorNote, Loading, PageHeader } from '../components/ui.tsx';
import { useAction, useResource } from '../hooks.ts';
import { useConsole } from '../store.ts';

/**
 * A new credential. The secrets (password, TOTP key) live only in this form's state until Save: the
 * request sends them to the keychain and the form is emptied, and nothing the console reads back holds them.
 */
function NewCredentialForm(props: { onCreated: (name: string) => void }) {
  const [serviceName, setServiceName] = useState('');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [totp, setTotp] = useState('');
  const [serviceUrl, setServiceUrl] = useState('');
  const [phone, setPhone] = useState('');
  const [gmail, setGmail] = useState('');
  // A number added for a save that then failed is reused by the next try, not added again.
  const [addedPhone, setAddedPhone] = useState<{ number: string; id: string }>();
  const accounts = useResource(() => call('listConnectedAccounts'), 'accounts');
  const create = useAction();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void create.run(async () => {
      const body: CredentialCreateRequest = { service_name: serviceName.trim() };
      if (username.trim() !== '') body.username_or_email = username.trim();
      if (password !== '') body.password = password;
      if (totp.trim() !== '') body.totp_secret = totp.trim();
      if (serviceUrl.trim() !== '') body.service_url = serviceUrl.trim();
      if (gmail !== '') body.gmail_oauth_account_id = gmail;
      const number = phone.trim();
      if (number !== '') {
        const id =
          addedPhone?.number === number
            ? addedPhone.id
            : (await call('createPhoneNumber', { body: { phone_number: number } })).id;
        setAddedPhone({ number, id });
        body.phone_number_id = id;
      }
      await call('createCredential', { body });
      setAddedPhone(undefined);
      setServiceName('');
      setUsername('');
      setPassword('');
      setTotp('');
      setServiceUrl('');
      setPhone('');
      setGmail('');
      props.onCreated(body.service_name);
    });
  };
  const connected = accounts.data ?? [];
  return (
    <form className="panel form-grid" onSubmit={submit} aria-label="New credential">
      <label>
        Service name
        <input
          required
          maxLength={200}
          value={serviceName}
          onChange={(e) => setServiceName(e.target.value)}
          placeholder="Acme supplier portal"
        />
      </label>
      <label>
        Site address
        <input
          type="url"
          value={serviceUrl}
          onChange={(e) => setServiceUrl(e.target.value)}
          placeholder="https://portal.example.com"
        />
      </label>
      <label>
        Username or email
        <input autoComplete="off" maxLength={320} value={username} onChange={(e) => setUsername(e.target.value)} />
      </label>
      <label>
        Password
        <input
          type="password"
          autoComplete="new-password"
          maxLength={1024}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
      </label>
      <label>
        TOTP secret
        <input
          type="password"
          autoComplete="off"
          maxLength={128}
          value={totp}
          onChange={(e) => setTotp(e.target.value)}
          placeholder="Base32 key the site showed with its QR code"
        />
      </label>
      <label>
        Phone number for SMS codes
        <input type="tel" value={phone} onChange={(e) => setPhone(e.target.value)} placeholder="+15551234567" />
      </label>
      <label>
        Gmail account for emailed codes
        <select value={gmail} onChange={(e) => setGmail(e.target.value)}>
          <option value="">None</option>
          {connected.map((account) => (
            <option key={account.id} value={account.id}>
              {account.oauth_user_name} ({account.oauth_app_id})
            </option>
          ))}
        </select>
      </label>
      <p className="muted small">Secrets go to the system keychain and are never shown again, here or by the API.</p>
      <div>
        <button type="submit" className="primary" disabled={create.busy || serviceName.trim() === ''}>
          {create.busy ? 'Saving…' : 'Save credential'}
        </button>
      </div>
      <ErrorNote detail={create.error} />
    </form>
  );
}

/** The default workspace's credentials: what automations sign in with. Names only; secrets never come back. */
export function CredentialsPage() {
  const showToast = useConsole((s) => s.showToast);
  const list = useResource(() => call('listCredentials'), 'credentials');
  const action = useAction();
  const remove = (credential: CredentialListItem) =>
    action.run(async () => {
      await call('deleteCredential', { params: { credential_id: credential.id } });
      showToast(`Credential ${credential.service_name} deleted`);
      list.reload();
    });
  const credentials = list.data ?? [];
  return (
    <section className="page">
      <PageHeader
        title="Credentials"
        subtitle="Sign-ins that automations use in the default workspace. Passwords and TOTP keys stay in the keychain."
      />
      <NewCredentialForm
        onCreated={(name) => {
          showToast(`Credential ${name} saved`);
          list.reload();
        }}
      />
      <ErrorNote detail={action.error} />
      <ErrorNote detail={list.error} />
      {list.loading && !list.data && <Loading what="credentials" />}
      {list.data && credentials.length === 0 && (
        <Empty title="No credentials yet">
          <p>Save one above; a portal or job names it by its id, and the agent types it only into its own site.</p>
        </Empty>
      )}
      {credentials.length > 0 && (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls sideways must take focus so the keyboard can scroll it (WCAG 2.1.1)
        <section className="table-scroll" tabIndex={0} aria-label="Credentials table">
          <table className="table">
            <thead>
              <tr>
                <th>Service</th>
                <th>Username or email</th>
                <th>Id</th>
                <th aria-label="Actions" />
              </tr>
            </thead>
            <tbody>
              {credentials.map((credential) => (
                <tr key={credential.id} data-credential={credential.id}>
                  <td>{credential.service_name}</td>
                  <td>{credential.username_or_email ?? <span className="muted">—</span>}</td>
                  <td className="mono">{credential.id}</td>
                  <td className="row-actions">
                    <ConfirmButton
                      label="Delete"
                      confirm={`Delete credential ${credential.service_name}`}
                      disabled={action.busy}
                      onConfirm={() => void remove(credential)}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
    </section>
  );
}
