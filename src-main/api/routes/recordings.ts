import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { FastifyReply } from 'fastify';
import { NotFoundError } from '../../base/errors.ts';
import type { JobService } from '../../engine/jobs/jobService.ts';
import type { SessionService } from '../../engine/sessions/sessionService.ts';
import type { Handler } from '../operationTable.ts';

/** A job's screen recording (`video_recording_url` points here): the WebM as recorded, or 404 `{detail}`. */
export const jobRecordingHandler =
  (jobs: JobService): Handler<'getJobRecording'> =>
  async ({ params, query, reply }) => {
    await sendWebm(
      reply,
      jobs.recording(params.org_id, params.endpoint_name, query.job_id),
      'This job has no recording',
      `recording_${query.job_id}.webm`,
    );
  };

/** A session's screen recording (local-service.md §5.2), for the account key's workspace. */
export const sessionRecordingHandler =
  (sessions: SessionService): Handler<'getSessionRecording'> =>
  async ({ principal, params, reply }) => {
    const path = sessions.recording(principal.workspaceId, params.session_id);
    await sendWebm(
      reply,
      path,
      'This session has no recording',
      `recording_${params.session_id.replace(/[^A-Za-z0-9-]/g, '')}.webm`,
    );
  };

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
