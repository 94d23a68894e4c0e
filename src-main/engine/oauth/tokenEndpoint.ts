import { AppError, ConflictError } from '../../base/errors.ts';

/** What Portico keeps of a grant, as one keychain secret (never in SQLite, a log or a response). */
export interface StoredTokens {
  access_token: string;
  refresh_token?: string;
  /** ISO 8601; null when the provider gave no lifetime. */
  expires_at: string | null;
}

/** 502: the provider's token or userinfo endpoint failed; the detail names the endpoint and its error code only. */
export class OAuthProviderError extends AppError {
  constructor(detail: string, options?: { cause?: unknown }) {
    super(502, detail, options);
  }
}

/** The token endpoint said `invalid_grant`: the code or refresh token is no longer good (revoked, used, expired). */
export class InvalidGrantError extends ConflictError {
  readonly description: string;

  constructor(description: string) {
    super(`The provider refused the grant (invalid_grant${description ? `: ${description}` : ''})`);
    this.description = description;
  }
}

const MAX_RESPONSE_BYTES = 256 * 1024;
// An error code from a provider is a short ASCII token; anything else is not repeated.
const printable = (value: unknown, max = 120): string =>
  typeof value === 'string' ? value.replace(/[^\x20-\x7e]/g, '').slice(0, max) : '';

async function readJson(response: Response, what: string): Promise<Record<string, unknown>> {
  const text = await response.text();
  if (text.length > MAX_RESPONSE_BYTES)
    throw new OAuthProviderError(`The ${what} answered more than ${MAX_RESPONSE_BYTES} bytes`);
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through: the provider did not answer JSON
  }
  throw new OAuthProviderError(`The ${what} answered HTTP ${response.status} without a JSON object`);
}

/**
 * One request to a token endpoint (RFC 6749 §4.1.3 / §6), client credentials in the body. The
 * result's lifetime is turned into an absolute `expires_at` from `now`.
 */
export async function tokenRequest(
  tokenUrl: string,
  params: Record<string, string>,
  now: Date,
  fetchImpl: typeof fetch = fetch,
): Promise<StoredTokens & { scope?: string; id_token?: string }> {
  let response: Response;
  try {
    response = await fetchImpl(tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams(params).toString(),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    throw new OAuthProviderError(`The token endpoint could not be reached (${new URL(tokenUrl).host})`, {
      cause: error,
    });
  }
  const body = await readJson(response, 'token endpoint');
  if (!response.ok || typeof body.error === 'string') {
    const code = printable(body.error, 64);
    if (code === 'invalid_grant') throw new InvalidGrantError(printable(body.error_description));
    throw new OAuthProviderError(`The token endpoint answered HTTP ${response.status}${code ? ` (${code})` : ''}`);
  }
  if (typeof body.access_token !== 'string' || body.access_token === '')
    throw new OAuthProviderError('The token endpoint answered without an access_token');
  const expiresIn =
    typeof body.expires_in === 'number'
      ? body.expires_in
      : typeof body.expires_in === 'string'
        ? Number(body.expires_in)
        : Number.NaN;
  return {
    access_token: body.access_token,
    ...(typeof body.refresh_token === 'string' && body.refresh_token !== '' && { refresh_token: body.refresh_token }),
    expires_at:
      Number.isFinite(expiresIn) && expiresIn > 0 ? new Date(now.getTime() + expiresIn * 1000).toISOString() : null,
    ...(typeof body.scope === 'string' && { scope: body.scope }),
    ...(typeof body.id_token === 'string' && { id_token: body.id_token }),
  };
}

/** The account's name at the provider, from its userinfo endpoint: email, else preferred_username, name, sub. */
export async function fetchUserName(
  userinfoUrl: string,
  accessToken: string,
  fetchImpl: typeof fetch = fetch,
): Promise<string> {
  let response: Response;
  try {
    response = await fetchImpl(userinfoUrl, {
      headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    throw new OAuthProviderError(`The userinfo endpoint could not be reached (${new URL(userinfoUrl).host})`, {
      cause: error,
    });
  }
  const body = await readJson(response, 'userinfo endpoint');
  if (!response.ok) throw new OAuthProviderError(`The userinfo endpoint answered HTTP ${response.status}`);
  const name = nameFromClaims(body);
  if (!name)
    throw new OAuthProviderError('The userinfo endpoint named no user (no email, preferred_username, name or sub)');
  return name;
}

export function nameFromClaims(claims: Record<string, unknown>): string | undefined {
  for (const key of ['email', 'preferred_username', 'name', 'sub']) {
    const value = printable(claims[key], 320).trim();
    if (value) return value;
  }
  return undefined;
}

/** The claims of an ID token, read (not verified) only to name the account when the app has no userinfo URL. */
export function idTokenClaims(idToken: string): Record<string, unknown> {
  try {
    const payload: unknown = JSON.parse(Buffer.from(idToken.split('.')[1] ?? '', 'base64url').toString('utf8'));
    return typeof payload === 'object' && payload !== null ? (payload as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
