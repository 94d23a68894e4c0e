import { AppError, ConflictError } from '../base/errors.ts';

/** 503: no Chromium-family browser could be found; `detail` lists every path tried. */
export class ChromiumNotFoundError extends AppError {
  readonly tried: readonly string[];

  constructor(detail: string, tried: readonly string[]) {
    super(503, detail);
    this.tried = tried;
  }
}

/** 503: the browser a lease runs in crashed, was killed or closed under it. */
export class BrowserDisconnectedError extends AppError {
  constructor(detail = 'The browser closed unexpectedly (it crashed or was killed)') {
    super(503, detail);
  }
}

/** 503: a lease was requested after the runtime began shutting down. */
export class BrowserRuntimeClosedError extends AppError {
  constructor() {
    super(503, 'The browser runtime is shut down');
  }
}

/** 409: the profile folder is open in a browser right now (e.g. deleting a profile during a job). */
export class ProfileInUseError extends ConflictError {
  constructor(profileId: string) {
    super(`Profile '${profileId}' is in use by a running browser`);
  }
}
