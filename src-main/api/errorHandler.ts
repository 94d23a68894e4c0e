import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { STATUS_CODES } from '../base/nodeHttp.ts';
import type { Duplex } from 'node:stream';
import { isAppError } from '../base/errors.ts';
import type { Logger } from '../base/logger.ts';
import { messages } from '../contract/messages.ts';

interface FrameworkError {
  statusCode?: number;
  code?: string;
  message: string;
}

/** Fastify's own failures (parsers, limits, multipart) mapped to our statuses and plain details. */
function frameworkDetail(error: FrameworkError): { status: number; detail: string } | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return {
        status: 400,
        detail: `Malformed JSON body: ${error.message.replace(/^Body is not valid JSON but content-type is set to 'application\/json'$/, 'not valid JSON')}`,
      };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, detail: 'Unsupported Content-Type: send application/json' };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, detail: 'Request body too large' };
    case 'FST_REQ_FILE_TOO_LARGE':
      return { status: 413, detail: messages.skillTooLarge };
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return { status: 422, detail: 'body: must be multipart/form-data with a file field' };
    case 'FST_PROTO_VIOLATION':
      return { status: 400, detail: 'Malformed multipart body: a field may not be named __proto__' };
    case 'FST_INVALID_JSON_FIELD_ERROR':
      return { status: 400, detail: 'Malformed multipart body: a field declared as JSON is not valid JSON' };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { status: 400, detail: 'Request body length does not match its Content-Length' };
    default:
      break;
  }
  const multipart = multipartDetail(error);
  if (multipart) return { status: 400, detail: multipart };
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return { status: error.statusCode, detail: error.message };
  }
  return undefined;
}

// What busboy (behind @fastify/multipart) throws on a body it cannot frame: plain Errors with no code.
const MULTIPART_FAILURES = [
  /^Multipart: Boundary not found$/,
  /^Boundary required$/,
  /^The needle cannot/,
  /^Unexpected end of (multipart data|form)$/,
  /terminated early due to unexpected end of multipart data$/,
  /^Malformed part header$/,
];

function multipartDetail(error: FrameworkError): string | undefined {
  if (error.code !== undefined || !MULTIPART_FAILURES.some((failure) => failure.test(error.message))) return undefined;
  return `Malformed multipart body: ${error.message.replace(/^Multipart: /, '').replace(/^The needle.*/, 'the boundary must be 1 to 70 characters')}`;
}

/** Fastify's router failures (before any route or hook runs), as `{detail}` instead of its own body. */
function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  if (error.code === 'FST_ERR_BAD_URL') {
    reply.status(400).send({ detail: 'Malformed URL: a path segment is not valid percent-encoded UTF-8' });
  } else if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    reply.status(414).send({ detail: `URI too long: a path segment is longer than ${MAX_PARAM_LENGTH} characters` });
  } else {
    reply.status(500).send({ detail: messages.internal });
  }
}

/** The longest path segment a route parameter takes (Fastify's `maxParamLength`); longer is 414. */
export const MAX_PARAM_LENGTH = 100;

/**
 * Node's HTTP parser refuses some requests before Fastify sees them (headers over 16 KiB, a malformed
 * request line, a client too slow): answer those with `{detail}` too, then close the connection.
 */
function clientErrorHandler(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, detail] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request headers too large']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request timed out']
        : [400, 'Malformed HTTP request'];
  const body = JSON.stringify({ detail });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/** Fastify constructor options that route its own pre-routing failures to `{detail}` bodies. */
export const frameworkErrorOptions = {
  frameworkErrors,
  clientErrorHandler,
  routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
};

/** The single place errors become `{"detail": string}`; internals never reach a client. */
export function installErrorHandler(app: FastifyInstance, logger: Logger): void {
  app.setErrorHandler((error: FastifyError | Error, request, reply) => {
    // The route pattern names the operation even when the URL carries ids.
    const where = { route: `${request.method} ${request.routeOptions.url ?? '-'}`, url: request.url };
    if (isAppError(error)) {
      if (error.status >= 500) logger.error('request failed', { ...where, error: String(error.cause ?? error) });
      return reply.status(error.status).send({ detail: error.detail });
    }
    const mapped = frameworkDetail(error as FrameworkError);
    if (mapped) return reply.status(mapped.status).send({ detail: mapped.detail });
    logger.error('unhandled error', { ...where, error: error.stack ?? String(error) });
    return reply.status(500).send({ detail: messages.internal });
  });
  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send({ detail: `Not found: ${request.method} ${request.url.split('?')[0]}` });
  });
}
