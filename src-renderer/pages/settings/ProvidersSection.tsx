import { useState } from 'react';
import type {
  ModelProvider,
  ProviderKeyRequest,
  ProviderStatus,
  ProviderTestResult,
} from '../../../src-main/contract/console.ts';
import { call } from '../../api.ts';
import { ErrorNote } from '../../components/ui.tsx';
import { useAction, useResource } from '../../hooks.ts';

const PROVIDER_NAMES: Record<ModelProvider, string> = {
  anthropic: 'Anthropic',
  openai: 'OpenAI',
  moonshot: 'Moonshot (Kimi)',
  'openai-compatible': 'OpenAI-compatible server',
};

// PROVIDER_BASE_URL_ENV's naming rule, repeated rather than imported: the console takes only types from the contract (no zod in the bundle).
const baseUrlEnv = (provider: ModelProvider): string => `PORTICO_${provider.toUpperCase().replace(/-/g, '_')}_BASE_URL`;

/** Where the URL in use comes from, in words. */
function baseUrlNote(status: ProviderStatus): string {
  if (status.base_url === null)
    return "No base URL yet: give the server's, e.g. http://127.0.0.1:11434/v1 (an API key is optional).";
  if (status.base_url_source === 'sdk_env')
    return `Calls ${status.base_url} (from ${status.provider === 'anthropic' ? 'ANTHROPIC_BASE_URL' : 'OPENAI_BASE_URL'}, the SDK's own variable; a saved one overrides it).`;
  if (status.base_url_source === 'env')
    return `Calls ${status.base_url} (from ${baseUrlEnv(status.provider)}, which overrides a saved one).`;
  if (status.base_url_source === 'stored') return `Calls ${status.base_url} (saved base URL).`;
  return `Calls ${status.base_url} (the provider's own).`;
}

function ProviderRow(props: { status: ProviderStatus; onChange: () => void }) {
  const { provider, configured } = props.status;
  const compatible = provider === 'openai-compatible';
  // The field shows the saved URL only: an env override or the default is described below it instead.
  const savedUrl = props.status.base_url_source === 'stored' ? (props.status.base_url ?? '') : '';
  const [key, setKey] = useState('');
  const [url, setUrl] = useState(savedUrl);
  const [test, setTest] = useState<ProviderTestResult>();
  const action = useAction();
  const params = { provider };
  const urlChanged = url.trim() !== savedUrl;
  // An OpenAI-compatible server is nothing without its URL, unless the environment gives one.
  const urlRequired = compatible && props.status.base_url_source !== 'env';
  const canSave = (key.trim() !== '' || urlChanged) && !(urlRequired && url.trim() === '');
  const save = () =>
    action.run(async () => {
      const body: ProviderKeyRequest = {
        ...(key.trim() !== '' && { api_key: key }),
        ...(urlChanged && { base_url: url.trim() === '' ? null : url.trim() }),
      };
      await call('updateProvider', { params, body });
      setKey('');
      setUrl(url.trim());
      setTest(undefined);
      props.onChange();
    });
  const remove = () =>
    action.run(async () => {
      await call('deleteProviderKey', { params });
      setTest(undefined);
      props.onChange();
    });
  const [testing, setTesting] = useState(false);
  const runTest = () =>
    action.run(async () => {
      setTest(undefined);
      setTesting(true);
      try {
        setTest(await call('testProvider', { params }));
      } finally {
        setTesting(false);
      }
    });
  const name = PROVIDER_NAMES[provider];
  const testable = configured || (compatible && props.status.base_url !== null);
  return (
    <li className="provider">
      <div className="provider-name">
        <strong>{name}</strong>
        <span className={configured ? 'pill pill-succeeded' : 'pill'}>
          {configured ? 'key stored' : compatible ? 'no key (optional)' : 'no key'}
        </span>
      </div>
      <form
        className="inline-form wrap"
        onSubmit={(e) => {
          e.preventDefault();
          if (canSave) void save();
        }}
      >
        <input
          type="password"
          aria-label={`${name} API key`}
          placeholder={
            configured ? 'Replace the stored key…' : compatible ? 'API key (optional)…' : 'Paste an API key…'
          }
          value={key}
          onChange={(e) => setKey(e.target.value)}
          autoComplete="off"
        />
        <input
          type="url"
          aria-label={`${name} base URL`}
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          required={urlRequired}
          placeholder={compatible ? 'Base URL, e.g. http://127.0.0.1:11434/v1' : 'Base URL (optional)'}
        />
        <button type="submit" disabled={action.busy || !canSave}>
          Save
        </button>
        <button type="button" className="ghost" disabled={action.busy || !testable} onClick={() => void runTest()}>
          {testing ? 'Testing…' : 'Test connection'}
        </button>
        {configured && (
          <button type="button" className="ghost danger" disabled={action.busy} onClick={() => void remove()}>
            Remove
          </button>
        )}
      </form>
      <p className="muted base-url-note" data-testid={`base-url-${provider}`}>
        {baseUrlNote(props.status)}
      </p>
      {test && (
        <p className={`test-result test-${test.status}`} role="status">
          <strong>{test.status === 'ok' ? 'Connected.' : 'Not connected.'}</strong> {test.detail}
        </p>
      )}
      <ErrorNote detail={action.error} />
    </li>
  );
}

/** Model provider keys, kept in the OS keychain (or the encrypted vault), never shown again. */
export function ProvidersSection() {
  const providers = useResource(() => call('listProviders'), 'providers');
  const store = providers.data?.secret_store;
  return (
    <section className="panel settings-section" aria-labelledby="providers-title">
      <h2 id="providers-title">Model providers</h2>
      <p className="muted">
        {store === 'unavailable'
          ? 'No keychain answers on this machine and PORTICO_VAULT_KEY is not set, so keys cannot be stored (base URLs can: they are not secret). Jobs run with the built-in autofill engine.'
          : `Keys are stored in the ${store === 'vault' ? 'encrypted file vault' : 'OS keychain'}, never in the database. Without a key, jobs use the built-in autofill engine.`}
      </p>
      <ErrorNote detail={providers.error} />
      <ul className="providers">
        {(providers.data?.providers ?? []).map((p) => (
          <ProviderRow key={p.provider} status={p} onChange={providers.reload} />
        ))}
      </ul>
    </section>
  );
}
