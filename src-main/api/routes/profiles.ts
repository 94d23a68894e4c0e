import type { FastifyRequest } from 'fastify';
import { OrgIdParam } from '../../contract/common.ts';
import {
  ProfileCreateRequest,
  ProfileList,
  ProfileParams,
  ProfileSessionClosed,
  ProfileSessionCreated,
  ProfileSessionList,
  ProfileSessionParams,
} from '../../contract/profile.ts';
import type { ProfileService } from '../../engine/profiles/profileService.ts';
import type { RouteTable } from '../routeTable.ts';

// The address the caller used (the host guard has vetted the Host header), so a live_url opens from where they are.
const baseUrlOf = (request: FastifyRequest): string => `${request.protocol}://${request.host}`;

/** §4.3 and local-service §6: browser profiles and their live login sessions. */
export function addProfileRoutes(routes: RouteTable, profiles: ProfileService): void {
  routes.add({
    method: 'POST', url: '/profiles/:org_id', tag: 'profiles', summary: 'Create a profile (or take profile_id) and open a live login session on it', auth: 'org',
    params: OrgIdParam, body: ProfileCreateRequest, response: ProfileSessionCreated,
    handler: ({ params, body, request }) => profiles.openSession(params.org_id, body, baseUrlOf(request)),
  });
  routes.add({
    method: 'GET', url: '/profiles/:org_id', tag: 'profiles', summary: 'List profiles', auth: 'org',
    params: OrgIdParam, response: ProfileList,
    handler: ({ params }) => profiles.list(params.org_id),
  });
  routes.add({
    method: 'GET', url: '/profiles/:org_id/sessions', tag: 'profiles', summary: 'List open login sessions (Portico addition)', auth: 'org',
    params: OrgIdParam, response: ProfileSessionList,
    handler: ({ params }) => profiles.sessions.list(params.org_id),
  });
  routes.add({
    method: 'POST', url: '/profiles/:org_id/sessions/:session_id/close', tag: 'profiles', summary: 'Close a login session, saving the profile state', auth: 'org',
    params: ProfileSessionParams, response: ProfileSessionClosed,
    handler: ({ params }) => profiles.sessions.closeSession(params.org_id, params.session_id),
  });
  routes.add({
    method: 'DELETE', url: '/profiles/:org_id/:profile_id', tag: 'profiles', summary: 'Delete a profile and its saved state (409 while in use)', auth: 'org',
    params: ProfileParams, status: 204,
    handler: ({ params }) => profiles.delete(params.org_id, params.profile_id),
  });
}
