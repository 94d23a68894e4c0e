import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../base/config.ts';
import { describeZodIssues } from '../base/zodIssues.ts';
import { JobConcurrency } from '../contract/console.ts';
import { BrowserHostSettings, LocalMaxBrowsers, type BrowserHostSetting } from '../contract/hosts.ts';
import { LimitSettingsShape } from './limits/resourceLimits.ts';

function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return url.origin !== 'null' && url.origin === value;
  } catch {
    return false;
  }
}

/**
 * `settings.json`: what the operator changed in the console; absent fields keep the environment's defaults.
 * A field Portico does not know stops start-up naming it (a misspelt limit must not be silently ignored).
 */
const StoredOperatorSettings = z.strictObject({
  job_concurrency: JobConcurrency.optional(),
  chromium_path: z.string().min(1, 'must not be empty').optional(),
  /** Warm browsers kept for `/public/sessions` (0 turns the pool off); default 1. */
  session_pool_size: z.int().min(0).max(8).optional(),
  /**
   * Minutes with no job running and no session open after which the warm browsers (the sessions' pool,
   * the jobs' shared browser) close; they reopen on demand. 0 closes them as soon as nothing uses them.
   * Default 5; read at start.
   */
  browsers_idle_minutes: z.number().min(0).max(1440).optional(),
  /** Record jobs and sessions whose request and portal do not say; default false. */
  record_video: z.boolean().optional(),
  /**
   * Web pages (origins, `https://tool.example`) trusted to open a session's `cdp_url` from a browser;
   * any other page's WebSocket is refused (docs/security.md). Read at start; default none.
   */
  cdp_allowed_origins: z
    .array(z.string().refine(isOrigin, 'must be an origin: scheme://host[:port], nothing after it'))
    .max(100)
    .optional(),
  /** Live browsers, request rate and disk quotas (docs/api.md, "Limits and quotas"); read at start. */
  ...LimitSettingsShape,
  /** Remote browser hosts (docs/scale.md); their tokens live in the keychain/vault, never here. Read at start. */
  browser_hosts: BrowserHostSettings.optional(),
  /** Browsers the local Chromium runs at once (the implicit host `local`); default 8, 0 = every browser on the hosts. */
  local_max_browsers: LocalMaxBrowsers.optional(),
});
export type StoredOperatorSettings = z.infer<typeof StoredOperatorSettings>;

export const OPERATOR_SETTINGS_FILE = 'settings.json';

/** One change to settings.json; `null` removes an override; `browser_hosts` maps the current list to the new one. */
export interface OperatorSettingsChange {
  job_concurrency?: number;
  chromium_path?: string | null;
  record_video?: boolean;
  browser_hosts?: (current: readonly BrowserHostSetting[]) => BrowserHostSetting[];
}

/** Parses the file's text; a broken file names itself and the field, so the operator can fix it by hand. */
export function parseOperatorSettings(text: string, path: string): StoredOperatorSettings {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(
      `${path} is not valid JSON (${error instanceof Error ? error.message : String(error)}); fix it or delete it to go back to the defaults`,
    );
  }
  const parsed = StoredOperatorSettings.safeParse(json, { reportInput: true });
  if (!parsed.success)
    throw new ConfigError(
      `${path}: ${describeZodIssues('', parsed.error.issues)}; fix it or delete it to go back to the defaults`,
    );
  return parsed.data;
}

/**
 * The console's settings, kept as a small JSON file in the data dir (not SQLite: they are read before
 * the engine is built, and the operator can fix a bad one by hand).
 */
export class OperatorSettings {
  readonly path: string;
  #values: StoredOperatorSettings;
  // Updates run one after another, each from the values the previous one wrote: none is lost, none shares a temp file.
  #writes: Promise<void> = Promise.resolve();

  private constructor(path: string, values: StoredOperatorSettings) {
    this.path = path;
    this.#values = values;
  }

  /** Reads `<dataDir>/settings.json`; a missing file means no overrides, a broken one stops start-up with a ConfigError naming it. */
  static load(dataDir: string): OperatorSettings {
    const path = join(dataDir, OPERATOR_SETTINGS_FILE);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new OperatorSettings(path, {});
      throw error;
    }
    return new OperatorSettings(path, parseOperatorSettings(text, path));
  }

  get values(): Readonly<StoredOperatorSettings> {
    return this.#values;
  }

  /** Applies a change (`null` removes an override) and writes the file atomically; concurrent updates apply in call order. */
  update(change: OperatorSettingsChange): Promise<void> {
    const done = this.#writes.then(() => this.#apply(change));
    this.#writes = done.catch(() => undefined);
    return done;
  }

  async #apply(change: OperatorSettingsChange): Promise<void> {
    const next: StoredOperatorSettings = { ...this.#values };
    if (change.browser_hosts !== undefined) {
      const hosts = change.browser_hosts(this.#values.browser_hosts ?? []);
      if (hosts.length > 0) next.browser_hosts = hosts;
      else delete next.browser_hosts;
    }
    if (change.job_concurrency !== undefined) next.job_concurrency = change.job_concurrency;
    if (change.chromium_path === null) delete next.chromium_path;
    else if (change.chromium_path !== undefined) next.chromium_path = change.chromium_path;
    if (change.record_video !== undefined) next.record_video = change.record_video;
    // A temp file of its own (a crash mid-write leaves the old settings.json whole) renamed over the real one.
    const temp = `${this.path}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await writeFile(temp, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
      await rename(temp, this.path);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
    this.#values = next;
  }
}
