import { Fragment, useState, type FormEvent } from 'react';
import type { Session, SessionStatus } from '../../src-main/contract/session.ts';
import { call, pageUrl } from '../api.ts';
import { ConfirmButton, Empty, ErrorNote, Loading, PageHeader } from '../components/ui.tsx';
import { formatWhen } from '../format.ts';
import { useAction, useResource } from '../hooks.ts';
import { routeHash } from '../routes.ts';
import { useConsole } from '../store.ts';

const PAGE_SIZE = 10;
const CACHE_PAGE_SIZE = 50;

const SESSION_STATUS_LABEL: Record<SessionStatus, string> = {
  active: 'Active',
  terminated: 'Terminated',
  expired: 'Expired',
};
const FILTERS: { value: SessionStatus | ''; label: string }[] = [
  { value: '', label: 'All' },
  { value: 'active', label: 'Active' },
  { value: 'terminated', label: 'Terminated' },
  { value: 'expired', label: 'Expired' },
];

/** "21–40 of 57", and the buttons that move a page. */
function Pager(props: {
  offset: number;
  size: number;
  total: number;
  label: string;
  onMove: (offset: number) => void;
}) {
  const { offset, size, total } = props;
  if (total <= size && offset === 0) return null;
  return (
    <nav className="pager" aria-label={props.label}>
      <button
        type="button"
        className="ghost"
        disabled={offset === 0}
        onClick={() => props.onMove(Math.max(0, offset - size))}
      >
        Previous
      </button>
      <span className="muted" aria-live="polite">
        {total === 0 ? '0' : `${offset + 1}–${Math.min(offset + size, total)}`} of {total}
      </span>
      <button
        type="button"
        className="ghost"
        disabled={offset + size >= total}
        onClick={() => props.onMove(offset + size)}
      >
        Next
      </button>
    </nav>
  );
}

/** The DevTools URL with a button that copies it (a script connects to it with Playwright or Puppeteer). */
function CdpUrl(props: { url: string }) {
  const [copied, setCopied] = useState<boolean | undefined>(undefined);
  const copy = () => {
    void navigator.clipboard?.writeText(props.url).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  };
  return (
    <span className="cdp">
      <code className="mono cdp-url" title={props.url}>
        {props.url}
      </code>
      <button type="button" className="ghost small-button" onClick={copy} aria-label="Copy CDP URL">
        {copied === true ? 'Copied' : 'Copy'}
      </button>
      {copied === false && (
        <span className="muted" role="alert">
          Copy refused by the browser: select the URL instead.
        </span>
      )}
    </span>
  );
}

/** A new session: how long it lives and its screen size. */
function NewSessionForm(props: { onCreated: (session: Session) => void }) {
  const [minutes, setMinutes] = useState('30');
  const [size, setSize] = useState('1280x800');
  const create = useAction();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const [width = 1280, height = 800] = size.split('x').map(Number);
    void create.run(async () => {
      props.onCreated(
        await call('createSession', { body: { timeout_minutes: Number(minutes), screen_config: { width, height } } }),
      );
    });
  };
  return (
    <>
      <form className="panel inline-form wrap" onSubmit={submit} aria-label="New session">
        <label>
          Expires after (minutes)
          <input
            type="number"
            min={1}
            max={1440}
            step={1}
            required
            value={minutes}
            onChange={(e) => setMinutes(e.target.value)}
          />
        </label>
        <label>
          Screen
          <select value={size} onChange={(e) => setSize(e.target.value)}>
            <option value="1280x800">1280 × 800</option>
            <option value="1440x900">1440 × 900</option>
            <option value="1920x1080">1920 × 1080</option>
            <option value="390x844">390 × 844 (phone)</option>
          </select>
        </label>
        <button type="submit" className="primary" disabled={create.busy}>
          {create.busy ? 'Starting…' : 'New session'}
        </button>
      </form>
      <ErrorNote detail={create.error} />
    </>
  );
}

