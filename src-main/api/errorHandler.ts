import type { FastifyError, FastifyInstance } from 'fastify';
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
      return { status: 400, detail: `Malformed JSON body: ${error.message.replace(/^Body is not valid JSON but content-type is set to 'application\/json'$/, 'not valid JSON')}` };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, detail: 'Unsupported Content-Type: send application/json' };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, detail: 'Request body too large' };
    case 'FST_REQ_FILE_TOO_LARGE':
      return { status: 413, detail: messages.skillTooLarge };
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return { status: 422, detail: 'body: must be multipart/form-data with a file field' };
    default:
      break;
  }
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return { status: error.statusCode, detail: error.message };
  }
  return undefined;
}

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
