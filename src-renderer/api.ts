import {
  createApiClient,
  operationMethod,
  operationPath,
  type ArgsTuple,
  type HttpMethod,
  type OperationName,
  type OperationResponse,
} from '../src-main/contract/client.ts';
import type { PorticoBridge } from '../src-preload/bridge.ts';

declare global {
  interface Window {
    /** Set by the desktop app's preload; absent when the console is opened in a browser. */
    readonly portico?: PorticoBridge;
  }
}

/** The API answered with an error; the message is the server's `{"detail": ...}` text. */
export class ApiError extends Error {
  readonly status: number;
  constructor(status: number, detail: string) {
    super(detail);
    this.name = 'ApiError';
    this.status = status;
  }
}

/** What a failure says to the person at the console: the server's detail, else the browser's reason. */
export function errorDetail(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof TypeError) return `The Portico service did not answer (${error.message}). Is it still running?`;
  return error instanceof Error ? error.message : String(error);
}

// Served by the API itself at `/`, the console talks to its own origin unless the desktop app says otherwise.
const apiBaseUrl = window.portico?.apiBaseUrl || '';
let consoleToken = '';

/** Every request carries the console token (the console acts as the local operator). */
export function setConsoleToken(token: string): void {
  consoleToken = token;
}

let onUnauthorized: () => void = () => undefined;

/** Called when the service refuses the console token mid-session (it restarted, so the token changed). */
export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

function headers(extra: Record<string, string> = {}): Record<string, string> {
  return { 'X-Console-Token': consoleToken, ...extra };
}

async function detailOf(response: Response): Promise<string> {
  // Every route the console calls judges the console token; a 401 means that token is no longer the service's.
  if (response.status === 401) onUnauthorized();
  const body: unknown = await response.json().catch(() => null);
  if (body !== null && typeof body === 'object' && 'detail' in body && typeof body.detail === 'string')
    return body.detail;
  return `${response.status} ${response.statusText}`;
}

/** A JSON request; resolves the parsed body (undefined for 204) or throws `ApiError` with the detail. */
async function request(method: HttpMethod, path: string, body?: unknown): Promise<unknown> {
  const init: RequestInit = {
    method,
    headers: headers(
      body === undefined
        ? { Accept: 'application/json' }
        : { Accept: 'application/json', 'Content-Type': 'application/json' },
    ),
  };
  if (body !== undefined) init.body = JSON.stringify(body);
  const response = await fetch(`${apiBaseUrl}${path}`, init);
  if (!response.ok) throw new ApiError(response.status, await detailOf(response));
  if (response.status === 204) return undefined;
  return response.json();
}

/**
 * The API, by operation: `call('getPortal', { params: { org_id, endpoint_name } })`. Paths, parameters,
 * bodies and results are the contract's (`src-main/contract/operations.ts`), never declared here.
 */
export const { call } = createApiClient(({ method, path, body }) => request(method, path, body));

/** A multipart upload (a skill zip) to operation `N`; same error handling as JSON requests. */
export async function upload<N extends OperationName>(
  form: FormData,
  name: N,
  ...args: ArgsTuple<N>
): Promise<OperationResponse<N>> {
  const response = await fetch(`${apiBaseUrl}${operationPath(name, ...args)}`, {
    method: operationMethod(name),
    headers: headers(),
    body: form,
  });
  if (!response.ok) throw new ApiError(response.status, await detailOf(response));
  return (await response.json()) as OperationResponse<N>;
}

/** A text body (a skill's SKILL.md), returned as the string it is: callers render it as text, never as HTML. */
export async function text<N extends OperationName>(name: N, ...args: ArgsTuple<N>): Promise<string> {
  const response = await fetch(`${apiBaseUrl}${operationPath(name, ...args)}`, {
    headers: headers({ Accept: 'text/markdown, text/plain' }),
  });
  if (!response.ok) throw new ApiError(response.status, await detailOf(response));
  return response.text();
}

/** An authorised binary (a screenshot) as an object URL for `<img src>`, which cannot send headers. */
export async function blobUrl<N extends OperationName>(name: N, ...args: ArgsTuple<N>): Promise<string> {
  const response = await fetch(`${apiBaseUrl}${operationPath(name, ...args)}`, { headers: headers() });
  if (!response.ok) throw new ApiError(response.status, await detailOf(response));
  return URL.createObjectURL(await response.blob());
}

/** The file name a `content-disposition` header names, else the fallback. */
function dispositionName(header: string | null, fallback: string): string {
  const match = header ? /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(header) : null;
  return match?.[1] ? decodeURIComponent(match[1]) : fallback;
}

/**
 * Downloads an authorised file (a job's downloads zip, its screenshots tar.gz): a plain link cannot send
 * the console token, so the file is fetched with it and saved from a blob; the console stays open.
 */
export async function downloadFile<N extends OperationName>(
  fallbackName: string,
  name: N,
  ...args: ArgsTuple<N>
): Promise<void> {
  const response = await fetch(`${apiBaseUrl}${operationPath(name, ...args)}`, { headers: headers() });
  if (!response.ok) throw new ApiError(response.status, await detailOf(response));
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = dispositionName(response.headers.get('content-disposition'), fallbackName);
  link.style.display = 'none';
  document.body.append(link);
  link.click();
  link.remove();
  // Give the browser time to start reading the blob before it is released.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** Absolute URL of a server page (the live view iframe). */
export function pageUrl(pathOrUrl: string): string {
  const url = new URL(pathOrUrl, window.location.href);
  return apiBaseUrl === '' ? url.pathname + url.search : `${apiBaseUrl}${url.pathname}${url.search}`;
}

export interface SseEvent {
  event: string;
  data: string;
}

/**
 * Reads a `text/event-stream` with fetch rather than EventSource, because EventSource cannot send the
 * console token header (and a token in the URL would end up in logs and history).
 */
export async function readEventStream<N extends OperationName>(
  onEvent: (event: SseEvent) => void,
  signal: AbortSignal,
  name: N,
  ...args: ArgsTuple<N>
): Promise<void> {
  const response = await fetch(`${apiBaseUrl}${operationPath(name, ...args)}`, {
    headers: headers({ Accept: 'text/event-stream' }),
    signal,
  });
  if (!response.ok || !response.body) throw new ApiError(response.status, await detailOf(response));
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value.replace(/\r\n/g, '\n');
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
      }
      if (data.length > 0) onEvent({ event, data: data.join('\n') });
      end = buffer.indexOf('\n\n');
    }
  }
}
