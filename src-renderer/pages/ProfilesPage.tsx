import { Fragment, useState, type FormEvent } from 'react';
import type { OperationBody } from '../../src-main/contract/client.ts';
import type { Profile, ProfileSession } from '../../src-main/contract/profile.ts';
import { call, pageUrl } from '../api.ts';
import { ConfirmButton, Empty, ErrorNote, focusOnMount, Loading, PageHeader } from '../components/ui.tsx';
import { formatWhen } from '../format.ts';
import { useAction, useResource } from '../hooks.ts';
import { useConsole } from '../store.ts';

/** The open login session: its live browser and the button that saves the profile. */
function LoginSession(props: { session: ProfileSession; name: string; onClosed: () => void }) {
  const org = useConsole((s) => s.org);
  const showToast = useConsole((s) => s.showToast);
  const close = useAction();
  const doClose = () =>
    close.run(async () => {
      await call('closeProfileSession', { params: { org_id: org, session_id: props.session.session_id } });
      showToast(`Profile ${props.name} saved`);
      props.onClosed();
    });
  return (
    <div className="panel login-session">
      <div className="panel-title">
        Logging in to <strong>{props.name}</strong>
        <span className="muted">
          {' '}
          — sign in to the sites this profile needs, then save. A browser window may also have opened on this computer.
        </span>
      </div>
      <iframe
        className="live"
        title={`Live view of the login browser for ${props.name}`}
        src={pageUrl(props.session.live_url)}
      />
      <ErrorNote detail={close.error} />
      <div className="form-actions">
        <button type="button" className="primary" onClick={() => void doClose()} disabled={close.busy}>
          {close.busy ? 'Saving…' : 'Save and close'}
        </button>
        <span className="muted">
          Left idle, it saves and closes itself at {new Date(props.session.expires_at).toLocaleTimeString()}.
        </span>
      </div>
    </div>
  );
}

/** The page a profile's login last started at, kept in this browser so "Log in again" can offer it. */
const loginUrlKey = (org: string, profileId: string) => `portico.loginUrl.${org}.${profileId}`;
const rememberedLoginUrl = (org: string, profileId: string): string =>
  localStorage.getItem(loginUrlKey(org, profileId)) ?? '';

/** "Log in again": asks where the login browser opens, starting from the address used last time. */
function LoginAgainForm(props: {
  org: string;
  profile: Profile;
  busy: boolean;
  onOpen: (startUrl: string) => void;
  onCancel: () => void;
}) {
  const [url, setUrl] = useState(() => rememberedLoginUrl(props.org, props.profile.id));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    props.onOpen(url.trim());
  };
  return (
    <form className="inline-form wrap relogin" onSubmit={submit} aria-label={`Log in again to ${props.profile.name}`}>
      <label className="grow">
        Start page
        <input
          type="url"
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          placeholder="https://example.org/login"
          ref={focusOnMount}
        />
      </label>
      <button type="submit" className="primary" disabled={props.busy}>
        Open login browser
      </button>
      <button type="button" className="ghost" onClick={props.onCancel}>
        Cancel
      </button>
    </form>
  );
}

