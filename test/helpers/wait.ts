export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export interface UntilOptions {
  /** How long to wait before failing (30 s unless said: a loaded CI machine is slow, and a wait that can fail early says so through `fail`). */
  timeoutMs?: number;
  /**
   * Asked after each unsuccessful probe: a string when what is awaited can no longer come (a job that
   * ended otherwise, a process that exited). The wait then fails at once, saying what was seen,
   * instead of waiting out its timeout.
   */
  fail?: () => string | undefined | Promise<string | undefined>;
}

/** Polls `probe` every 50 ms until it returns something truthy, or fails naming `what` (at once when `fail` says so). */
export async function until<T>(
  probe: () => T | Promise<T>,
  what: string,
  options: number | UntilOptions = {},
): Promise<NonNullable<T>> {
  const { timeoutMs = 30_000, fail } = typeof options === 'number' ? { timeoutMs: options } : options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    const seen = await fail?.();
    if (seen !== undefined) throw new Error(`gave up waiting for ${what}: ${seen}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** The statuses a job never leaves (src-main/contract/job.ts). */
export const ENDED_JOB_STATUSES: readonly string[] = ['completed', 'failed', 'cancelled'];

/**
 * A `fail` probe for `until` on a job: says what ended it when `read()` finds it ended in a status
 * other than `wanted` (which can then never come).
 */
export function jobEndedOtherwise(
  read: () =>
    | { status: string; error?: string | null }
    | undefined
    | Promise<{ status: string; error?: string | null } | undefined>,
  wanted: readonly string[],
): () => Promise<string | undefined> {
  return async () => {
    const job = await read();
    if (job === undefined || wanted.includes(job.status) || !ENDED_JOB_STATUSES.includes(job.status)) return undefined;
    return `the job ended ${job.status}${job.error ? `: ${job.error}` : ''}`;
  };
}
