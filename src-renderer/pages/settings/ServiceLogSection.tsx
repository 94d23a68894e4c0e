import type { ServiceLogEntry } from '../../../src-main/contract/console.ts';
import { call } from '../../api.ts';
import { ErrorNote } from '../../components/ui.tsx';
import { useResource } from '../../hooks.ts';

const TAIL_LINES = 200;

function fieldsText(fields: ServiceLogEntry['fields']): string {
  return Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : '';
}

/** The service log's tail (GET /admin/log): the desktop app's log file, or what `serve` kept of its stderr. */
export function ServiceLogSection() {
  const log = useResource(() => call('getServiceLog', { query: { lines: TAIL_LINES } }), 'service-log', 5000);
  const data = log.data;
  return (
    <section className="panel settings-section" aria-labelledby="service-log-title">
      <div className="section-head">
        <div>
          <h2 id="service-log-title">Service log</h2>
          <p className="muted small service-log-where" data-testid="service-log-where">
            {data
              ? data.file
                ? `Written to ${data.file} (older lines in .1, .2, .3 beside it), level ${data.level} and above.`
                : `Written to the terminal (stderr) at level ${data.level} and above; these are the last lines of this run.`
              : ' '}
          </p>
        </div>
        <button type="button" aria-label="Refresh service log" onClick={() => log.reload()}>
          Refresh
        </button>
      </div>
      <ErrorNote detail={log.error} />
      {data && data.entries.length === 0 && <p className="muted">Nothing logged at this level yet.</p>}
      {data && data.entries.length > 0 && (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls must take focus so the keyboard can scroll it (WCAG 2.1.1)
        <section className="log" tabIndex={0} aria-label="Service log lines">
          {data.entries.map((entry, index) => (
            // Lines have no id; the list is replaced whole on each load.
            // biome-ignore lint/suspicious/noArrayIndexKey: see above
            <div key={index} className={`log-line level-${entry.level}`}>
              {entry.time && <time dateTime={entry.time}>{new Date(entry.time).toLocaleTimeString()}</time>}{' '}
              <strong>{entry.level.toUpperCase()}</strong> {entry.msg}
              {fieldsText(entry.fields)}
            </div>
          ))}
        </section>
      )}
    </section>
  );
}
