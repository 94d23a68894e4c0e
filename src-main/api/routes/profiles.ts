import type { FastifyRequest } from 'fastify';
import type { OperationsTagged } from '../../contract/operations.ts';
import type { ProfileService } from '../../engine/profiles/profileService.ts';
import type { Handlers } from '../operationTable.ts';

// The address the caller used (the host guard has vetted the Host header), so a live_url opens from where they are.
const baseUrlOf = (request: FastifyRequest): string => `${request.protocol}://${request.host}`;

/** §4.3 and local-service §6: browser profiles and their live login sessions. */
export function profileHandlers(profiles: ProfileService): Handlers<OperationsTagged<'profiles'>> {
  return {
    openProfileSession: ({ params, body, request }) => profiles.openSession(params.org_id, body, baseUrlOf(request)),
    listProfiles: ({ params }) => profiles.list(params.org_id),
    listProfileSessions: ({ params }) => profiles.sessions.list(params.org_id),
    closeProfileSession: ({ params }) => profiles.sessions.closeSession(params.org_id, params.session_id),
    deleteProfile: ({ params }) => profiles.delete(params.org_id, params.profile_id),
  };
}
