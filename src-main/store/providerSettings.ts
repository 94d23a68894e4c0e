import { isoNow } from '../base/clock.ts';
import { prepared, type Db } from './database.ts';

/** Non-secret settings of model providers (keys live in the keychain, never here). */
export class ProviderSettingsRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  baseUrl(provider: string): string | undefined {
    const row = prepared<[string], { base_url: string | null }>(
      this.#db,
      'SELECT base_url FROM provider_settings WHERE provider = ?',
    ).get(provider);
    return row?.base_url ?? undefined;
  }

  /** Stores a provider's base URL; null goes back to the default. */
  setBaseUrl(provider: string, baseUrl: string | null): void {
    prepared(
      this.#db,
      `INSERT INTO provider_settings (provider, base_url, updated_at) VALUES (?, ?, ?)
         ON CONFLICT(provider) DO UPDATE SET base_url = excluded.base_url, updated_at = excluded.updated_at`,
    ).run(provider, baseUrl, isoNow());
  }
}
