/** The console's pages, addressed by the URL hash so reloads and the back button work. */
export type Route =
  | { page: 'jobs' }
  | { page: 'job'; endpoint: string; jobId: string }
  | { page: 'portals' }
  | { page: 'portal-new' }
  | { page: 'portal'; endpoint: string; tab: 'run' | 'edit' }
  | { page: 'profiles' }
  | { page: 'skills' }
  | { page: 'sessions'; tab: 'sessions' | 'cache' }
  | { page: 'credentials' }
  | { page: 'accounts' }
  | { page: 'workflows' }
  | { page: 'workflow'; workflowId: string }
  | { page: 'workflow-execution'; workflowId: string; executionId: string }
  | { page: 'documents'; bundleId?: string }
  | { page: 'settings' };

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  const [first, second, third] = parts;
  switch (first) {
    case 'jobs':
      return second !== undefined && third !== undefined
        ? { page: 'job', endpoint: second, jobId: third }
        : { page: 'jobs' };
    case 'portals':
      if (second === undefined) return { page: 'portals' };
      if (second === 'new' && third === undefined) return { page: 'portal-new' };
      return { page: 'portal', endpoint: second, tab: third === 'edit' ? 'edit' : 'run' };
    case 'profiles':
      return { page: 'profiles' };
    case 'skills':
      return { page: 'skills' };
    case 'sessions':
      return { page: 'sessions', tab: second === 'cache' ? 'cache' : 'sessions' };
    case 'credentials':
      return { page: 'credentials' };
    case 'accounts':
      return { page: 'accounts' };
    case 'workflows':
      if (second === undefined) return { page: 'workflows' };
      return third === undefined
        ? { page: 'workflow', workflowId: second }
        : { page: 'workflow-execution', workflowId: second, executionId: third };
    case 'documents':
      return second === undefined ? { page: 'documents' } : { page: 'documents', bundleId: second };
    case 'settings':
      return { page: 'settings' };
    default:
      return { page: 'jobs' };
  }
}

export function routeHash(route: Route): string {
  const enc = encodeURIComponent;
  switch (route.page) {
    case 'job':
      return `#/jobs/${enc(route.endpoint)}/${enc(route.jobId)}`;
    case 'portal-new':
      return '#/portals/new';
    case 'portal':
      return `#/portals/${enc(route.endpoint)}${route.tab === 'edit' ? '/edit' : ''}`;
    case 'sessions':
      return route.tab === 'cache' ? '#/sessions/cache' : '#/sessions';
    case 'workflow':
      return `#/workflows/${enc(route.workflowId)}`;
    case 'workflow-execution':
      return `#/workflows/${enc(route.workflowId)}/${enc(route.executionId)}`;
    case 'documents':
      return route.bundleId === undefined ? '#/documents' : `#/documents/${enc(route.bundleId)}`;
    default:
      return `#/${route.page}`;
  }
}
