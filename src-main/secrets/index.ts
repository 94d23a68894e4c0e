import type { Logger } from '../base/logger.ts';
import { KeychainSecretStore } from './keychainStore.ts';
import { UnavailableSecretStore, type SecretStore } from './secretStore.ts';
import { openVaultStore } from './vaultStore.ts';
import { scopedSecretStore } from './scopedSecretStore.ts';

export { scopedSecretStore };

export {
  assertSecretName,
  NO_KEYCHAIN_DETAIL,
  SecretsUnavailableError,
  UnavailableSecretStore,
  type SecretStore,
  type SecretStoreKind,
} from './secretStore.ts';
export {
  DEFAULT_KEYCHAIN_SERVICE,
  KeychainSecretStore,
  type KeychainProbeResult,
  type KeychainStoreOptions,
} from './keychainStore.ts';
export { openVaultStore, VAULT_FILE_NAME, VaultSecretStore, type VaultStoreOptions } from './vaultStore.ts';

export interface CreateSecretStoreOptions {
  /** Where the file vault lives when it is used. */
  dataDir: string;
  /** PORTICO_VAULT_KEY; an empty string counts as not set. */
  vaultKey?: string;
  /** Keychain service name; defaults to `Portico`. */
  serviceName?: string;
  /** Overrides how long the keychain probe may take. */
  probeTimeoutMs?: number;
  /** Told which store was chosen and why the keychain was passed over. */
  logger?: Logger;
}

/**
 * Picks where secrets live: the OS keychain when it answers, else the encrypted vault when a key is
 * configured, else a store that refuses to keep secrets so the service still starts.
 */
export async function createSecretStore(options: CreateSecretStoreOptions): Promise<SecretStore> {
  const keychain = new KeychainSecretStore({
    ...(options.serviceName !== undefined && { serviceName: options.serviceName }),
    ...(options.probeTimeoutMs !== undefined && { probeTimeoutMs: options.probeTimeoutMs }),
  });
  const probe = await keychain.probe();
  if (probe.available) {
    options.logger?.info('Secrets are stored in the OS keychain', { service: keychain.serviceName });
    return keychain;
  }
  if (options.vaultKey !== undefined && options.vaultKey.length > 0) {
    // A wrong key throws here on purpose: starting with an empty-looking vault would hide every secret.
    const vault = await openVaultStore({ dataDir: options.dataDir, vaultKey: options.vaultKey });
    options.logger?.info('Secrets are stored in the encrypted file vault', {
      path: vault.path,
      keychain: probe.reason,
    });
    return vault;
  }
  options.logger?.warn('No OS keychain answered and PORTICO_VAULT_KEY is not set; secrets cannot be stored', {
    keychain: probe.reason,
  });
  return new UnavailableSecretStore();
}

/** The app's secret store: keychain, vault or unavailable (PORTICO_VAULT_KEY / PORTICO_KEYCHAIN_SERVICE, read by base/config.ts), scoped to one install. */
export async function openAppSecrets(
  dataDir: string,
  installId: string,
  config: { vaultKey: string | undefined; keychainService: string | undefined },
): Promise<SecretStore> {
  const inner = await createSecretStore({
    dataDir,
    ...(config.vaultKey !== undefined && { vaultKey: config.vaultKey }),
    ...(config.keychainService !== undefined && { serviceName: config.keychainService }),
  });
  return scopedSecretStore(inner, installId);
}
