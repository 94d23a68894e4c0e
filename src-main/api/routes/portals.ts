import { OrgIdParam } from '../../contract/common.ts';
import { Portal, PortalCreateRequest, PortalList, PortalParams, PortalUpdateRequest } from '../../contract/portal.ts';
import type { PortalService } from '../../engine/portalService.ts';
import type { RouteTable } from '../routeTable.ts';

/** §4.1: portals of an organization, keyed by endpoint_name. */
export function addPortalRoutes(routes: RouteTable, portals: PortalService): void {
  routes.add({
    method: 'POST', url: '/portals/:org_id', tag: 'portals', summary: 'Create a portal', auth: 'org',
    params: OrgIdParam, body: PortalCreateRequest, response: Portal,
    handler: ({ params, body }) => portals.create(params.org_id, body),
  });
  routes.add({
    method: 'GET', url: '/portals/:org_id', tag: 'portals', summary: 'List portals', auth: 'org',
    params: OrgIdParam, response: PortalList,
    handler: ({ params }) => portals.list(params.org_id),
  });
  routes.add({
    method: 'GET', url: '/portals/:org_id/:endpoint_name', tag: 'portals', summary: 'Get a portal', auth: 'org',
    params: PortalParams, response: Portal,
    handler: ({ params }) => portals.get(params.org_id, params.endpoint_name),
  });
  routes.add({
    method: 'PATCH', url: '/portals/:org_id/:endpoint_name', tag: 'portals', summary: 'Update a portal (only the fields given)', auth: 'org',
    params: PortalParams, body: PortalUpdateRequest, response: Portal,
    handler: ({ params, body }) => portals.update(params.org_id, params.endpoint_name, body),
  });
  routes.add({
    method: 'DELETE', url: '/portals/:org_id/:endpoint_name', tag: 'portals', summary: 'Delete a portal and its configuration', auth: 'org',
    params: PortalParams, status: 204,
    handler: ({ params }) => portals.delete(params.org_id, params.endpoint_name),
  });
}
