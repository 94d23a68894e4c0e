import type { SecretStore } from '../../src-main/secrets/index.ts';

/** A SecretStore in memory, for tests that inject secrets without touching the keychain. */
export function memorySecrets(initial: Record<string, string> = {}): SecretStore {
  const map = new Map(Object.entries(initial));
  return {
    kind: 'vault',
    set: async (name, value) => void map.set(name, value),
    get: async (name) => map.get(name),
    delete: async (name) => map.delete(name),
  };
}
