import {
  createApiClient,
  operationPath,
  type ApiClient,
  type OperationBody,
  type OperationRequest,
} from '../contract/client.ts';
import { ErrorResponse } from '../contract/common.ts';
import { JobStatusResponse } from '../contract/job.ts';
import { SingleActionResponse } from '../contract/singleAction.ts';
import { PorticoError } from '../base/errors.ts';

/** The HTTP API answered with an error status; `detail` is its `{detail}` text. */
export class PorticoHttpError extends PorticoError {
  readonly status: number;
  readonly detail: string;

  constructor(status: number, detail: string) {
    super(detail);
    this.status = status;
    this.detail = detail;
  }
}

/** Nothing answered at the service's address (connection refused, unknown host, reset). */
export class ServiceUnreachableError extends PorticoError {
  readonly url: string;

  constructor(url: string, options?: { cause?: unknown }) {
    super(serviceNotRunning(url), options);
    this.url = url;
  }
}

/** What a user reads when the MCP server cannot reach the service. */
export const serviceNotRunning = (url: string): string =>
  `The Portico service is not running at ${url} (nothing answered there). Start it with \`npm run serve\` in the Portico folder, or open the Portico desktop app; if it runs elsewhere, set PORTICO_URL to its address.`;

/** The part of the HTTP API the MCP tools use: the typed operations, plus the three whose bodies are not plain JSON results. */
export interface PorticoApi extends ApiClient {
  /** POST /public/single-actions/run-action. */
  runAction(body: SingleActionInput): Promise<SingleActionResponse>;
  /** One step screenshot as PNG bytes, or null when the job has none at that index. */
  jobScreenshot(orgId: string, endpointName: string, jobId: string, index: number): Promise<Uint8Array | null>;
  /**
   * Follows the job's status over Stream Job Logs (`status=true`): `onStatus` gets each status response
   * and returns true to stop; resolves when it stopped or the job ended.
   */
  followJob(
    orgId: string,
    endpointName: string,
    jobId: string,
    onStatus: (status: JobStatusResponse) => boolean | Promise<boolean>,
    signal?: AbortSignal,
  ): Promise<void>;
}

/** The run-action body as a caller writes it (defaults may be left out). */
export type SingleActionInput = OperationBody<'runSingleAction'>;

const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** Whether `error` (or one of its causes) says that nothing answered at the address. */
export function isUnreachable(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current !== undefined && current !== null && depth < 6; depth++) {
    if (current instanceof ServiceUnreachableError) return true;
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && UNREACHABLE_CODES.has(code)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

export interface HttpApiOptions {
  /** The service's base URL, e.g. http://127.0.0.1:8787. */
  baseUrl: string;
  apiKey: string;
}

async function errorDetail(response: Response): Promise<string> {
  const text = await response.text();
  try {
    return ErrorResponse.parse(JSON.parse(text)).detail;
  } catch {
    return text.slice(0, 500) || `HTTP ${response.status}`;
  }
}

/** One `event:`/`data:` block of a text/event-stream. */
interface ServerSentEvent {
  event: string;
  data: string;
}

async function* serverSentEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerSentEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let blank = buffer.indexOf('\n\n');
    while (blank !== -1) {
      const block = buffer.slice(0, blank);
      buffer = buffer.slice(blank + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (data.length > 0) yield { event, data: data.join('\n') };
      blank = buffer.indexOf('\n\n');
    }
  }
}

/** The HTTP API at `baseUrl` with `apiKey`, through the contract's typed client (Node's fetch). */
export function httpPorticoApi(options: HttpApiOptions): PorticoApi {
  const base = options.baseUrl.replace(/\/+$/, '');
  const send = async (path: string, init: RequestInit = {}): Promise<Response> => {
    const headers = new Headers(init.headers);
    headers.set('x-api-key', options.apiKey);
    try {
      return await fetch(`${base}${path}`, { ...init, headers });
    } catch (error) {
      if ((error as { name?: unknown }).name === 'AbortError') throw error;
      if (isUnreachable(error)) throw new ServiceUnreachableError(base, { cause: error });
      throw error;
    }
  };
  const json = async (request: OperationRequest): Promise<unknown> => {
    const init: RequestInit = { method: request.method };
    if (request.body !== undefined) {
      init.body = JSON.stringify(request.body);
      init.headers = { 'content-type': 'application/json' };
    }
    const response = await send(request.path, init);
    if (!response.ok) throw new PorticoHttpError(response.status, await errorDetail(response));
    const text = await response.text();
    return text === '' ? undefined : (JSON.parse(text) as unknown);
  };
  const client = createApiClient(json);
  return {
    call: client.call,
    async runAction(body) {
      return SingleActionResponse.parse(await client.call('runSingleAction', { body }));
    },
    async jobScreenshot(orgId, endpointName, jobId, index) {
      const response = await send(
        operationPath('getJobScreenshot', {
          params: { org_id: orgId, endpoint_name: endpointName, index },
          query: { job_id: jobId },
        }),
      );
      if (response.status === 404) return null;
      if (!response.ok) throw new PorticoHttpError(response.status, await errorDetail(response));
      return new Uint8Array(await response.arrayBuffer());
    },
    async followJob(orgId, endpointName, jobId, onStatus, signal) {
      const path = operationPath('streamJobLogs', {
        params: { org_id: orgId, endpoint_name: endpointName },
        query: { job_id: jobId, status: 'true' },
      });
      const controller = new AbortController();
      const abort = (): void => controller.abort();
      signal?.addEventListener('abort', abort, { once: true });
      try {
        const response = await send(path, { signal: controller.signal, headers: { accept: 'text/event-stream' } });
        if (!response.ok || !response.body) throw new PorticoHttpError(response.status, await errorDetail(response));
        for await (const message of serverSentEvents(response.body)) {
          if (message.event === 'end') return;
          if (message.event !== 'status') continue;
          if (await onStatus(JobStatusResponse.parse(JSON.parse(message.data)))) return;
        }
      } catch (error) {
        // Stopping is the caller's choice (or its request's cancellation), not a failure.
        if (controller.signal.aborted) return;
        throw error;
      } finally {
        signal?.removeEventListener('abort', abort);
        controller.abort();
      }
    },
  };
}
