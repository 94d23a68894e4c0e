import { createReadStream } from 'node:fs';
import { ScreenshotParams } from '../../contract/console.ts';
import { JobIdQuery } from '../../contract/job.ts';
import type { JobService } from '../../engine/jobs/jobService.ts';
import type { RouteTable } from '../routeTable.ts';

/** One step screenshot as a PNG (Portico addition): the console's filmstrip, available while the job runs. */
export function addJobScreenshotRoute(routes: RouteTable, jobs: JobService): void {
  routes.add({
    method: 'GET', url: '/task/:org_id/:endpoint_name/screenshots/:index', tag: 'jobs', summary: 'One step screenshot (0-based, step order) as image/png', auth: 'org',
    params: ScreenshotParams, query: JobIdQuery, produces: { type: 'image/png' },
    handler: async ({ params, query, reply }) => {
      const path = await jobs.screenshotFile(params.org_id, params.endpoint_name, query.job_id, params.index);
      reply.type('image/png').header('cache-control', 'private, max-age=3600').send(createReadStream(path));
    },
  });
}
