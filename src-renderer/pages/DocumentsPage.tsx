import { useRef, useState, type FormEvent } from 'react';
import type { DocumentBundle, DocumentExtraction } from '../../src-main/contract/document.ts';
import { call, upload } from '../api.ts';
import { SourcedValues } from '../components/SourcedValues.tsx';
import { ConfirmButton, ErrorNote, Loading, PageHeader } from '../components/ui.tsx';
import { formatWhen } from '../format.ts';
import { useAction, useResource } from '../hooks.ts';
import { routeHash } from '../routes.ts';
import { useConsole } from '../store.ts';

const STATUS_LABEL: Record<DocumentBundle['status'], string> = {
  processing: 'Reading…',
  completed: 'Read',
  failed: 'Could not be read',
};

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** Documents: upload a bundle of files, see what was read, preview what a portal's job would get, start the job. */
export function DocumentsPage(props: { bundleId?: string }) {
  const org = useConsole((s) => s.org);
  const navigate = useConsole((s) => s.navigate);
  const showToast = useConsole((s) => s.showToast);
  const fileInput = useRef<HTMLInputElement>(null);
  const send = useAction();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const files = fileInput.current?.files;
    if (!files || files.length === 0) return;
    void send.run(async () => {
      const form = new FormData();
      for (const file of Array.from(files)) form.append('files', file, file.name);
      const created = await upload(form, 'uploadDocuments', { params: { org_id: org } });
      showToast(`${files.length === 1 ? 'Document' : `${files.length} documents`} uploaded`);
      if (fileInput.current) fileInput.current.value = '';
      navigate({ page: 'documents', bundleId: created.document_bundle_id });
    });
  };

  return (
    <section className="page">
      <PageHeader
        title="Documents"
        subtitle="Upload the documents a form needs (PDF, Word, Excel, CSV, JSON, text, images); Portico reads them and fills a portal's form from them."
      />
      <form className="panel inline-form wrap" onSubmit={submit} aria-label="Upload documents">
        <label className="grow">
          Files (up to 20, 50 MB each)
          <input ref={fileInput} type="file" multiple required />
        </label>
        <button type="submit" className="primary" disabled={send.busy}>
          {send.busy ? 'Uploading…' : 'Upload'}
        </button>
      </form>
      <ErrorNote detail={send.error} title="Not uploaded:" />
      {props.bundleId === undefined ? (
        <>
          <p className="muted">
            Each upload is one bundle: its documents are read together, and a job can start from the bundle instead of
            typed input data.
          </p>
          <BundleList org={org} />
        </>
      ) : (
        <BundleView key={`${org}/${props.bundleId}`} org={org} bundleId={props.bundleId} />
      )}
    </section>
  );
}

