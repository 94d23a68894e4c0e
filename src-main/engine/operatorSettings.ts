import { readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** What the operator changed in the console; absent fields keep the environment's defaults. */
export interface StoredOperatorSettings {
  job_concurrency?: number;
  chromium_path?: string;
}

export const OPERATOR_SETTINGS_FILE = 'settings.json';

/**
 * The console's settings, kept as a small JSON file in the data dir (not SQLite: they are read before
 * the engine is built, and the operator can fix a bad one by hand).
 */
export class OperatorSettings {
  readonly path: string;
  #values: StoredOperatorSettings;

  private constructor(path: string, values: StoredOperatorSettings) {
    this.path = path;
    this.#values = values;
  }

  /** Reads `<dataDir>/settings.json`; a missing or unreadable file means no overrides. */
  static load(dataDir: string): OperatorSettings {
    const path = join(dataDir, OPERATOR_SETTINGS_FILE);
    let values: StoredOperatorSettings = {};
    try {
      const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
      if (parsed !== null && typeof parsed === 'object') {
        const record = parsed as Record<string, unknown>;
        if (Number.isInteger(record.job_concurrency) && (record.job_concurrency as number) > 0) values.job_concurrency = record.job_concurrency as number;
        if (typeof record.chromium_path === 'string' && record.chromium_path !== '') values.chromium_path = record.chromium_path;
      }
    } catch {
      values = {};
    }
    return new OperatorSettings(path, values);
  }

  get values(): Readonly<StoredOperatorSettings> {
    return this.#values;
  }

  /** Applies a change (`null` removes an override) and writes the file atomically. */
  async update(change: { job_concurrency?: number; chromium_path?: string | null }): Promise<void> {
    const next: StoredOperatorSettings = { ...this.#values };
    if (change.job_concurrency !== undefined) next.job_concurrency = change.job_concurrency;
    if (change.chromium_path === null) delete next.chromium_path;
    else if (change.chromium_path !== undefined) next.chromium_path = change.chromium_path;
    const temp = `${this.path}.tmp`;
    await writeFile(temp, `${JSON.stringify(next, null, 2)}\n`);
    await rename(temp, this.path);
    this.#values = next;
  }
}
