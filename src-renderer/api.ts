import type { PorticoBridge } from '../src-preload/bridge.ts';

declare global {
  interface Window {
    /** Set by the desktop app's preload; absent when the console is opened in a browser. */
    readonly portico?: PorticoBridge;
  }
}

/** The API answered with an error; `detail` is the server's `{"detail": ...}` message. */
export class ApiError extends Error {
  readonly status: number;
  constructor(status: number, detail: string) {
    super(detail);
    this.name = 'ApiError';
    this.status = status;
  }
}

// Served by the API itself at `/`, the console talks to its own origin unless the desktop app says otherwise.
const apiBaseUrl = window.portico?.apiBaseUrl || '';

/** GET a JSON resource with the user's API key; throws `ApiError` with the server's detail. */
export async function getJson<T>(path: string, apiKey: string): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (apiKey !== '') headers['X-API-Key'] = apiKey;
  const response = await fetch(`${apiBaseUrl}${path}`, { headers });
  const body: unknown = await response.json().catch(() => null);
  if (!response.ok) {
    const detail =
      body !== null && typeof body === 'object' && 'detail' in body && typeof body.detail === 'string'
        ? body.detail
        : `${response.status} ${response.statusText}`;
    throw new ApiError(response.status, detail);
  }
  return body as T;
}
