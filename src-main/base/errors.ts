/**
 * The base of Portico's errors that are not HTTP answers (a host refusing, a job aborted, a model call
 * failing, a bad setting…): named after their class, with an optional cause. Code that answers a request
 * maps them to an `AppError` (below) where a client should see them.
 */
export class PorticoError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Domain failures carry the HTTP status and the `detail` users see; one handler serializes them. */
export class AppError extends Error {
  readonly status: number;
  readonly detail: string;

  constructor(status: number, detail: string, options?: { cause?: unknown }) {
    super(detail, options);
    this.name = new.target.name;
    this.status = status;
    this.detail = detail;
  }
}

/** 400: the body is not parseable (malformed JSON, wrong content type). */
export class BadRequestError extends AppError {
  constructor(detail: string, options?: { cause?: unknown }) {
    super(400, detail, options);
  }
}

/** 401: missing, unknown or revoked API key. */
export class UnauthorizedError extends AppError {
  constructor(detail = 'Invalid API key') {
    super(401, detail);
  }
}

/** 403: a valid key acting outside its organization or workspace. */
export class ForbiddenError extends AppError {
  constructor(detail: string) {
    super(403, detail);
  }
}

/** 404: the named resource does not exist (or is not visible to the caller). */
export class NotFoundError extends AppError {
  constructor(detail: string) {
    super(404, detail);
  }
}

/** 409: the request conflicts with current state (duplicates, busy resources, stale answers). */
export class ConflictError extends AppError {
  constructor(detail: string) {
    super(409, detail);
  }
}

/** 413: an upload or body over its limit. */
export class PayloadTooLargeError extends AppError {
  constructor(detail: string) {
    super(413, detail);
  }
}

/** 415: a body in a content type the route does not read. */
export class UnsupportedMediaTypeError extends AppError {
  constructor(detail: string) {
    super(415, detail);
  }
}

/** 429: a limit on what one key or organization may use (live browsers, requests a minute); `detail` names it and how to raise it. */
export class TooManyRequestsError extends AppError {
  constructor(detail: string) {
    super(429, detail);
  }
}

/** 422: well-formed input that breaks a rule; `detail` names the field and the rule. */
export class ValidationError extends AppError {
  constructor(detail: string, options?: { cause?: unknown }) {
    super(422, detail, options);
  }
}

/** 500 with a fixed public detail; the cause stays in the log, never in the response. */
export class InternalError extends AppError {
  constructor(detail = 'Internal server error', options?: { cause?: unknown }) {
    super(500, detail, options);
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}
