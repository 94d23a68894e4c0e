import { createReadStream } from 'node:fs';
import type { JobService } from '../../engine/jobs/jobService.ts';
import type { Handler } from '../operationTable.ts';

/** One step screenshot as a PNG (Portico addition): the console's filmstrip, available while the job runs. */
export const jobScreenshotHandler =
  (jobs: JobService): Handler<'getJobScreenshot'> =>
  async ({ params, query, reply }) => {
    const path = await jobs.screenshotFile(params.org_id, params.endpoint_name, query.job_id, params.index);
    reply.type('image/png').header('cache-control', 'private, max-age=3600').send(createReadStream(path));
  };
