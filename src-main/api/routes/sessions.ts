import type { FastifyRequest } from 'fastify';
import { Session, SessionCreateRequest, SessionList, SessionListQuery, SessionParams } from '../../contract/session.ts';
import type { SessionService } from '../../engine/sessions/sessionService.ts';
import type { AccountPrincipal } from '../auth.ts';
import type { RouteTable } from '../routeTable.ts';

// The address the caller used (the host guard has vetted the Host header), so cdp_url and live_url open from where they are.
const originOf = (request: FastifyRequest): string => `${request.protocol}://${request.host}`;

const actorOf = (principal: AccountPrincipal) => ({ userId: principal.userId, workspaceId: principal.workspaceId, orgId: principal.orgId });

/** Interface §4.6 and local-service.md §5.2: browser sessions of the account key's workspace. */
export function addSessionRoutes(routes: RouteTable, sessions: SessionService): void {
  routes.add({
    method: 'POST', url: '/public/sessions', tag: 'sessions', summary: 'Create a browser session with its own browser and a CDP URL', auth: 'account',
    body: SessionCreateRequest, response: Session,
    handler: ({ principal, body, request }) => sessions.create(actorOf(principal), body, originOf(request)),
  });
  routes.add({
    method: 'GET', url: '/public/sessions', tag: 'sessions', summary: "List the workspace's sessions, newest first", auth: 'account',
    query: SessionListQuery, response: SessionList,
    handler: ({ principal, query, request }) => sessions.list(principal.workspaceId, query, originOf(request)),
  });
  routes.add({
    method: 'GET', url: '/public/sessions/:session_id', tag: 'sessions', summary: 'Get a session', auth: 'account',
    params: SessionParams, response: Session,
    handler: ({ principal, params, request }) => sessions.get(principal.workspaceId, params.session_id, originOf(request)),
  });
  routes.add({
    method: 'POST', url: '/public/sessions/:session_id/terminate', tag: 'sessions', summary: 'Terminate a session: its browser closes and its CDP URL stops answering', auth: 'account',
    params: SessionParams, response: Session,
    handler: ({ principal, params, request }) => sessions.terminate(principal.workspaceId, params.session_id, originOf(request)),
  });
}
