import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { JobIdQuery } from '../../contract/job.ts';
import { PortalParams } from '../../contract/portal.ts';
import { NotFoundError } from '../../base/errors.ts';
import type { JobService } from '../../engine/jobs/jobService.ts';
import type { SessionService } from '../../engine/sessions/sessionService.ts';
import { SessionParams } from '../../contract/session.ts';
import type { FastifyReply } from 'fastify';
import type { RouteTable } from '../routeTable.ts';

/** A job's screen recording (`video_recording_url` points here): the WebM as recorded, or 404 `{detail}`. */
export function addRecordingRoutes(routes: RouteTable, jobs: JobService): void {
  routes.add({
    method: 'GET', url: '/task/:org_id/:endpoint_name/recording', tag: 'jobs', summary: 'The job\'s screen recording (video/webm) when it was recorded', auth: 'org',
    params: PortalParams, query: JobIdQuery, produces: { type: 'video/webm' },
    handler: async ({ params, query, reply }) => {
      await sendWebm(reply, jobs.recording(params.org_id, params.endpoint_name, query.job_id), 'This job has no recording', `recording_${query.job_id}.webm`);
    },
  });
}

/** A session's screen recording (local-service.md §5.2), for the account key's workspace. */
export function addSessionRecordingRoute(routes: RouteTable, sessions: SessionService): void {
  routes.add({
    method: 'GET', url: '/public/sessions/:session_id/recording', tag: 'sessions', summary: 'The session\'s screen recording (video/webm) when it was recorded', auth: 'account',
    params: SessionParams, produces: { type: 'video/webm' },
    handler: async ({ principal, params, reply }) => {
      const path = sessions.recording(principal.workspaceId, params.session_id);
      await sendWebm(reply, path, 'This session has no recording', `recording_${params.session_id.replace(/[^A-Za-z0-9-]/g, '')}.webm`);
    },
  });
}

async function sendWebm(reply: FastifyReply, path: string, missing: string, filename: string): Promise<void> {
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile()) throw new NotFoundError(missing);
  reply
    .type('video/webm')
    .header('content-length', String(info.size))
    .header('content-disposition', `inline; filename="${filename}"`)
    .header('cache-control', 'private, max-age=3600')
    .send(createReadStream(path));
}
