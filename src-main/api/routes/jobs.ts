import yazl from 'yazl';
import { OrgIdParam } from '../../contract/common.ts';
import {
  AnswerRequest, FINAL_JOB_STATUSES, JobActionResponse, JobIdQuery, JobList, JobListQuery, JobLogEvent, JobLogsQuery, JobStartRequest, JobStartResponse, JobStatusResponse,
  JobSummaryList,
} from '../../contract/job.ts';
import { PortalParams } from '../../contract/portal.ts';
import type { JobEvents } from '../../engine/jobs/jobEvents.ts';
import type { JobService } from '../../engine/jobs/jobService.ts';
import { tarGzStream } from '../../engine/jobs/tarball.ts';
import type { JobLogLine } from '../../store/jobs.ts';
import type { Store } from '../../store/store.ts';
import type { RouteTable } from '../routeTable.ts';

/** §4.2 and local-service.md §3: start, status, logs, answer, cancel, list, screenshots, downloads. */
export function addJobRoutes(routes: RouteTable, jobs: JobService, events: JobEvents, store: Store): void {
  routes.add({
    method: 'POST', url: '/jobs/:org_id/:endpoint_name/start', tag: 'jobs', summary: 'Start a job (asynchronous)', auth: 'org',
    params: PortalParams, body: JobStartRequest, response: JobStartResponse,
    handler: ({ params, body }) => jobs.start(params.org_id, params.endpoint_name, body),
  });
  routes.add({
    method: 'GET', url: '/task/:org_id/:endpoint_name/status', tag: 'jobs', summary: 'Get Job Status', auth: 'org',
    params: PortalParams, query: JobIdQuery, response: JobStatusResponse,
    handler: ({ params, query }) => jobs.status(params.org_id, params.endpoint_name, query.job_id),
  });
  routes.add({
    method: 'POST', url: '/jobs/:org_id/:endpoint_name/answer', tag: 'jobs', summary: 'Answer the pending question (409 unless waiting on it)', auth: 'org',
    params: PortalParams, query: JobIdQuery, body: AnswerRequest, response: JobActionResponse,
    handler: ({ params, query, body }) => jobs.answer(params.org_id, params.endpoint_name, query.job_id, body.question_id, body.answer),
  });
  routes.add({
    method: 'POST', url: '/jobs/:org_id/:endpoint_name/cancel', tag: 'jobs', summary: 'Cancel a queued or running job (409 if it ended)', auth: 'org',
    params: PortalParams, query: JobIdQuery, response: JobActionResponse,
    handler: ({ params, query }) => jobs.cancel(params.org_id, params.endpoint_name, query.job_id),
  });
  routes.add({
    method: 'GET', url: '/jobs/:org_id', tag: 'jobs', summary: 'List jobs, newest first', auth: 'org',
    params: OrgIdParam, query: JobListQuery, response: JobList,
    handler: ({ params, query }) => jobs.list(params.org_id, query),
  });
  routes.add({
    method: 'GET', url: '/jobs/:org_id/summary', tag: 'jobs', summary: 'List jobs, newest first, without each job\'s result and events (Portico addition: the console\'s Jobs page)', auth: 'org',
    params: OrgIdParam, query: JobListQuery, response: JobSummaryList,
    handler: ({ params, query }) => jobs.listSummaries(params.org_id, query),
  });
  routes.add({
    method: 'GET', url: '/task/:org_id/:endpoint_name/screenshots', tag: 'jobs', summary: 'Step screenshots as a tar.gz of screenshot_NNNN.png', auth: 'org',
    params: PortalParams, query: JobIdQuery, produces: { type: 'application/gzip' },
    handler: async ({ params, query, reply }) => {
      const files = await jobs.screenshots(params.org_id, params.endpoint_name, query.job_id);
      reply
        .type('application/gzip')
        .header('content-disposition', `attachment; filename="screenshots_${query.job_id}.tar.gz"`)
        .send(tarGzStream(files));
    },
  });
  routes.add({
    method: 'GET', url: '/task/:org_id/:endpoint_name/downloads', tag: 'jobs', summary: 'What the job\'s pages downloaded, as a zip', auth: 'org',
    params: PortalParams, query: JobIdQuery, produces: { type: 'application/zip' },
    handler: async ({ params, query, reply }) => {
      const files = await jobs.downloads(params.org_id, params.endpoint_name, query.job_id);
      const zip = new yazl.ZipFile();
      for (const file of files) zip.addFile(file.path, file.name);
      zip.end();
      reply
        .type('application/zip')
        .header('content-disposition', `attachment; filename="downloads_${query.job_id}.zip"`)
        .send(zip.outputStream);
    },
  });
  routes.add({
    method: 'GET', url: '/task/:org_id/:endpoint_name/logs', tag: 'jobs', summary: 'Stream Job Logs (text/event-stream; replays from the start, ends with the job; `status=true` also pushes `status` events)', auth: 'org',
    params: PortalParams, query: JobLogsQuery, produces: { type: 'text/event-stream', schema: JobLogEvent },
    handler: async ({ params, query, reply, request }) => {
      const job = jobs.getRecord(params.org_id, params.endpoint_name, query.job_id);
      reply.hijack();
      const out = reply.raw;
      out.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive', 'x-accel-buffering': 'no' });
      let lastSeq = 0;
      let ended = false;
      const send = (line: JobLogLine): void => {
        if (line.seq <= lastSeq) return;
        lastSeq = line.seq;
        const event: JobLogEvent = { seq: line.seq, timestamp: line.timestamp, line: line.line };
        out.write(`id: ${line.seq}\nevent: log\ndata: ${JSON.stringify(event)}\n\n`);
      };
      // With status=true, the job's status response after each change, so a page need not poll while connected.
      let lastStatus = '';
      const pushStatus = (): void => {
        if (!query.status) return;
        const record = store.jobs.get(job.id);
        if (!record) return;
        const body = JSON.stringify(JobStatusResponse.parse(jobs.toStatus(record)));
        if (body === lastStatus) return;
        lastStatus = body;
        out.write(`event: status\ndata: ${body}\n\n`);
      };
      const finish = (status: string): void => {
        if (ended) return;
        ended = true;
        for (const line of store.jobs.logs(job.id, lastSeq)) send(line);
        pushStatus();
        out.end(`event: end\ndata: ${JSON.stringify({ status })}\n\n`);
        cleanup();
      };
      const logSub = events.onDidLog(({ jobId, line }) => {
        if (jobId === job.id && !ended) send(line);
      });
      const statusSub = events.onDidChangeStatus((changed) => {
        if (changed.id !== job.id || ended) return;
        if (FINAL_JOB_STATUSES.includes(changed.status)) finish(changed.status);
        else pushStatus();
      });
      const eventSub = events.onDidAppendEvent(({ job: changed }) => {
        if (changed.id === job.id && !ended) pushStatus();
      });
      const heartbeat = setInterval(() => out.write(': keep-alive\n\n'), 15_000);
      const cleanup = (): void => {
        logSub.dispose();
        statusSub.dispose();
        eventSub.dispose();
        clearInterval(heartbeat);
      };
      request.raw.on('close', () => {
        ended = true;
        cleanup();
      });
      for (const line of store.jobs.logs(job.id)) send(line);
      pushStatus();
      const current = store.jobs.get(job.id);
      if (current && FINAL_JOB_STATUSES.includes(current.status)) finish(current.status);
    },
  });
}
