import { ActionCacheList, ActionCacheQuery, SingleActionRequest, SingleActionResponse } from '../../contract/singleAction.ts';
import type { ActionService } from '../../engine/actions/actionService.ts';
import type { RouteTable } from '../routeTable.ts';

/** Interface §4.5 and local-service.md §5.3: one action in a live session of the key's workspace, and the step cache. */
export function addSingleActionRoutes(routes: RouteTable, actions: ActionService): void {
  routes.add({
    method: 'POST', url: '/public/single-actions/run-action', tag: 'single-actions', summary: 'Run one plain-English browser action in a session (cached per id or action and page)', auth: 'account',
    body: SingleActionRequest, response: SingleActionResponse,
    handler: ({ principal, body }) => actions.run(principal.workspaceId, body),
  });
  routes.add({
    method: 'GET', url: '/public/single-actions/cache', tag: 'single-actions', summary: "The workspace's cached steps with hit and miss counts (Portico addition)", auth: 'account',
    query: ActionCacheQuery, response: ActionCacheList,
    handler: ({ principal, query }) => actions.listCache(principal.workspaceId, query),
  });
}
