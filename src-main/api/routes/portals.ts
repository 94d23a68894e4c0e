import type { OperationsTagged } from '../../contract/operations.ts';
import type { PortalService } from '../../engine/portalService.ts';
import type { Handlers } from '../operationTable.ts';

/** §4.1: portals of an organization, keyed by endpoint_name. */
export function portalHandlers(portals: PortalService): Handlers<OperationsTagged<'portals'>> {
  return {
    createPortal: ({ params, body }) => portals.create(params.org_id, body),
    listPortals: ({ params }) => portals.list(params.org_id),
    getPortal: ({ params }) => portals.get(params.org_id, params.endpoint_name),
    updatePortal: ({ params, body }) => portals.update(params.org_id, params.endpoint_name, body),
    deletePortal: ({ params }) => portals.delete(params.org_id, params.endpoint_name),
  };
}
