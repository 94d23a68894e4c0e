import { randomBytes } from 'node:crypto';
import type { AsyncEntry, EntryOptions } from '@napi-rs/keyring';
import { lazyRequire } from '../base/lazyRequire.ts';
import { assertSecretName, SecretsUnavailableError, type SecretStore } from './secretStore.ts';

export const DEFAULT_KEYCHAIN_SERVICE = 'Portico';

// The native binding, loaded when the keychain is first touched.
const keyring = lazyRequire<typeof import('@napi-rs/keyring')>('@napi-rs/keyring');

// On Linux the binding silently falls back to the kernel keyutils store, which lives in memory and
// is gone after a reboot; pinning the Secret Service makes a missing keychain an error instead.
const ENTRY_OPTIONS: EntryOptions = { linux: { store: 'secret-service' } };

export interface KeychainStoreOptions {
  /** Keychain service the entries are filed under; tests use an isolated one. */
  serviceName?: string;
  /** How long probe() waits for an answer (a locked keychain may be showing a prompt). */
  probeTimeoutMs?: number;
}

export type KeychainProbeResult = { available: true } | { available: false; reason: string };

/** Secrets in the OS keychain (macOS Keychain, Windows Credential Manager, Secret Service on Linux). */
export class KeychainSecretStore implements SecretStore {
  readonly kind = 'keychain' as const;
  readonly serviceName: string;
  readonly #probeTimeoutMs: number;

  constructor(options: KeychainStoreOptions = {}) {
    this.serviceName = options.serviceName ?? DEFAULT_KEYCHAIN_SERVICE;
    this.#probeTimeoutMs = options.probeTimeoutMs ?? 15_000;
  }

  async set(name: string, value: string): Promise<void> {
    assertSecretName(name);
    await this.#call(() => this.#entry(name).setPassword(value));
  }

  async get(name: string): Promise<string | undefined> {
    assertSecretName(name);
    const value = await this.#call(() => this.#entry(name).getPassword());
    return value ?? undefined;
  }

  async delete(name: string): Promise<boolean> {
    assertSecretName(name);
    return this.#call(() => this.#entry(name).deleteCredential());
  }

  /** Checks that the keychain really stores and returns a value, by writing, reading and removing a probe entry. */
  async probe(): Promise<KeychainProbeResult> {
    const name = `portico-probe/${randomBytes(8).toString('hex')}`;
    const value = randomBytes(16).toString('hex');
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${this.#probeTimeoutMs} ms`)), this.#probeTimeoutMs);
      timer.unref();
    });
    const roundTrip = async (): Promise<void> => {
      await this.set(name, value);
      try {
        if ((await this.get(name)) !== value) throw new Error('the probe value did not read back');
      } finally {
        await this.delete(name);
      }
    };
    try {
      await Promise.race([roundTrip(), timeout]);
      return { available: true };
    } catch (error) {
      return { available: false, reason: describe(error) };
    } finally {
      clearTimeout(timer);
    }
  }

  #entry(name: string): AsyncEntry {
    return new (keyring().AsyncEntry)(this.serviceName, name, ENTRY_OPTIONS);
  }

  // The binding throws plain `Error`s (code GenericFailure) for every platform failure, including
  // from the constructor when no Secret Service answers; an absent entry is null/false, never an error.
  async #call<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      throw new SecretsUnavailableError(`The OS keychain did not answer: ${describe(error)}`, { cause: error });
    }
  }
}

function describe(error: unknown): string {
  if (error instanceof SecretsUnavailableError)
    return error.cause instanceof Error ? error.cause.message : error.detail;
  return error instanceof Error ? error.message : String(error);
}
