import { useEffect, useRef } from 'react';
import { create } from 'zustand';
import type { JobStatusResponse } from '../../src-main/contract/job.ts';
import { call } from '../api.ts';
import type { Route } from '../routes.ts';
import { useConsole } from '../store.ts';
import type { WaitingJob } from './PendingQuestions.tsx';

/** Kept in this browser only: the permission it depends on is this browser's too. */
const STORAGE_KEY = 'portico.notifyQuestions';

export type NotifyPermission = NotificationPermission | 'unsupported';

const permissionNow = (): NotifyPermission => ('Notification' in window ? Notification.permission : 'unsupported');

interface NotifyState {
  /** The person opted in (Settings) and the browser allows notifications. */
  enabled: boolean;
  permission: NotifyPermission;
  /** Asks the browser for permission (it must follow a click), then keeps the choice. */
  enable(): Promise<void>;
  disable(): void;
}

export const useNotifyQuestions = create<NotifyState>((set) => ({
  enabled: localStorage.getItem(STORAGE_KEY) === '1' && permissionNow() === 'granted',
  permission: permissionNow(),
  async enable() {
    if (!('Notification' in window)) {
      set({ permission: 'unsupported', enabled: false });
      return;
    }
    const permission = Notification.permission === 'granted' ? 'granted' : await Notification.requestPermission();
    const enabled = permission === 'granted';
    if (enabled) localStorage.setItem(STORAGE_KEY, '1');
    set({ permission, enabled });
  },
  disable() {
    localStorage.removeItem(STORAGE_KEY);
    set({ enabled: false, permission: permissionNow() });
  },
}));

/** The question a waiting job asks, for the notification's text; undefined when it cannot be read. */
async function questionOf(job: WaitingJob, org: string): Promise<string | undefined> {
  try {
    const status: JobStatusResponse = await call('getJobStatus', {
      params: { org_id: org, endpoint_name: job.endpoint },
      query: { job_id: job.jobId },
    });
    const answered = new Set(status.events.flatMap((e) => (e.type === 'answer' ? [e.data.question_id] : [])));
    return status.events
      .flatMap((e) => (e.type === 'question' && !answered.has(e.data.question_id) ? [e.data.question] : []))
      .at(-1);
  } catch {
    return undefined;
  }
}

/**
 * A desktop notification for each job that starts waiting for an answer while the console is open
 * (opted in under Settings): not for questions already waiting when it opened, and not while the person
 * is looking at that job's page. Clicking it brings the console forward on the job.
 */
export function useQuestionNotifications(jobs: WaitingJob[], loaded: boolean, route: Route): void {
  const enabled = useNotifyQuestions((s) => s.enabled);
  const org = useConsole((s) => s.org);
  const navigate = useConsole((s) => s.navigate);
  const seen = useRef<{ org: string; jobs: Set<string> } | undefined>(undefined);
  const routeRef = useRef(route);
  routeRef.current = route;

  useEffect(() => {
    if (!loaded) return;
    if (seen.current?.org !== org) {
      // Those already waiting when the console opened (or the org was switched to) are shown in the page, not announced.
      seen.current = { org, jobs: new Set(jobs.map((j) => j.jobId)) };
      return;
    }
    const known = seen.current.jobs;
    for (const job of jobs) {
      if (known.has(job.jobId)) continue;
      known.add(job.jobId);
      if (!enabled || Notification.permission !== 'granted') continue;
      const current = routeRef.current;
      const onItsPage =
        current.page === 'job' &&
        current.jobId === job.jobId &&
        document.visibilityState === 'visible' &&
        document.hasFocus();
      if (onItsPage) continue;
      void questionOf(job, org).then((question) => {
        const notification = new Notification(`${job.endpoint} needs your answer`, {
          body: question ?? 'A job is waiting for your answer.',
          tag: `portico-question-${job.jobId}`,
        });
        notification.onclick = () => {
          window.focus();
          navigate({ page: 'job', endpoint: job.endpoint, jobId: job.jobId });
          notification.close();
        };
      });
    }
  }, [jobs, loaded, enabled, org, navigate]);
}

/** The Settings switch: opt in (asking the browser), opt out, and what the browser currently allows. */
export function NotificationsSection() {
  const { enabled, permission, enable, disable } = useNotifyQuestions();
  const toggle = (on: boolean) => (on ? void enable() : disable());
  return (
    <section className="panel settings-section" aria-labelledby="notifications-title">
      <h2 id="notifications-title">Notifications</h2>
      <div className="setting">
        <label className="check">
          <input
            type="checkbox"
            checked={enabled}
            disabled={permission === 'unsupported'}
            onChange={(e) => toggle(e.target.checked)}
          />
          Notify me on this computer when a job asks a question
        </label>
        <p className="muted small" data-testid="notify-status" role="status">
          {permission === 'unsupported'
            ? 'This browser has no desktop notifications.'
            : permission === 'denied'
              ? 'The browser blocks notifications for this page: allow them in its site settings, then tick the box again.'
              : enabled
                ? 'On in this browser: a notification names the portal and its question; click it to answer.'
                : 'Off. Only this browser is affected; the console itself always shows waiting questions.'}
        </p>
      </div>
    </section>
  );
}
