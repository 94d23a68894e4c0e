import { useState, type FormEvent } from 'react';
import type { ConnectedAccount, ConnectedAccountStatus, OAuthApp } from '../../src-main/contract/oauth.ts';
import { call } from '../api.ts';
import { ConfirmButton, Empty, ErrorNote, Loading, PageHeader } from '../components/ui.tsx';
import { formatWhen } from '../format.ts';
import { useAction, useResource } from '../hooks.ts';
import { useConsole } from '../store.ts';

const STATUS_LABEL: Record<ConnectedAccountStatus, string> = {
  connected: 'Connected',
  needs_reconnect: 'Needs reconnecting',
};
const PRESETS = new Set(['google', 'microsoft']);

/**
 * Starts a connect and opens the provider's sign-in in a new tab, which comes back to Portico's
 * /oauth/callback. The tab is opened during the click (so no popup blocker stops it) and cut from this
 * page (no `opener`), then sent to the authorization URL once the API returns it.
 */
function useConnect(onStarted: () => void) {
  const connect = useAction();
  const start = (appId: string) => {
    const tab = window.open('', '_blank');
    if (tab !== null) tab.opener = null;
    void connect.run(async () => {
      try {
        const { authorization_url: url } = await call('connectAccount', { body: { oauth_app_id: appId } });
        if (tab !== null) tab.location.href = url;
        else window.open(url, '_blank', 'noopener');
        onStarted();
      } catch (failure) {
        tab?.close();
        throw failure;
      }
    });
  };
  return { start, busy: connect.busy, error: connect.error };
}

