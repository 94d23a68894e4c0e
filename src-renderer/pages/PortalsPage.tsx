import { useState } from 'react';
import { call } from '../api.ts';
import { ConfirmButton, Empty, ErrorNote, Loading, PageHeader } from '../components/ui.tsx';
import { formatWhen } from '../format.ts';
import { useResource } from '../hooks.ts';
import { routeHash } from '../routes.ts';
import { useConsole } from '../store.ts';

/** The org's portals as cards: what each fills and where. Sample portals say so and can be deleted (and added again). */
export function PortalsPage() {
  const org = useConsole((s) => s.org);
  const [version, setVersion] = useState(0);
  const portals = useResource(() => call('listPortals', { params: { org_id: org } }), `${org}#${version}`);
  const samples = useResource(() => call('listSamples', { params: { org_id: org } }), `${org}#${version}`);
  const [error, setError] = useState<string | undefined>();
  const list = portals.data ?? [];
  const sampleOf = new Map(
    (samples.data?.samples ?? []).filter((s) => s.portal_exists).map((s) => [s.endpoint_name, s]),
  );
  const missing = (samples.data?.samples ?? []).filter((s) => !s.portal_exists);
  const act = async (what: () => Promise<unknown>): Promise<void> => {
    setError(undefined);
    try {
      await what();
      setVersion((v) => v + 1);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  const addSamples = missing.length > 0 && (
    <button
      type="button"
      className="button"
      onClick={() => void act(() => call('addSamples', { params: { org_id: org } }))}
    >
      Add the sample portals
    </button>
  );
  return (
    <section className="page">
      <PageHeader
        title="Portals"
        subtitle="A portal is a start URL, a task and the form data it takes."
        actions={
          <>
            {addSamples}
            <a className="button primary" href={routeHash({ page: 'portal-new' })}>
              New portal
            </a>
          </>
        }
      />
      <ErrorNote detail={portals.error ?? error} />
      {portals.loading && <Loading what="portals" />}
      {portals.data && list.length === 0 && (
        <Empty title="No portals yet">
          <p>Create one to describe a form to fill: where it starts, what to do, and the fields its jobs take.</p>
          <a className="button primary" href={routeHash({ page: 'portal-new' })}>
            Create your first portal
          </a>
        </Empty>
      )}
      <div className="cards">
        {list.map((portal) => {
          const fields = Object.keys((portal.form_schema.properties as Record<string, unknown> | undefined) ?? {});
          const sample = sampleOf.get(portal.endpoint_name);
          return (
            <div key={portal.id} className="card-wrap">
              <a className="card" href={routeHash({ page: 'portal', endpoint: portal.endpoint_name, tab: 'run' })}>
                <span className="card-title">
                  {portal.endpoint_name}
                  {sample && (
                    <span className="badge sample-badge" title={sample.description}>
                      {' '}
                      Sample
                    </span>
                  )}
                </span>
                <span className="card-url">{portal.start_url}</span>
                <span className="card-task">{portal.task}</span>
                <span className="card-meta">
                  {fields.length > 0 ? `${fields.length} field${fields.length === 1 ? '' : 's'}` : 'free-form data'} ·
                  updated {formatWhen(portal.updated_at)}
                </span>
              </a>
              {sample && (
                <ConfirmButton
                  label={`Delete sample ${portal.endpoint_name}`}
                  confirm={`Delete ${portal.endpoint_name} (until you add the samples again)`}
                  onConfirm={() =>
                    void act(() =>
                      call('deletePortal', { params: { org_id: org, endpoint_name: portal.endpoint_name } }),
                    )
                  }
                />
              )}
            </div>
          );
        })}
      </div>
    </section>
  );
}
