import { useEffect, useRef, useState } from 'react';
import type { ConsoleSettingsUpdate } from '../../../src-main/contract/console.ts';
import { call } from '../../api.ts';
import { ErrorNote } from '../../components/ui.tsx';
import { useAction, useResource } from '../../hooks.ts';
import { useConsole } from '../../store.ts';

/** Chromium path, job concurrency and the data folder. */
export function SystemSection() {
  const showToast = useConsole((s) => s.showToast);
  const settings = useResource(() => call('getSettings'), 'settings');
  const [chromium, setChromium] = useState('');
  const [concurrency, setConcurrency] = useState('');
  const [record, setRecord] = useState(false);
  const action = useAction();
  const data = settings.data;
  // A reload after saving one field must not overwrite another field the person is still typing in.
  const edited = useRef({ chromium: false, concurrency: false, record: false });
  useEffect(() => {
    if (!data) return;
    if (!edited.current.chromium) setChromium(data.chromium.configured_path ?? '');
    if (!edited.current.concurrency) setConcurrency(String(data.job_concurrency));
    if (!edited.current.record) setRecord(data.record_video);
  }, [data]);
  const save = (field: 'chromium' | 'concurrency' | 'record', body: ConsoleSettingsUpdate, message: string) =>
    action.run(async () => {
      await call('updateSettings', { body });
      edited.current[field] = false;
      showToast(message);
      settings.reload();
    });
  return (
    <section className="panel settings-section" aria-labelledby="system-title">
      <h2 id="system-title">Browser and jobs</h2>
      <ErrorNote detail={settings.error} />
      <ErrorNote detail={action.error} title="Not saved:" />
      <div className="setting">
        <label htmlFor="chromium-path">Chromium path</label>
        <p className="muted small" data-testid="chromium-status">
          {data
            ? data.chromium.version
              ? `${data.chromium.version} at ${data.chromium.resolved_path}`
              : (data.chromium.error ?? '')
            : ' '}
        </p>
        <form
          className="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            void save(
              'chromium',
              { chromium_path: chromium.trim() === '' ? null : chromium.trim() },
              'Chromium path saved; the next browser uses it',
            );
          }}
        >
          <input
            id="chromium-path"
            className="grow mono"
            value={chromium}
            onChange={(e) => {
              edited.current.chromium = true;
              setChromium(e.target.value);
            }}
            placeholder="Found automatically (PORTICO_CHROMIUM, then the usual install paths)"
          />
          <button type="submit" disabled={action.busy}>
            Check and save
          </button>
        </form>
        <p className="hint">
          The path is checked by running it with <code>--version</code>. The next browser Portico opens uses it; running
          jobs keep theirs until they finish.
        </p>
      </div>
      <div className="setting">
        <label htmlFor="job-concurrency">Jobs at once</label>
        <form
          className="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            void save('concurrency', { job_concurrency: Number(concurrency) }, 'Job concurrency saved');
          }}
        >
          <input
            id="job-concurrency"
            type="number"
            min={1}
            max={32}
            value={concurrency}
            onChange={(e) => {
              edited.current.concurrency = true;
              setConcurrency(e.target.value);
            }}
            className="narrow"
          />
          <button type="submit" disabled={action.busy}>
            Save
          </button>
        </form>
        <p className="hint">Applies at once: extra slots start queued jobs; running jobs are never stopped.</p>
      </div>
      <div className="setting">
        <label className="check">
          <input
            type="checkbox"
            checked={record}
            disabled={!data || action.busy}
            onChange={(e) => {
              edited.current.record = true;
              setRecord(e.target.checked);
              void save(
                'record',
                { record_video: e.target.checked },
                e.target.checked
                  ? 'Jobs and sessions are now recorded unless they say otherwise'
                  : 'Jobs and sessions are recorded only when they ask',
              );
            }}
          />
          Record jobs and sessions by default
        </label>
        <p className="hint">
          For jobs and sessions whose request and portal do not say: their screen is saved as a WebM video (password
          fields masked) with the system ffmpeg.
        </p>
      </div>
      <div className="setting">
        <span className="label">Data folder</span>
        <code className="path" data-testid="data-dir">
          {data?.data_dir ?? ''}
        </code>
        <p className="hint">
          Database, profiles, screenshots and skills live here. Start with <code>--data-dir</code> or{' '}
          <code>PORTICO_DATA_DIR</code> to use another.
        </p>
      </div>
    </section>
  );
}