/** One bundle: its status while it is read, each document, the extraction preview and the job start. */
/** The org's bundles, newest first (the latest 50), each linking to its page. */
function BundleList(props: { org: string }) {
  const { org } = props;
  const list = useResource(
    () => call('listDocumentBundles', { params: { org_id: org }, query: { limit: 50 } }),
    `${org}/bundles`,
    2000,
    (l) => l.document_bundles.some((b) => b.status === 'processing'),
  );
  const data = list.data;
  return (
    <section className="panel" aria-label="Document bundles">
      <div className="panel-title">
        Bundles
        {data && data.total > data.document_bundles.length
          ? ` (latest ${data.document_bundles.length} of ${data.total})`
          : ''}
      </div>
      <ErrorNote detail={list.error} />
      {list.loading && <Loading what="the bundles" />}
      {data && data.document_bundles.length === 0 && <p className="muted">No bundles yet.</p>}
      {data && data.document_bundles.length > 0 && (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls sideways must take focus so the keyboard can scroll it (WCAG 2.1.1)
        <section className="table-scroll" tabIndex={0} aria-label="Bundles table">
          <table className="table compact" aria-label="Document bundles">
            <thead>
              <tr>
                <th scope="col">Uploaded</th>
                <th scope="col">Status</th>
                <th scope="col">Documents</th>
              </tr>
            </thead>
            <tbody>
              {data.document_bundles.map((b) => (
                <tr key={b.id}>
                  <td>
                    <a href={routeHash({ page: 'documents', bundleId: b.id })}>{formatWhen(b.created_at)}</a>
                  </td>
                  <td>{STATUS_LABEL[b.status]}</td>
                  <td>{b.documents.map((d) => d.name).join(', ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
    </section>
  );
}

function BundleView(props: { org: string; bundleId: string }) {
  const { org, bundleId } = props;
  const navigate = useConsole((s) => s.navigate);
  const showToast = useConsole((s) => s.showToast);
  const bundle = useResource(
    () => call('getDocumentBundle', { params: { org_id: org, document_bundle_id: bundleId } }),
    `${org}/${bundleId}`,
    1000,
    (b) => b.status === 'processing',
  );
  const remove = useAction();
  const doDelete = () =>
    remove.run(async () => {
      await call('deleteDocumentBundle', { params: { org_id: org, document_bundle_id: bundleId } });
      showToast('Document bundle deleted');
      navigate({ page: 'documents' });
    });
  const data = bundle.data;
  return (
    <section className="panel" aria-label="Document bundle">
      <div className="panel-title">
        Bundle <span className="mono small">{bundleId}</span>
        {data && (
          <>
            {' '}
            ·{' '}
            <span
              data-testid="bundle-status"
              className={`status ${data.status === 'processing' ? 'status-running' : data.status === 'completed' ? 'status-completed' : 'status-failed'}`}
            >
              {STATUS_LABEL[data.status]}
            </span>
          </>
        )}
      </div>
      <ErrorNote detail={bundle.error} />
      <ErrorNote detail={remove.error} title="Not deleted:" />
      {bundle.loading && <Loading what="the bundle" />}
      {data && (
        <>
          <p className="muted small">Uploaded {formatWhen(data.created_at)}</p>
          {data.status === 'failed' && data.error !== null && (
            <div className="failure" role="alert">
              <strong>The bundle could not be read.</strong> {data.error}
            </div>
          )}
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls sideways must take focus so the keyboard can scroll it (WCAG 2.1.1) */}
          <section className="table-scroll" tabIndex={0} aria-label="Documents table">
            <table className="table compact" aria-label="Documents in the bundle">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Type</th>
                  <th scope="col">Size</th>
                  <th scope="col">Pages</th>
                  <th scope="col">Text characters</th>
                  <th scope="col">Error</th>
                </tr>
              </thead>
              <tbody>
                {data.documents.map((doc, index) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: a bundle's documents keep their upload order and may share a name
                  <tr key={`${index}-${doc.name}`}>
                    <td>{doc.name}</td>
                    <td className="mono small">{doc.content_type}</td>
                    <td>{formatBytes(doc.size)}</td>
                    <td>{doc.pages ?? '—'}</td>
                    <td>{doc.text_chars ?? '—'}</td>
                    <td>{doc.error ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
          {data.status === 'completed' && <ExtractionPreview org={org} bundleId={bundleId} />}
          <p>
            <ConfirmButton
              label="Delete bundle"
              confirm="Yes, delete the bundle and its files"
              onConfirm={() => void doDelete()}
              disabled={remove.busy}
            />
          </p>
        </>
      )}
    </section>
  );
}

/** Choose a portal, see what its job would get from the bundle (each value with its source), then start that job. */
function ExtractionPreview(props: { org: string; bundleId: string }) {
  const { org, bundleId } = props;
  const navigate = useConsole((s) => s.navigate);
  const portals = useResource(() => call('listPortals', { params: { org_id: org } }), org);
  const [endpoint, setEndpoint] = useState('');
  const [preview, setPreview] = useState<{ endpoint: string; extraction: DocumentExtraction }>();
  const [askMissing, setAskMissing] = useState(true);
  const load = useAction();
  const start = useAction();
  const chosen = endpoint !== '' ? endpoint : (portals.data?.[0]?.endpoint_name ?? '');

  const doPreview = (event: FormEvent) => {
    event.preventDefault();
    if (chosen === '') return;
    void load.run(async () => {
      const extraction = await call('previewDocumentExtraction', {
        params: { org_id: org, document_bundle_id: bundleId },
        query: { endpoint_name: chosen },
      });
      setPreview({ endpoint: chosen, extraction });
    });
  };
  const doStart = (target: string) =>
    start.run(async () => {
      const { job_id } = await call('startJob', {
        params: { org_id: org, endpoint_name: target },
        body: { document_bundle_id: bundleId, human_in_the_loop: askMissing },
      });
      navigate({ page: 'job', endpoint: target, jobId: job_id });
    });

  return (
    <div className="documents-preview">
      <h2 className="panel-title">Fill a portal's form from these documents</h2>
      <ErrorNote detail={portals.error} />
      {portals.data && portals.data.length === 0 ? (
        <p className="muted">
          No portals yet. <a href={routeHash({ page: 'portal-new' })}>Create a portal</a> first.
        </p>
      ) : (
        <form className="inline-form wrap" onSubmit={doPreview} aria-label="Preview the extraction">
          <label>
            Portal
            <select
              value={chosen}
              onChange={(e) => {
                setEndpoint(e.target.value);
                setPreview(undefined);
              }}
            >
              {(portals.data ?? []).map((p) => (
                <option key={p.endpoint_name} value={p.endpoint_name}>
                  {p.endpoint_name}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" className="ghost" disabled={load.busy || chosen === ''}>
            {load.busy ? 'Reading…' : 'Preview extraction'}
          </button>
        </form>
      )}
      <ErrorNote detail={load.error} title="No preview:" />
      {preview && (
        <section aria-label={`What a job on ${preview.endpoint} would get`}>
          <SourcedValues values={preview.extraction.form_data} sources={preview.extraction.sources} />
          {preview.extraction.missing.length > 0 && (
            <>
              <h3 className="small">Not settled by the documents</h3>
              <ul className="missing-keys" aria-label="Missing values">
                {preview.extraction.missing.map((key) => (
                  <li key={key}>
                    <span className="mono">{key}</span>:{' '}
                    {preview.extraction.reasons[key] ?? 'nothing in the documents gives it'}
                  </li>
                ))}
              </ul>
            </>
          )}
          <div className="inline-form wrap">
            <label className="check">
              <input type="checkbox" checked={askMissing} onChange={(e) => setAskMissing(e.target.checked)} />
              Ask me for values the documents do not settle
            </label>
            <button
              type="button"
              className="primary"
              disabled={start.busy}
              onClick={() => void doStart(preview.endpoint)}
            >
              Start job from this bundle
            </button>
          </div>
          <ErrorNote detail={start.error} title="Not started:" />
        </section>
      )}
    </div>
  );
}
