import { HealthResponse } from '../../contract/common.ts';
import type { RouteTable } from '../routeTable.ts';

/** Liveness for scripts and the README check. */
export function addHealthRoutes(routes: RouteTable, version: string): void {
  routes.add({
    method: 'GET', url: '/health', tag: 'meta', summary: 'Service health', auth: 'none', response: HealthResponse,
    handler: () => ({ status: 'ok' as const, version }),
  });
}
