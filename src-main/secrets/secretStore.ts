import { AppError } from '../base/errors.ts';

/** Where a store keeps its secrets; `unavailable` refuses to store anything. */
export type SecretStoreKind = 'keychain' | 'vault' | 'unavailable';

/**
 * The one place secrets live. Names are paths such as `provider/anthropic`, `webhook/<org_id>`
 * or `credential/<id>/password`; SQLite only ever holds the name.
 */
export interface SecretStore {
  readonly kind: SecretStoreKind;
  /** Stores or replaces the secret under `name`. */
  set(name: string, value: string): Promise<void>;
  /** Resolves the secret, or undefined when none is stored under `name`. */
  get(name: string): Promise<string | undefined>;
  /** Removes the secret; resolves false when there was nothing to remove. */
  delete(name: string): Promise<boolean>;
}

export const NO_KEYCHAIN_DETAIL =
  'No OS keychain is available to store secrets; set PORTICO_VAULT_KEY to use an encrypted file vault instead';

/** 503: secrets cannot be stored or read (no keychain, keychain stopped answering, vault unreadable). */
export class SecretsUnavailableError extends AppError {
  constructor(detail: string = NO_KEYCHAIN_DETAIL, options?: { cause?: unknown }) {
    super(503, detail, options);
  }
}

const MAX_NAME_LENGTH = 256;

/** Rejects names that would be ambiguous or invisible in a keychain UI; a bad name is a caller bug. */
export function assertSecretName(name: string): void {
  if (
    name.length === 0 ||
    name.length > MAX_NAME_LENGTH ||
    /[\u0000-\u001f\u007f]/.test(name) ||
    name.trim() !== name
  ) {
    throw new TypeError(`Invalid secret name ${JSON.stringify(name)}`);
  }
}

/** Used when neither a keychain nor a vault is configured, so the service still starts and reads nothing. */
export class UnavailableSecretStore implements SecretStore {
  readonly kind = 'unavailable' as const;

  async set(name: string, _value: string): Promise<void> {
    assertSecretName(name);
    throw new SecretsUnavailableError();
  }

  async get(name: string): Promise<string | undefined> {
    assertSecretName(name);
    return undefined;
  }

  async delete(name: string): Promise<boolean> {
    assertSecretName(name);
    return false;
  }
}
