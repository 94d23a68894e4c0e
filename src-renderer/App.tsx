import { useEffect, useState, type FormEvent } from 'react';
import { useQuestionNotifications } from './components/Notifications.tsx';
import { OrgSwitcher } from './components/OrgSwitcher.tsx';
import { focusOnMount } from './components/ui.tsx';
import { useWaitingJobs, WaitingBadge, WaitingNotice } from './components/PendingQuestions.tsx';
import { ConnectedAccountsPage } from './pages/ConnectedAccountsPage.tsx';
import { CredentialsPage } from './pages/CredentialsPage.tsx';
import { DocumentsPage } from './pages/DocumentsPage.tsx';
import { JobPage } from './pages/JobPage.tsx';
import { JobsPage } from './pages/JobsPage.tsx';
import { NewPortalPage, PortalPage } from './pages/PortalPage.tsx';
import { PortalsPage } from './pages/PortalsPage.tsx';
import { ProfilesPage } from './pages/ProfilesPage.tsx';
import { SessionsPage } from './pages/SessionsPage.tsx';
import { SettingsPage } from './pages/SettingsPage.tsx';
import { SkillsPage } from './pages/SkillsPage.tsx';
import { WorkflowsPage } from './pages/WorkflowsPage.tsx';
import type { Route } from './routes.ts';
import { boot, useConsole } from './store.ts';
import './app.css';

const NAV: { page: Route['page']; label: string; also: Route['page'][] }[] = [
  { page: 'jobs', label: 'Jobs', also: ['job'] },
  { page: 'portals', label: 'Portals', also: ['portal', 'portal-new'] },
  { page: 'profiles', label: 'Profiles', also: [] },
  { page: 'documents', label: 'Documents', also: [] },
  { page: 'skills', label: 'Skills', also: [] },
  { page: 'sessions', label: 'Sessions', also: [] },
  { page: 'credentials', label: 'Credentials', also: [] },
  { page: 'accounts', label: 'Connected accounts', also: [] },
  { page: 'workflows', label: 'Workflows', also: ['workflow', 'workflow-execution'] },
  { page: 'settings', label: 'Settings', also: [] },
];

function CurrentPage(props: { route: Route }) {
  const { route } = props;
  switch (route.page) {
    case 'jobs':
      return <JobsPage />;
    case 'job':
      return <JobPage key={route.jobId} endpoint={route.endpoint} jobId={route.jobId} />;
    case 'portals':
      return <PortalsPage />;
    case 'portal-new':
      return <NewPortalPage />;
    case 'portal':
      return <PortalPage key={route.endpoint} endpoint={route.endpoint} tab={route.tab} />;
    case 'profiles':
      return <ProfilesPage />;
    case 'skills':
      return <SkillsPage />;
    case 'sessions':
      return <SessionsPage tab={route.tab} />;
    case 'credentials':
      return <CredentialsPage />;
    case 'accounts':
      return <ConnectedAccountsPage />;
    case 'workflows':
      return <WorkflowsPage />;
    case 'workflow':
      return <WorkflowsPage key={route.workflowId} workflowId={route.workflowId} />;
    case 'workflow-execution':
      return <WorkflowsPage key={route.executionId} workflowId={route.workflowId} executionId={route.executionId} />;
    case 'documents':
      return <DocumentsPage key={route.bundleId ?? ''} bundleId={route.bundleId} />;
    case 'settings':
      return <SettingsPage />;
  }
}

const REFUSED: Record<'stale' | 'rejected', string> = {
  stale:
    'Portico no longer accepts the token this console was opened with: the service has restarted since then. Open or paste the new console URL.',
  rejected: 'Portico refused that token. Copy the whole Console: line from the latest start of the service.',
};

/** Shown when the console has no valid token: why, how to get one, and a field to paste it. */
function ConnectScreen(props: {
  reason: 'unauthorized' | 'down';
  why?: 'none' | 'stale' | 'rejected';
  detail?: string;
}) {
  const connect = useConsole((s) => s.connect);
  const [token, setToken] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void connect(token.trim().replace(/^.*#token=/, ''), 'pasted');
  };
  return (
    <main className="connect">
      <div className="connect-card">
        <div className="brand big">
          <span className="logo" aria-hidden>
            ◆
          </span>{' '}
          Portico
        </div>
        {props.why !== undefined && props.why !== 'none' && (
          <p className="error-note" role="alert" data-testid="token-refused">
            {REFUSED[props.why]}
          </p>
        )}
        {props.reason === 'down' ? (
          <p className="error-note" role="alert">
            {props.detail}
          </p>
        ) : (
          <p>
            This console needs the address the service printed when it started — the{' '}
            <code>Console: http://…/#token=…</code> line of <code>npm run serve</code>. The token changes at every
            start.
          </p>
        )}
        <form onSubmit={submit} className="inline-form">
          <input
            aria-label="Console URL or token"
            className="grow"
            value={token}
            onChange={(e) => setToken(e.target.value)}
            placeholder="Paste the console URL or its token"
            ref={focusOnMount}
          />
          <button type="submit" className="primary" disabled={token.trim() === ''}>
            Connect
          </button>
        </form>
      </div>
    </main>
  );
}

export function App() {
  const { route, connection, toast, org } = useConsole();
  useEffect(boot, []);
  if (connection.state === 'checking')
    return (
      <main className="connect">
        <p className="muted">Connecting to Portico…</p>
      </main>
    );
  if (connection.state === 'unauthorized') return <ConnectScreen reason="unauthorized" why={connection.why} />;
  if (connection.state === 'down') return <ConnectScreen reason="down" detail={connection.detail} />;
  return <Shell route={route} toast={toast} org={org} />;
}

/** The signed-in console: navigation, the current page, and notices that follow the person across pages. */
function Shell(props: { route: Route; toast: string | undefined; org: string }) {
  const { route, toast, org } = props;
  const { jobs: waiting, loaded } = useWaitingJobs();
  useQuestionNotifications(waiting, loaded, route);
  const reachable = useConsole((s) => s.reachable);
  return (
    <div className="shell">
      {!reachable && (
        <div className="unreachable" role="alert">
          <strong>Portico is not reachable.</strong> Retrying, less often the longer it stays away; this page updates
          when it is back.
        </div>
      )}
      <a className="skip" href="#main">
        Skip to content
      </a>
      <aside className="sidebar">
        <div className="brand">
          <span className="logo" aria-hidden>
            ◆
          </span>{' '}
          Portico
        </div>
        <OrgSwitcher />
        <nav aria-label="Main">
          {NAV.map((item) => {
            const current = item.page === route.page || item.also.includes(route.page);
            return (
              <a
                key={item.page}
                href={`#/${item.page}`}
                aria-current={current ? 'page' : undefined}
                aria-describedby={item.page === 'jobs' && waiting.length > 0 ? 'waiting-description' : undefined}
              >
                {item.label}
                {item.page === 'jobs' && <WaitingBadge count={waiting.length} descriptionId="waiting-description" />}
              </a>
            );
          })}
        </nav>
        <div className="sidebar-foot muted small">Local operator</div>
      </aside>
      <main id="main" className="content" key={org}>
        <CurrentPage route={route} />
      </main>
      <WaitingNotice jobs={waiting} route={route} />
      {toast !== undefined && (
        <div className="toast" role="status">
          {toast}
        </div>
      )}
    </div>
  );
}
