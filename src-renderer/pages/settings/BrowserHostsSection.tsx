import { useState } from 'react';
import type { BrowserHostAdded, BrowserHostKind, BrowserHostStatus } from '../../../src-main/contract/hosts.ts';
import { call } from '../../api.ts';
import { ConfirmButton, ErrorNote } from '../../components/ui.tsx';
import { formatWhen } from '../../format.ts';
import { useAction, useResource } from '../../hooks.ts';
import { useConsole } from '../../store.ts';

const KIND_NAMES: Record<BrowserHostStatus['kind'], string> = {
  local: 'This machine',
  playwright: 'Playwright server',
  cdp: 'Chrome DevTools',
};

/** A host's state in words: whether it takes browsers, and a change waiting for the next start. */
function stateOf(host: BrowserHostStatus): { text: string; pill: string } {
  if (host.pending === 'added') return { text: 'added — used from the next start', pill: 'pill' };
  if (host.pending === 'removed') return { text: 'removed — in use until the next start', pill: 'pill' };
  if (host.reachable) return { text: 'reachable', pill: 'pill pill-succeeded' };
  return { text: host.last_checked_at === null ? 'not probed yet' : 'unreachable', pill: 'pill pill-failed' };
}

function HostRow(props: { host: BrowserHostStatus; busy: boolean; onRemove: (name: string) => void }) {
  const { host } = props;
  const state = stateOf(host);
  return (
    <tr data-host={host.name}>
      <td>
        <strong>{host.name}</strong>
        <div className="muted small">{KIND_NAMES[host.kind]}</div>
        {host.url !== null && <div className="mono small ellipsis">{host.url}</div>}
      </td>
      <td>
        <span className={state.pill}>{state.text}</span>
        {host.last_checked_at !== null && <div className="muted small">probed {formatWhen(host.last_checked_at)}</div>}
      </td>
      <td className="small">{host.version ?? '—'}</td>
      <td data-testid={`browsers-${host.name}`}>
        {host.browsers_in_use} / {host.max_browsers}
      </td>
      <td className="small">{host.labels.join(', ')}</td>
      <td className="small">
        {host.last_error ?? '—'}
        {host.token_stored && <div className="muted">token in the keychain</div>}
      </td>
      <td className="row-actions">
        {host.kind !== 'local' && host.pending !== 'removed' && (
          <ConfirmButton
            label="Remove"
            confirm={`Remove ${host.name}`}
            disabled={props.busy}
            onConfirm={() => props.onRemove(host.name)}
          />
        )}
      </td>
    </tr>
  );
}

/** The add form: the token goes to the keychain/vault with the host, never into settings.json. */
function AddHostForm(props: { onAdded: (added: BrowserHostAdded) => void }) {
  const [name, setName] = useState('');
  const [kind, setKind] = useState<BrowserHostKind>('playwright');
  const [url, setUrl] = useState('');
  const [max, setMax] = useState('4');
  const [labels, setLabels] = useState('');
  const [token, setToken] = useState('');
  const action = useAction();
  const add = () =>
    action.run(async () => {
      const labelList = labels
        .split(',')
        .map((label) => label.trim())
        .filter((label) => label !== '');
      const added = await call('addBrowserHost', {
        body: {
          name: name.trim(),
          kind,
          url: url.trim(),
          max_browsers: Number(max),
          ...(labelList.length > 0 && { labels: labelList }),
          ...(token !== '' && { token }),
        },
      });
      setName('');
      setUrl('');
      setLabels('');
      setToken('');
      props.onAdded(added);
    });
  return (
    <form
      className="host-form"
      aria-label="Add a browser host"
      onSubmit={(e) => {
        e.preventDefault();
        void add();
      }}
    >
      <div className="inline-form wrap">
        <label>
          Name
          <input value={name} onChange={(e) => setName(e.target.value)} placeholder="rack1" required />
        </label>
        <label>
          Kind
          <select value={kind} onChange={(e) => setKind(e.target.value as BrowserHostKind)}>
            <option value="playwright">Playwright server</option>
            <option value="cdp">Chrome DevTools (CDP)</option>
          </select>
        </label>
        <label className="grow">
          URL
          <input
            className="mono"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            placeholder={kind === 'playwright' ? 'ws://10.0.0.5:3000/' : 'http://10.0.0.6:9223'}
            required
          />
        </label>
        <label>
          Browsers at most
          <input
            className="narrow"
            type="number"
            min={1}
            max={256}
            value={max}
            onChange={(e) => setMax(e.target.value)}
            required
          />
        </label>
        <label>
          Labels
          <input value={labels} onChange={(e) => setLabels(e.target.value)} placeholder="eu, fast" />
        </label>
        <label>
          Token
          <input
            type="password"
            value={token}
            onChange={(e) => setToken(e.target.value)}
            placeholder="optional"
            autoComplete="off"
          />
        </label>
        <button type="submit" className="primary" disabled={action.busy}>
          {action.busy ? 'Checking…' : 'Add host'}
        </button>
      </div>
      <p className="hint">
        Portico connects once to check the host (a Playwright server must run Playwright's version of this Portico). The
        token is kept in the OS keychain (or the encrypted vault), never in settings.json.
      </p>
      <ErrorNote detail={action.error} title="Not added:" />
    </form>
  );
}

/** Browser hosts (docs/scale.md): where jobs' and sessions' browsers run — this machine and remote engines. */
export function BrowserHostsSection() {
  const showToast = useConsole((s) => s.showToast);
  const hosts = useResource(() => call('listBrowserHosts'), 'browser-hosts');
  const [added, setAdded] = useState<BrowserHostAdded>();
  const action = useAction();
  const remove = (name: string) =>
    action.run(async () => {
      const removed = await call('removeBrowserHost', { params: { host_name: name } });
      showToast(`${removed.removed} removed; applies ${removed.applies}`);
      hosts.reload();
    });
  return (
    <section className="panel settings-section" aria-labelledby="hosts-title">
      <div className="section-head">
        <div>
          <h2 id="hosts-title">Browser hosts</h2>
          <p className="muted">
            Jobs and sessions take a browser from the least-loaded host with room. Hosts are read from settings.json
            when Portico starts: an added or removed host applies at the next start.
          </p>
        </div>
        <button type="button" className="ghost" aria-label="Refresh browser hosts" onClick={() => hosts.reload()}>
          Refresh
        </button>
      </div>
      <ErrorNote detail={hosts.error ?? action.error} />
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls sideways must take focus so the keyboard can scroll it (WCAG 2.1.1) */}
      <section className="table-scroll" tabIndex={0} aria-label="Browser hosts table">
        <table className="table compact" aria-label="Browser hosts">
          <thead>
            <tr>
              <th>Host</th>
              <th>State</th>
              <th>Version</th>
              <th>Browsers</th>
              <th>Labels</th>
              <th>Last error</th>
              <th aria-label="Actions" />
            </tr>
          </thead>
          <tbody>
            {(hosts.data?.hosts ?? []).map((host) => (
              <HostRow key={host.name} host={host} busy={action.busy} onRemove={(name) => void remove(name)} />
            ))}
          </tbody>
        </table>
      </section>
      {added && (
        <p className="test-result" role="status" data-testid="host-added">
          <strong>{added.host.name} added.</strong> {added.check.detail}. Applies {added.applies}.
          {added.token_stored && ' Its token is in the keychain.'}
        </p>
      )}
      <AddHostForm
        onAdded={(result) => {
          setAdded(result);
          hosts.reload();
        }}
      />
    </section>
  );
}
