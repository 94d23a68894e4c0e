import { useCallback, useEffect, useState, type FormEvent } from 'react';
import type { Portal } from '../src-main/contract/portal.ts';
import { getJson } from './api.ts';
import { loadSettings, saveSettings, type ConsoleSettings } from './settings.ts';
import './app.css';

type Load<T> = { state: 'idle' } | { state: 'loading' } | { state: 'ok'; value: T } | { state: 'error'; detail: string };

function errorDetail(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function HealthBadge() {
  const [health, setHealth] = useState<Load<unknown>>({ state: 'loading' });
  useEffect(() => {
    getJson<unknown>('/health', '').then(
      (value) => setHealth({ state: 'ok', value }),
      (error: unknown) => setHealth({ state: 'error', detail: errorDetail(error) }),
    );
  }, []);
  if (health.state === 'ok') return <span className="badge ok">service up</span>;
  if (health.state === 'error') return <span className="badge error" title={health.detail}>service unreachable</span>;
  return <span className="badge">checking…</span>;
}

function SettingsForm(props: { settings: ConsoleSettings; onSave: (settings: ConsoleSettings) => void }) {
  const [apiKey, setApiKey] = useState(props.settings.apiKey);
  const [orgId, setOrgId] = useState(props.settings.orgId);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    props.onSave({ apiKey: apiKey.trim(), orgId: orgId.trim() });
  };
  return (
    <form className="settings" onSubmit={submit}>
      <label>
        Organization
        <input value={orgId} onChange={(event) => setOrgId(event.target.value)} required />
      </label>
      <label>
        API key
        <input type="password" value={apiKey} onChange={(event) => setApiKey(event.target.value)} autoComplete="off" required />
      </label>
      <button type="submit">Connect</button>
    </form>
  );
}

function PortalList(props: { portals: Load<Portal[]> }) {
  const { portals } = props;
  if (portals.state === 'idle') return <p className="muted">Enter an organization and API key to list its portals.</p>;
  if (portals.state === 'loading') return <p className="muted">Loading portals…</p>;
  if (portals.state === 'error') return <p className="error" role="alert">{portals.detail}</p>;
  if (portals.value.length === 0) return <p className="muted">No portals yet.</p>;
  return (
    <table className="portals">
      <thead>
        <tr>
          <th>Endpoint</th>
          <th>Start URL</th>
          <th>Updated</th>
        </tr>
      </thead>
      <tbody>
        {portals.value.map((portal) => (
          <tr key={portal.id}>
            <td>{portal.endpoint_name}</td>
            <td>{portal.start_url}</td>
            <td>{new Date(portal.updated_at).toLocaleString()}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function App() {
  const [settings, setSettings] = useState(loadSettings);
  const [portals, setPortals] = useState<Load<Portal[]>>({ state: 'idle' });

  const refresh = useCallback((current: ConsoleSettings) => {
    if (current.apiKey === '' || current.orgId === '') return setPortals({ state: 'idle' });
    setPortals({ state: 'loading' });
    getJson<Portal[]>(`/portals/${encodeURIComponent(current.orgId)}`, current.apiKey).then(
      (value) => setPortals({ state: 'ok', value }),
      (error: unknown) => setPortals({ state: 'error', detail: errorDetail(error) }),
    );
  }, []);

  useEffect(() => refresh(settings), [refresh, settings]);

  const save = (next: ConsoleSettings) => {
    saveSettings(next);
    setSettings(next);
  };

  return (
    <div className="app">
      <header>
        <h1>Portico</h1>
        <HealthBadge />
      </header>
      <main>
        <SettingsForm settings={settings} onSave={save} />
        <section>
          <h2>Portals</h2>
          <PortalList portals={portals} />
        </section>
      </main>
    </div>
  );
}
