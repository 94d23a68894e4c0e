/** What a secret URL parameter's value, or a URL's password, is replaced with. */
export const REDACTED_URL_VALUE = '[redacted]';

/** Parameter names (lower case, without `-`, `_` and `.`) whose whole name says "secret". */
const SECRET_NAMES = new Set([
  'pass',
  'passwd',
  'pwd',
  'pw',
  'pin',
  'code',
  'otp',
  'totp',
  'mfa',
  'key',
  'token',
  'secret',
  'auth',
  'sig',
  'signature',
  'sid',
  'session',
  'sessionid',
  'ssn',
  'cvv',
  'cvc',
  'credential',
  'credentials',
  'assertion',
  'nonce',
  'ticket',
]);

/** Fragments that make any parameter name secret: `user_password`, `csrf_token`, `x-api-key`, `client_secret`. */
const SECRET_PARTS = [
  'password',
  'passwd',
  'passphrase',
  'token',
  'secret',
  'apikey',
  'accesskey',
  'privatekey',
  'authcode',
  'signature',
  'credential',
];

/** Whether a query or fragment parameter of this name carries a secret (password, token, one-time code, key…). */
export function isSecretParamName(name: string): boolean {
  const normal = name.toLowerCase().replace(/[-_.\s[\]]/g, '');
  if (normal === '') return false;
  return SECRET_NAMES.has(normal) || SECRET_PARTS.some((part) => normal.includes(part));
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** `a=1&password=x` with the secret parameters' values replaced; anything else kept byte for byte. */
function redactParams(params: string): string {
  return params
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return pair;
      return isSecretParamName(safeDecode(pair.slice(0, eq))) ? `${pair.slice(0, eq)}=${REDACTED_URL_VALUE}` : pair;
    })
    .join('&');
}

/**
 * One URL with its secrets replaced: the password of `user:password@`, and the values of secret
 * query and fragment parameters (a login form sent with GET puts `password=…` in the address).
 * Everything else is kept as written, so the URL still says where the page was.
 */
export function redactUrl(url: string): string {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(url);
  if (!scheme) return url;
  let rest = url.slice(scheme[0].length);
  const authorityEnd = rest.search(/[/?#]/);
  const authority = authorityEnd < 0 ? rest : rest.slice(0, authorityEnd);
  const at = authority.lastIndexOf('@');
  if (at >= 0) {
    const colon = authority.indexOf(':');
    if (colon >= 0 && colon < at) rest = `${authority.slice(0, colon)}:${REDACTED_URL_VALUE}${rest.slice(at)}`;
  }
  return `${scheme[0]}${redactAfterAuthority(rest)}`;
}

/** `host/path?query#fragment` (or `/path?…`) with the secret query and fragment parameters' values replaced. */
function redactAfterAuthority(rest: string): string {
  const hash = rest.indexOf('#');
  const fragment = hash < 0 ? undefined : rest.slice(hash + 1);
  const beforeHash = hash < 0 ? rest : rest.slice(0, hash);
  const question = beforeHash.indexOf('?');
  const path = question < 0 ? beforeHash : beforeHash.slice(0, question);
  const query = question < 0 ? undefined : beforeHash.slice(question + 1);
  return `${path}${query === undefined ? '' : `?${redactParams(query)}`}${fragment === undefined ? '' : `#${redactParams(fragment)}`}`;
}

/** A request's target as a server sees it (`/path?token=…`, Fastify's `req.url`), or an absolute URL, with its secrets replaced. */
export function redactRequestTarget(target: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(target) ? redactUrl(target) : redactAfterAuthority(target);
}

/** Every absolute URL inside `text` (a log line, an event, a result value) with its secrets replaced. */
export function redactUrlsIn(text: string): string {
  if (!text.includes('://')) return text;
  return text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi, (url) => redactUrl(url));
}
