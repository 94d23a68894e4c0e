import { hash, randomBytes, randomUUID } from 'node:crypto';

/** A random UUID v4, the id of every resource the interface calls a UUID. */
export function newId(): string {
  return randomUUID();
}

/** A secret token: `prefix` + 43 url-safe characters carrying 32 random bytes. */
export function newSecretToken(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

/** Hex SHA-256, used to store high-entropy API keys without keeping them (one-shot: ~0.4 µs a key, createHash ~1.3). */
export function sha256Hex(text: string): string {
  return hash('sha256', text, 'hex');
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}