/** Browser profiles: saved logins that jobs can run in. */
export function ProfilesPage() {
  const org = useConsole((s) => s.org);
  const showToast = useConsole((s) => s.showToast);
  const profiles = useResource(() => call('listProfiles', { params: { org_id: org } }), org);
  const sessions = useResource(() => call('listProfileSessions', { params: { org_id: org } }), org, 3000);
  const [name, setName] = useState('');
  const [startUrl, setStartUrl] = useState('');
  const [relogin, setRelogin] = useState<string>();
  const create = useAction();
  const action = useAction();
  const reloadAll = () => {
    profiles.reload();
    sessions.reload();
  };
  const startLogin = (body: OperationBody<'openProfileSession'>) =>
    create.run(async () => {
      const opened = await call('openProfileSession', { params: { org_id: org }, body });
      if (body.start_url !== undefined) localStorage.setItem(loginUrlKey(org, opened.profile_id), body.start_url);
      setName('');
      setStartUrl('');
      setRelogin(undefined);
      reloadAll();
    });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body: OperationBody<'openProfileSession'> = { timeout_minutes: 30 };
    if (name.trim() !== '') body.name = name.trim();
    if (startUrl.trim() !== '') body.start_url = startUrl.trim();
    void startLogin(body);
  };
  const remove = (profile: Profile) =>
    action.run(async () => {
      await call('deleteProfile', { params: { org_id: org, profile_id: profile.id } });
      showToast(`Profile ${profile.name} deleted`);
      reloadAll();
    });
  const nameOf = (id: string) => profiles.data?.find((p) => p.id === id)?.name ?? id;
  const open = sessions.data ?? [];
  const list = profiles.data ?? [];

  return (
    <section className="page">
      <PageHeader title="Browser profiles" subtitle="Log in once; jobs that use the profile start signed in." />
      <form className="panel inline-form wrap" onSubmit={submit} aria-label="New profile">
        <label>
          Name
          <input value={name} onChange={(e) => setName(e.target.value)} placeholder="e.g. Tax office login" />
        </label>
        <label className="grow">
          Start page (optional)
          <input
            type="url"
            value={startUrl}
            onChange={(e) => setStartUrl(e.target.value)}
            placeholder="https://example.org/login"
          />
        </label>
        <button type="submit" className="primary" disabled={create.busy}>
          {create.busy ? 'Opening…' : 'New profile and log in'}
        </button>
      </form>
      <ErrorNote detail={create.error} />
      <ErrorNote detail={action.error} />
      <ErrorNote detail={sessions.error} />
      {open.map((session) => (
        <LoginSession
          key={session.session_id}
          session={session}
          name={nameOf(session.profile_id)}
          onClosed={reloadAll}
        />
      ))}
      <ErrorNote detail={profiles.error} />
      {profiles.loading && <Loading what="profiles" />}
      {profiles.data && list.length === 0 && (
        <Empty title="No profiles yet">
          <p>Create one above: a browser opens where you sign in, and the cookies are kept for jobs.</p>
        </Empty>
      )}
      {list.length > 0 && (
        <>
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls sideways must take focus so the keyboard can scroll it (WCAG 2.1.1) */}
          <section className="table-scroll" tabIndex={0} aria-label="Profiles table">
            <table className="table">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Created</th>
                  <th>Updated</th>
                  <th aria-label="Actions" />
                </tr>
              </thead>
              <tbody>
                {list.map((profile) => {
                  const inUse = open.some((s) => s.profile_id === profile.id);
                  return (
                    <Fragment key={profile.id}>
                      <tr>
                        <td>
                          {profile.name}
                          <span className="id">{profile.id.slice(0, 8)}</span>
                        </td>
                        <td>{formatWhen(profile.created_at)}</td>
                        <td>{formatWhen(profile.updated_at)}</td>
                        <td className="row-actions">
                          <button
                            type="button"
                            className="ghost"
                            disabled={inUse || create.busy}
                            aria-expanded={relogin === profile.id}
                            onClick={() => setRelogin(relogin === profile.id ? undefined : profile.id)}
                          >
                            Log in again
                          </button>
                          <ConfirmButton
                            label="Delete"
                            confirm="Delete profile"
                            disabled={inUse}
                            onConfirm={() => void remove(profile)}
                          />
                        </td>
                      </tr>
                      {relogin === profile.id && !inUse && (
                        <tr className="detail-row">
                          <td colSpan={4}>
                            <LoginAgainForm
                              org={org}
                              profile={profile}
                              busy={create.busy}
                              onCancel={() => setRelogin(undefined)}
                              onOpen={(url) =>
                                void startLogin({
                                  profile_id: profile.id,
                                  timeout_minutes: 30,
                                  ...(url !== '' && { start_url: url }),
                                })
                              }
                            />
                          </td>
                        </tr>
                      )}
                    </Fragment>
                  );
                })}
              </tbody>
            </table>
          </section>
        </>
      )}
    </section>
  );
}