function ConnectForm(props: { apps: OAuthApp[]; connect: ReturnType<typeof useConnect> }) {
  const [appId, setAppId] = useState('');
  const { connect } = props;
  const chosen = appId !== '' ? appId : (props.apps[0]?.id ?? '');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    connect.start(chosen);
  };
  if (props.apps.length === 0) return <p className="muted">Add an OAuth app below to connect an account.</p>;
  return (
    <form className="panel inline-form wrap" onSubmit={submit} aria-label="Connect an account">
      <label>
        OAuth app
        <select value={chosen} onChange={(e) => setAppId(e.target.value)}>
          {props.apps.map((app) => (
            <option key={app.id} value={app.id}>
              {app.id}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" className="primary" disabled={connect.busy || chosen === ''}>
        {connect.busy ? 'Opening…' : 'Connect'}
      </button>
      <span className="muted small">Sign in at the provider in the new tab; this list updates when you are back.</span>
    </form>
  );
}

/** The operator's OAuth apps (client id and secret from the provider's developer console). */
function OAuthAppsSection(props: { apps: OAuthApp[]; onChange: () => void }) {
  const [id, setId] = useState('');
  const [clientId, setClientId] = useState('');
  const [clientSecret, setClientSecret] = useState('');
  const [authorizeUrl, setAuthorizeUrl] = useState('');
  const [tokenUrl, setTokenUrl] = useState('');
  const [userinfoUrl, setUserinfoUrl] = useState('');
  const [scopes, setScopes] = useState('');
  const add = useAction();
  const remove = useAction();
  const preset = PRESETS.has(id.trim());
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void add.run(async () => {
      await call('addOAuthApp', {
        body: {
          id: id.trim(),
          client_id: clientId.trim(),
          ...(clientSecret !== '' && { client_secret: clientSecret }),
          ...(authorizeUrl.trim() !== '' && { authorize_url: authorizeUrl.trim() }),
          ...(tokenUrl.trim() !== '' && { token_url: tokenUrl.trim() }),
          ...(userinfoUrl.trim() !== '' && { userinfo_url: userinfoUrl.trim() }),
          ...(scopes.trim() !== '' && { scopes: scopes.trim() }),
        },
      });
      for (const set of [setId, setClientId, setClientSecret, setAuthorizeUrl, setTokenUrl, setUserinfoUrl, setScopes])
        set('');
      props.onChange();
    });
  };
  return (
    <section className="section" aria-labelledby="oauth-apps-title">
      <h2 id="oauth-apps-title">OAuth apps</h2>
      <p className="muted">
        Apps registered with a provider; <code>google</code> and <code>microsoft</code> need only a client id and
        secret. Client secrets stay in the keychain.
      </p>
      {props.apps.length > 0 && (
        <ul className="plain-list">
          {props.apps.map((app) => (
            <li key={app.id} data-oauth-app={app.id}>
              <strong>{app.id}</strong>{' '}
              <span className="muted">
                client {app.client_id}
                {app.has_client_secret ? ', secret stored' : ''}; scopes {app.scopes.join(' ') || '—'}
              </span>{' '}
              <ConfirmButton
                label="Remove"
                confirm={`Remove OAuth app ${app.id}`}
                disabled={remove.busy}
                onConfirm={() =>
                  void remove.run(async () => {
                    await call('deleteOAuthApp', { params: { oauth_app_id: app.id } });
                    props.onChange();
                  })
                }
              />
            </li>
          ))}
        </ul>
      )}
      <ErrorNote detail={remove.error} />
      <form className="panel form-grid" onSubmit={submit} aria-label="Add an OAuth app">
        <label>
          App id
          <input
            required
            maxLength={64}
            value={id}
            onChange={(e) => setId(e.target.value)}
            placeholder="google, microsoft or your own"
          />
        </label>
        <label>
          Client id
          <input required maxLength={512} value={clientId} onChange={(e) => setClientId(e.target.value)} />
        </label>
        <label>
          Client secret
          <input
            type="password"
            autoComplete="off"
            value={clientSecret}
            onChange={(e) => setClientSecret(e.target.value)}
          />
        </label>
        <label>
          Scopes
          <input
            value={scopes}
            onChange={(e) => setScopes(e.target.value)}
            placeholder={preset ? "The preset's" : 'openid email'}
          />
        </label>
        {!preset && (
          <>
            <label>
              Authorize URL
              <input type="url" value={authorizeUrl} onChange={(e) => setAuthorizeUrl(e.target.value)} />
            </label>
            <label>
              Token URL
              <input type="url" value={tokenUrl} onChange={(e) => setTokenUrl(e.target.value)} />
            </label>
            <label>
              User info URL
              <input type="url" value={userinfoUrl} onChange={(e) => setUserinfoUrl(e.target.value)} />
            </label>
          </>
        )}
        <div>
          <button type="submit" disabled={add.busy}>
            {add.busy ? 'Saving…' : 'Add OAuth app'}
          </button>
        </div>
        <ErrorNote detail={add.error} />
      </form>
    </section>
  );
}

/** The operator's (user local's) connected accounts: Gmail and others that read codes and sign in. */
export function ConnectedAccountsPage() {
  const showToast = useConsole((s) => s.showToast);
  const accounts = useResource(() => call('listConnectedAccounts'), 'accounts', 3000);
  const apps = useResource(() => call('listOAuthApps'), 'oauth-apps');
  const action = useAction();
  const connect = useConnect(() => accounts.reload());
  const remove = (account: ConnectedAccount) =>
    action.run(async () => {
      await call('deleteConnectedAccount', { params: { account_id: account.id } });
      showToast(`Account ${account.oauth_user_name} removed`);
      accounts.reload();
    });
  const list = accounts.data ?? [];
  const appList = apps.data?.oauth_apps ?? [];
  return (
    <section className="page">
      <PageHeader
        title="Connected accounts"
        subtitle="Accounts you signed in to through OAuth (user local). Tokens stay in the keychain and are never shown."
      />
      <ConnectForm apps={appList} connect={connect} />
      <ErrorNote detail={connect.error} />
      <ErrorNote detail={action.error} />
      <ErrorNote detail={accounts.error} />
      {accounts.loading && !accounts.data && <Loading what="connected accounts" />}
      {accounts.data && list.length === 0 && (
        <Empty title="No connected accounts yet">
          <p>Connect one above; a credential can then read its sign-in codes from that Gmail account.</p>
        </Empty>
      )}
      {list.length > 0 && (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls sideways must take focus so the keyboard can scroll it (WCAG 2.1.1)
        <section className="table-scroll" tabIndex={0} aria-label="Connected accounts table">
          <table className="table">
            <thead>
              <tr>
                <th>Account</th>
                <th>App</th>
                <th>Status</th>
                <th>Connected</th>
                <th aria-label="Actions" />
              </tr>
            </thead>
            <tbody>
              {list.map((account) => (
                <tr key={account.id} data-account={account.id}>
                  <td>{account.oauth_user_name}</td>
                  <td>{account.oauth_app_id}</td>
                  <td>
                    <span className={`status account-${account.status}`} data-testid="account-status">
                      {STATUS_LABEL[account.status]}
                    </span>
                  </td>
                  <td>{formatWhen(account.created_at)}</td>
                  <td className="row-actions">
                    {account.status === 'needs_reconnect' && (
                      <button
                        type="button"
                        disabled={connect.busy}
                        onClick={() => connect.start(account.oauth_app_id)}
                        aria-label={`Reconnect ${account.oauth_user_name}`}
                      >
                        Reconnect
                      </button>
                    )}
                    <ConfirmButton
                      label="Remove"
                      confirm={`Remove account ${account.oauth_user_name}`}
                      disabled={action.busy}
                      onConfirm={() => void remove(account)}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
      <ErrorNote detail={apps.error} />
      <OAuthAppsSection apps={appList} onChange={() => apps.reload()} />
    </section>
  );
}
