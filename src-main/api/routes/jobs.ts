import { lazyRequire } from '../../base/lazyRequire.ts';
import { FINAL_JOB_STATUSES, JobStatusResponse, type JobLogEvent } from '../../contract/job.ts';
import type { OperationsTagged } from '../../contract/operations.ts';
import type { JobEvents } from '../../engine/jobs/jobEvents.ts';
import type { JobService } from '../../engine/jobs/jobService.ts';
import { tarGzStream } from '../../engine/jobs/tarball.ts';
import type { JobLogLine } from '../../store/jobs.ts';
import type { Store } from '../../store/store.ts';
import type { Handlers } from '../operationTable.ts';
import { jobScreenshotHandler } from './jobScreenshots.ts';
import { jobRecordingHandler } from './recordings.ts';

const yazl = lazyRequire<typeof import('yazl')>('yazl');

/** §4.2 and local-service.md §3: start, status, logs, answer, cancel, list, screenshots, downloads, recording. */
export function jobHandlers(jobs: JobService, events: JobEvents, store: Store): Handlers<OperationsTagged<'jobs'>> {
  return {
    startJob: ({ params, body }) => jobs.start(params.org_id, params.endpoint_name, body),
    getJobStatus: ({ params, query }) => jobs.status(params.org_id, params.endpoint_name, query.job_id),
    answerJob: ({ params, query, body }) =>
      jobs.answer(params.org_id, params.endpoint_name, query.job_id, body.question_id, body.answer),
    cancelJob: ({ params, query }) => jobs.cancel(params.org_id, params.endpoint_name, query.job_id),
    listJobs: ({ params, query }) => jobs.list(params.org_id, query),
    listJobSummaries: ({ params, query }) => jobs.listSummaries(params.org_id, query),
    getJobScreenshots: async ({ params, query, reply }) => {
      const files = await jobs.screenshots(params.org_id, params.endpoint_name, query.job_id);
      reply
        .type('application/gzip')
        .header('content-disposition', `attachment; filename="screenshots_${query.job_id}.tar.gz"`)
        .send(tarGzStream(files));
    },
    getJobDownloads: async ({ params, query, reply }) => {
      const files = await jobs.downloads(params.org_id, params.endpoint_name, query.job_id);
      const zip = new (yazl().ZipFile)();
      for (const file of files) zip.addFile(file.path, file.name);
      zip.end();
      reply
        .type('application/zip')
        .header('content-disposition', `attachment; filename="downloads_${query.job_id}.zip"`)
        .send(zip.outputStream);
    },
    streamJobLogs: async ({ params, query, reply, request }) => {
      const job = jobs.getRecord(params.org_id, params.endpoint_name, query.job_id);
      reply.hijack();
      const out = reply.raw;
      out.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
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
      // Subscribed by job id: another job's lines, events and status changes never reach this stream.
      const logSub = events.onDidLogOf(job.id, (line) => {
        if (!ended) send(line);
      });
      const statusSub = events.onDidChangeStatusOf(job.id, (changed) => {
        if (ended) return;
        if (FINAL_JOB_STATUSES.includes(changed.status)) finish(changed.status);
        else pushStatus();
      });
      const eventSub = events.onDidAppendEventOf(job.id, () => {
        if (!ended) pushStatus();
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
    getJobScreenshot: jobScreenshotHandler(jobs),
    getJobRecording: jobRecordingHandler(jobs),
  };
}
