import { createHmac, timingSafeEqual } from 'node:crypto';

/** Lowercase hex HMAC-SHA256 of the body text, keyed with the signing secret (§6.6). */
export function signBody(body: string, secret: string): string {
  return createHmac('sha256', secret).update(body, 'utf8').digest('hex');
}

/** Constant-time check of a received signature. */
export function verifyBody(body: string, secret: string, signature: string): boolean {
  const expected = Buffer.from(signBody(body, secret), 'hex');
  const given = Buffer.from(signature, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
