import { PorticoError } from '../../base/errors.ts';

/** Why a run was stopped from outside the agent. */
export type JobAbortKind = 'cancel' | 'timeout' | 'shutdown' | 'crash' | 'no-answer';

/** The reason a job's AbortSignal carries; its message becomes the job's `error`. */
export class JobAbort extends PorticoError {
  readonly kind: JobAbortKind;

  constructor(kind: JobAbortKind, message: string) {
    super(message);
    this.kind = kind;
  }
}

/** Settles with `promise`, or rejects with the signal's reason as soon as it aborts. */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    // The work goes on until it notices; its eventual failure is expected and must not go unobserved.
    promise.catch(() => undefined);
    return Promise.reject(signal.reason as Error);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
