import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { JobIdQuery } from '../../contract/job.ts';
import { PortalParams } from '../../contract/portal.ts';
import { NotFoundError } from '../../base/errors.ts';
import type { JobService } from '../../engine/jobs/jobService.ts';
import type { RouteTable } from '../routeTable.ts';

/** A job's screen recording (`video_recording_url` points here): the WebM as recorded, or 404 `{detail}`. */
export function addRecordingRoutes(routes: RouteTable, jobs: JobService): void {
  routes.add({
    method: 'GET', url: '/task/:org_id/:endpoint_name/recording', tag: 'jobs', summary: 'The job\'s screen recording (video/webm) when it was recorded', auth: 'org',
    params: PortalParams, query: JobIdQuery, produces: { type: 'video/webm' },
    handler: async ({ params, query, reply }) => {
      const path = jobs.recording(params.org_id, params.endpoint_name, query.job_id);
      const info = await stat(path).catch(() => undefined);
      if (!info?.isFile()) throw new NotFoundError('This job has no recording');
      reply
        .type('video/webm')
        .header('content-length', String(info.size))
        .header('content-disposition', `inline; filename="recording_${query.job_id}.webm"`)
        .header('cache-control', 'private, max-age=3600')
        .send(createReadStream(path));
    },
  });
}