function SessionsTab() {
  const showToast = useConsole((s) => s.showToast);
  const [filter, setFilter] = useState<SessionStatus | ''>('');
  const [offset, setOffset] = useState(0);
  const [watching, setWatching] = useState<string>();
  const sessions = useResource(
    () =>
      call('listSessions', { query: { limit: PAGE_SIZE, offset, ...(filter !== '' && { status_filter: filter }) } }),
    `${filter}/${offset}`,
    3000,
  );
  const action = useAction();
  const terminate = (session: Session) =>
    action.run(async () => {
      await call('terminateSession', { params: { session_id: session.session_id } });
      showToast(`Session ${session.session_id.slice(0, 8)} terminated`);
      if (watching === session.session_id) setWatching(undefined);
      sessions.reload();
    });
  const list = sessions.data?.sessions ?? [];
  const total = sessions.data?.total ?? 0;
  return (
    <>
      <NewSessionForm
        onCreated={(session) => {
          showToast(`Session ${session.session_id.slice(0, 8)} started`);
          setFilter('');
          setOffset(0);
          setWatching(session.session_id);
          sessions.reload();
        }}
      />
      <div className="toolbar">
        <label>
          Status
          <select
            value={filter}
            onChange={(e) => {
              setFilter(e.target.value as SessionStatus | '');
              setOffset(0);
            }}
          >
            {FILTERS.map((f) => (
              <option key={f.value} value={f.value}>
                {f.label}
              </option>
            ))}
          </select>
        </label>
      </div>
      <ErrorNote detail={action.error} />
      <ErrorNote detail={sessions.error} />
      {sessions.loading && !sessions.data && <Loading what="sessions" />}
      {sessions.data && list.length === 0 && (
        <Empty title={filter === '' ? 'No sessions yet' : `No ${SESSION_STATUS_LABEL[filter].toLowerCase()} sessions`}>
          <p>
            Start one above, or from a script with <code>POST /public/sessions</code> and an account key.
          </p>
        </Empty>
      )}
      {list.length > 0 && (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls sideways must take focus so the keyboard can scroll it (WCAG 2.1.1)
        <section className="table-scroll" tabIndex={0} aria-label="Sessions table">
          <table className="table">
            <thead>
              <tr>
                <th>Session</th>
                <th>Status</th>
                <th>Expires</th>
                <th>CDP URL</th>
                <th aria-label="Actions" />
              </tr>
            </thead>
            <tbody>
              {list.map((session) => {
                const active = session.status === 'active';
                const short = session.session_id.slice(0, 8);
                return (
                  <Fragment key={session.session_id}>
                    <tr data-session={session.session_id}>
                      <td>
                        {formatWhen(session.created_at)}
                        <span className="id">{short}</span>
                      </td>
                      <td>
                        <span className={`status session-${session.status}`}>
                          {SESSION_STATUS_LABEL[session.status]}
                        </span>
                      </td>
                      <td>
                        <time dateTime={session.expires_at}>{new Date(session.expires_at).toLocaleString()}</time>
                      </td>
                      <td>
                        {session.cdp_url !== null ? <CdpUrl url={session.cdp_url} /> : <span className="muted">—</span>}
                      </td>
                      <td className="row-actions">
                        {active && session.live_url !== null && (
                          <button
                            type="button"
                            className="ghost"
                            aria-expanded={watching === session.session_id}
                            aria-label={`Live view of session ${short}`}
                            onClick={() =>
                              setWatching(watching === session.session_id ? undefined : session.session_id)
                            }
                          >
                            {watching === session.session_id ? 'Hide live view' : 'Live view'}
                          </button>
                        )}
                        {active && (
                          <ConfirmButton
                            label="Terminate"
                            confirm={`Terminate session ${short}`}
                            disabled={action.busy}
                            onConfirm={() => void terminate(session)}
                          />
                        )}
                      </td>
                    </tr>
                    {active && session.live_url !== null && watching === session.session_id && (
                      <tr className="detail-row">
                        <td colSpan={5}>
                          <iframe
                            className="live"
                            title={`Live view of session ${short}`}
                            src={pageUrl(session.live_url)}
                          />
                          <a href={pageUrl(session.live_url)} target="_blank" rel="noreferrer">
                            Open the live view in a new tab
                          </a>
                        </td>
                      </tr>
                    )}
                  </Fragment>
                );
              })}
            </tbody>
          </table>
        </section>
      )}
      <Pager offset={offset} size={PAGE_SIZE} total={total} label="Sessions pages" onMove={setOffset} />
    </>
  );
}

function CacheTab() {
  const [offset, setOffset] = useState(0);
  const cache = useResource(
    () => call('listActionCache', { query: { limit: CACHE_PAGE_SIZE, offset } }),
    String(offset),
    5000,
  );
  const entries = cache.data?.entries ?? [];
  return (
    <>
      <ErrorNote detail={cache.error} />
      {cache.loading && !cache.data && <Loading what="the step cache" />}
      {cache.data && entries.length === 0 && (
        <Empty title="No cached steps yet">
          <p>
            Each <code>POST /public/single-actions/run-action</code> keeps the step it resolved, so the next run of the
            same action on the same page replays it without a model.
          </p>
        </Empty>
      )}
      {entries.length > 0 && (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls sideways must take focus so the keyboard can scroll it (WCAG 2.1.1)
        <section className="table-scroll" tabIndex={0} aria-label="Step cache table">
          <table className="table">
            <thead>
              <tr>
                <th>Action</th>
                <th>Page</th>
                <th>Step</th>
                <th className="num">Hits</th>
                <th className="num">Misses</th>
                <th>Last used</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((entry) => (
                <tr key={entry.cache_key} data-cache-key={entry.cache_key}>
                  <td>
                    {entry.action}
                    {entry.id !== null && <span className="id">id {entry.id}</span>}
                  </td>
                  <td className="mono">{entry.page}</td>
                  <td>
                    {entry.operation}
                    {entry.target !== null && (
                      <span className="muted">
                        {' '}
                        {entry.target.role} “{entry.target.name}”
                      </span>
                    )}
                  </td>
                  <td className="num" data-testid="hits">
                    {entry.hits}
                  </td>
                  <td className="num" data-testid="misses">
                    {entry.misses}
                  </td>
                  <td>{formatWhen(entry.last_used_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
      <Pager
        offset={offset}
        size={CACHE_PAGE_SIZE}
        total={cache.data?.total ?? 0}
        label="Step cache pages"
        onMove={setOffset}
      />
    </>
  );
}

/** Browser sessions of the operator's default workspace (what scripts reach with an account key), and the single-action step cache. */
export function SessionsPage(props: { tab: 'sessions' | 'cache' }) {
  const tabs = (
    <nav className="tabs" aria-label="Sessions">
      <a
        href={routeHash({ page: 'sessions', tab: 'sessions' })}
        aria-current={props.tab === 'sessions' ? 'page' : undefined}
      >
        Sessions
      </a>
      <a href={routeHash({ page: 'sessions', tab: 'cache' })} aria-current={props.tab === 'cache' ? 'page' : undefined}>
        Step cache
      </a>
    </nav>
  );
  return (
    <section className="page">
      <PageHeader
        title="Browser sessions"
        subtitle="Browsers that scripts drive over CDP, in the default workspace (the console acts as its user local)."
        actions={tabs}
      />
      {props.tab === 'sessions' ? <SessionsTab /> : <CacheTab />}
    </section>
  );
}
