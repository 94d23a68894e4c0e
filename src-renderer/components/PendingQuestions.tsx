import { useEffect } from 'react';
import { call } from '../api.ts';
import { endpointOf } from '../format.ts';
import { useResource } from '../hooks.ts';
import { routeHash, type Route } from '../routes.ts';
import { useConsole } from '../store.ts';
import { useNotifyQuestions } from './Notifications.tsx';

export interface WaitingJob {
  endpoint: string;
  jobId: string;
}

/** The org's jobs waiting for an answer, oldest first, refreshed every few seconds from any page. */
export function useWaitingJobs(): { jobs: WaitingJob[]; loaded: boolean } {
  const org = useConsole((s) => s.org);
  // With desktop notifications on, a hidden tab keeps checking: that is when a notification matters.
  const notify = useNotifyQuestions((s) => s.enabled);
  const waiting = useResource(
    async () => ({
      org,
      list: await call('listJobSummaries', {
        params: { org_id: org },
        query: { status: 'waiting_for_input', limit: 50 },
      }),
    }),
    `waiting/${org}`,
    3000,
    undefined,
    { whileHidden: notify },
  );
  const answersSent = useConsole((s) => s.answersSent);
  const reload = waiting.reload;
  useEffect(() => {
    if (answersSent > 0) reload();
  }, [answersSent, reload]);
  // A stopped service answers nobody's questions: its last list is not shown as still waiting.
  const reachable = useConsole((s) => s.reachable);
  // Until the switched-to org's list arrives, the previous org's is not shown as this one's.
  const current = waiting.data?.org === org ? waiting.data.list : undefined;
  const jobs = reachable
    ? (current?.jobs ?? []).map((job) => ({ endpoint: endpointOf(job.portal_id), jobId: job.job_id })).reverse()
    : [];
  const count = jobs.length;
  useEffect(() => {
    document.title = count > 0 ? `(${count}) Needs answer — Portico` : 'Portico';
  }, [count]);
  return { jobs, loaded: current !== undefined && reachable };
}

/** The count on the Jobs navigation item; the link names it through `aria-describedby` (its name stays "Jobs"). */
export function WaitingBadge(props: { count: number; descriptionId: string }) {
  if (props.count === 0) return null;
  return (
    <>
      <span className="nav-badge" aria-hidden data-testid="waiting-badge">
        {props.count}
      </span>
      <span id={props.descriptionId} hidden>
        {props.count === 1 ? '1 job needs an answer' : `${props.count} jobs need an answer`}
      </span>
    </>
  );
}

/** A lasting notice on every page but the waiting job's own: a job asks a question, with a link to it. */
export function WaitingNotice(props: { jobs: WaitingJob[]; route: Route }) {
  const route = props.route;
  const others = props.jobs.filter((job) => !(route.page === 'job' && route.jobId === job.jobId));
  const first = others[0];
  if (first === undefined) return null;
  return (
    <div className="question-toast" role="status" aria-live="polite">
      <strong>
        {others.length === 1
          ? 'A job is waiting for your answer.'
          : `${others.length} jobs are waiting for your answer.`}
      </strong>{' '}
      <a href={routeHash({ page: 'job', endpoint: first.endpoint, jobId: first.jobId })}>Answer {first.endpoint}</a>
    </div>
  );
}
