import type { SecretStore } from './secretStore.ts';

/**
 * Prefixes every name with this data dir's install id, so two data dirs (or parallel test
 * services) on one keychain never read each other's secrets.
 */
export function scopedSecretStore(inner: SecretStore, scope: string): SecretStore {
  const name = (key: string): string => `${scope}/${key}`;
  return {
    kind: inner.kind,
    set: (key, value) => inner.set(name(key), value),
    get: (key) => inner.get(name(key)),
    delete: (key) => inner.delete(name(key)),
  };
}
