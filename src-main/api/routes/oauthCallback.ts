import type { CallbackOutcome, CallbackQuery, ConnectedAccountService } from '../../engine/oauth/connectedAccounts.ts';
import type { Handler } from '../operationTable.ts';

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

/** The small page the browser shows after the provider sends it back. */
export function callbackPage(outcome: CallbackOutcome): string {
  const colour = outcome.status === 200 ? '#166534' : '#991b1b';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Portico: ${escapeHtml(outcome.title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#111}h1{font-size:1.4rem;color:${colour}}</style>
</head><body><main><h1>${escapeHtml(outcome.title)}</h1><p>${escapeHtml(outcome.message)}</p></main></body></html>
`;
}

const MAX_PARAM = 2048;
// One value per name, bounded; anything else is as good as absent.
const single = (value: unknown): string | undefined =>
  typeof value === 'string' && value.length <= MAX_PARAM ? value : undefined;

/**
 * `GET /oauth/callback` (RFC 8252 loopback redirect): no API key, the single-use `state` is the
 * authentication. Always an HTML page, errors included, with the status that fits.
 */
export function oauthCallbackHandler(accounts: ConnectedAccountService): Handler<'completeOAuth'> {
  return async ({ request, reply }) => {
    const raw = (request.query ?? {}) as Record<string, unknown>;
    const query: CallbackQuery = {};
    for (const key of ['state', 'code', 'error', 'error_description'] as const) {
      const value = single(raw[key]);
      if (value !== undefined) query[key] = value;
    }
    const outcome = await accounts.complete(query);
    await reply
      .status(outcome.status)
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer')
      .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
      .send(callbackPage(outcome));
  };
}
