import { useState } from 'react';
import type { ModelProvider, ProviderList, ProviderTestResult } from '../../../src-main/contract/console.ts';
import { api } from '../../api.ts';
import { ErrorNote } from '../../components/ui.tsx';
import { useAction, useResource } from '../../hooks.ts';

const PROVIDER_NAMES: Record<ModelProvider, string> = {
  anthropic: 'Anthropic',
  openai: 'OpenAI',
  moonshot: 'Moonshot (Kimi)',
  'openai-compatible': 'OpenAI-compatible server',
};

function ProviderRow(props: { provider: ModelProvider; configured: boolean; onChange: () => void }) {
  const [key, setKey] = useState('');
  const [test, setTest] = useState<ProviderTestResult>();
  const action = useAction();
  const base = `/admin/providers/${props.provider}`;
  const save = () =>
    action.run(async () => {
      await api.put(base, { api_key: key });
      setKey('');
      setTest(undefined);
      props.onChange();
    });
  const remove = () =>
    action.run(async () => {
      await api.delete(base);
      setTest(undefined);
      props.onChange();
    });
  const runTest = () =>
    action.run(async () => {
      setTest(await api.post<ProviderTestResult>(`${base}/test`));
    });
  const label = `${PROVIDER_NAMES[props.provider]} API key`;
  return (
    <li className="provider">
      <div className="provider-name">
        <strong>{PROVIDER_NAMES[props.provider]}</strong>
        <span className={props.configured ? 'pill pill-succeeded' : 'pill'}>{props.configured ? 'key stored' : 'no key'}</span>
      </div>
      <form className="inline-form" onSubmit={(e) => { e.preventDefault(); void save(); }}>
        <input type="password" aria-label={label} placeholder={props.configured ? 'Replace the stored key…' : 'Paste an API key…'} value={key} onChange={(e) => setKey(e.target.value)} autoComplete="off" />
        <button type="submit" disabled={action.busy || key.trim() === ''}>Save</button>
        <button type="button" className="ghost" disabled={action.busy || !props.configured} onClick={() => void runTest()}>Test connection</button>
        {props.configured && <button type="button" className="ghost danger" disabled={action.busy} onClick={() => void remove()}>Remove</button>}
      </form>
      {test && (
        <p className={`test-result test-${test.status}`} role="status">
          {test.status === 'ok' ? 'Connected: ' : test.status === 'failed' ? 'Failed: ' : 'Not available yet: '}
          {test.detail}
        </p>
      )}
      <ErrorNote detail={action.error} />
    </li>
  );
}

/** Model provider keys, kept in the OS keychain (or the encrypted vault), never shown again. */
export function ProvidersSection() {
  const providers = useResource(() => api.get<ProviderList>('/admin/providers'), 'providers');
  const store = providers.data?.secret_store;
  return (
    <section className="panel settings-section" aria-labelledby="providers-title">
      <h2 id="providers-title">Model providers</h2>
      <p className="muted">
        {store === 'unavailable'
          ? 'No keychain answers on this machine and PORTICO_VAULT_KEY is not set, so keys cannot be stored. Jobs run with the built-in autofill engine.'
          : `Keys are stored in the ${store === 'vault' ? 'encrypted file vault' : 'OS keychain'}, never in the database. Without a key, jobs use the built-in autofill engine.`}
      </p>
      <ErrorNote detail={providers.error} />
      <ul className="providers">
        {(providers.data?.providers ?? []).map((p) => (
          <ProviderRow key={p.provider} provider={p.provider} configured={p.configured} onChange={providers.reload} />
        ))}
      </ul>
    </section>
  );
}
