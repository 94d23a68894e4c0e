import type { FastifyRequest } from 'fastify';
import type { OperationsTagged } from '../../contract/operations.ts';
import type { SessionService } from '../../engine/sessions/sessionService.ts';
import type { AccountPrincipal } from '../auth.ts';
import type { Handlers } from '../operationTable.ts';
import { sessionRecordingHandler } from './recordings.ts';

// The address the caller used (the host guard has vetted the Host header), so cdp_url and live_url open from where they are.
const originOf = (request: FastifyRequest): string => `${request.protocol}://${request.host}`;

const actorOf = (principal: AccountPrincipal) => ({
  userId: principal.userId,
  workspaceId: principal.workspaceId,
  orgId: principal.orgId,
});

/** Interface §4.6 and local-service.md §5.2: browser sessions of the account key's workspace. */
export function sessionHandlers(sessions: SessionService): Handlers<OperationsTagged<'sessions'>> {
  return {
    createSession: ({ principal, body, request }) => sessions.create(actorOf(principal), body, originOf(request)),
    listSessions: ({ principal, query, request }) => sessions.list(principal.workspaceId, query, originOf(request)),
    getSession: ({ principal, params, request }) =>
      sessions.get(principal.workspaceId, params.session_id, originOf(request)),
    terminateSession: ({ principal, params, request }) =>
      sessions.terminate(principal.workspaceId, params.session_id, originOf(request)),
    getSessionRecording: sessionRecordingHandler(sessions),
  };
}
