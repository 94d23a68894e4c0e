import type { JobStatus } from '../src-main/contract/job.ts';

/** `default/signup` → `signup`: the endpoint part of a job's `portal_id`. */
export const endpointOf = (portalId: string): string => portalId.slice(portalId.indexOf('/') + 1);

/** "1 min 05 s", "42 s", "2 h 03 min". */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${String(seconds % 60).padStart(2, '0')} s`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}

/** "just now", "5 min ago", else a local date and time. */
export function formatWhen(iso: string, now = Date.now()): string {
  const ms = now - Date.parse(iso);
  if (ms < 45_000) return 'just now';
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min ago`;
  return new Date(iso).toLocaleString();
}

export const statusLabel: Record<JobStatus, string> = {
  queued: 'Queued',
  running: 'Running',
  waiting_for_input: 'Needs answer',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

export const isActive = (status: JobStatus): boolean =>
  status === 'queued' || status === 'running' || status === 'waiting_for_input';
