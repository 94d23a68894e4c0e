import { call } from '../api.ts';
import { Empty, ErrorNote, Loading, PageHeader } from '../components/ui.tsx';
import { formatWhen } from '../format.ts';
import { useResource } from '../hooks.ts';
import { routeHash } from '../routes.ts';
import { useConsole } from '../store.ts';

/** The org's portals as cards: what each fills and where. */
export function PortalsPage() {
  const org = useConsole((s) => s.org);
  const portals = useResource(() => call('listPortals', { params: { org_id: org } }), org);
  const list = portals.data ?? [];
  return (
    <section className="page">
      <PageHeader
        title="Portals"
        subtitle="A portal is a start URL, a task and the form data it takes."
        actions={<a className="button primary" href={routeHash({ page: 'portal-new' })}>New portal</a>}
      />
      <ErrorNote detail={portals.error} />
      {portals.loading && <Loading what="portals" />}
      {portals.data && list.length === 0 && (
        <Empty title="No portals yet">
          <p>Create one to describe a form to fill: where it starts, what to do, and the fields its jobs take.</p>
          <a className="button primary" href={routeHash({ page: 'portal-new' })}>Create your first portal</a>
        </Empty>
      )}
      <div className="cards">
        {list.map((portal) => {
          const fields = Object.keys((portal.form_schema.properties as Record<string, unknown> | undefined) ?? {});
          return (
            <a key={portal.id} className="card" href={routeHash({ page: 'portal', endpoint: portal.endpoint_name, tab: 'run' })}>
              <span className="card-title">{portal.endpoint_name}</span>
              <span className="card-url">{portal.start_url}</span>
              <span className="card-task">{portal.task}</span>
              <span className="card-meta">
                {fields.length > 0 ? `${fields.length} field${fields.length === 1 ? '' : 's'}` : 'free-form data'} · updated {formatWhen(portal.updated_at)}
              </span>
            </a>
          );
        })}
      </div>
    </section>
  );
}
