import { readdir, lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { systemClock, type Clock } from '../../base/clock.ts';
import { PayloadTooLargeError } from '../../base/errors.ts';

/** What an organization keeps on disk, each kind with its own quota. */
export type QuotaKind = 'skills' | 'documents' | 'artifacts';

const SETTING: Record<QuotaKind, string> = {
  skills: 'skills_quota_mb',
  documents: 'documents_quota_mb',
  artifacts: 'artifacts_quota_mb',
};
const WHAT: Record<QuotaKind, string> = {
  skills: 'extracted skills',
  documents: 'uploaded documents',
  artifacts: 'job artifacts (screenshots, downloads, recordings)',
};
const FREE: Record<QuotaKind, string> = {
  skills: 'delete skills it no longer needs',
  documents: 'delete document bundles it no longer needs',
  artifacts: "remove old jobs' artifacts from the data folder",
};

export interface DiskUsage {
  /** Bytes the org's skills hold, as recorded when each was extracted (SQLite). */
  skills(orgId: string): number;
  /** Bytes the org's document bundles hold, as recorded at upload (SQLite). */
  documents(orgId: string): number;
  /** The folders the org's job artifacts live in; measured on disk (nothing records their size). */
  artifactDirs(orgId: string): readonly string[];
}

export interface DiskQuotaOptions {
  quotas: Record<QuotaKind, number>;
  usage: DiskUsage;
  clock?: Clock;
  /** How long a measured artifacts figure is reused; default 30 s. */
  artifactsCacheMs?: number;
}

const MB = 1024 * 1024;
const showMb = (bytes: number): string => `${(bytes / MB).toFixed(1)} MB`;

/**
 * Per-organization disk quotas. Skills and documents are summed from their rows; artifacts are
 * measured on disk and the figure cached briefly, so a burst of job starts costs one walk.
 */
export class DiskQuotas {
  readonly #options: DiskQuotaOptions;
  readonly #clock: Clock;
  readonly #artifactCache = new Map<string, { bytes: number; at: number }>();

  constructor(options: DiskQuotaOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
  }

  quota(kind: QuotaKind): number {
    return this.#options.quotas[kind];
  }

  /** Bytes the organization keeps of this kind now. */
  async used(kind: QuotaKind, orgId: string): Promise<number> {
    if (kind === 'skills') return this.#options.usage.skills(orgId);
    if (kind === 'documents') return this.#options.usage.documents(orgId);
    return this.#artifacts(orgId);
  }

  /** Bytes the organization may still add of this kind (0 when at or over its quota). */
  async room(kind: QuotaKind, orgId: string): Promise<number> {
    return Math.max(0, this.quota(kind) - (await this.used(kind, orgId)));
  }

  /** The 413 for a write of `incomingBytes` (undefined: unknown, the quota is already full) that would pass the quota. */
  refusal(kind: QuotaKind, orgId: string, usedBytes: number, incomingBytes?: number): PayloadTooLargeError {
    const adding = incomingBytes === undefined ? '' : `; this upload adds ${showMb(incomingBytes)}`;
    return new PayloadTooLargeError(
      `Disk quota exceeded: organization '${orgId}' keeps ${showMb(usedBytes)} of ${WHAT[kind]}${adding}; the quota is ${showMb(this.quota(kind))} (${SETTING[kind]}). ` +
        `To make room, ${FREE[kind]}, or raise ${SETTING[kind]} in settings.json in the data folder and restart`,
    );
  }

  /** Throws the 413 unless `incomingBytes` more fit (0: only checks the quota is not already full). */
  async assertRoom(kind: QuotaKind, orgId: string, incomingBytes = 0): Promise<void> {
    const used = await this.used(kind, orgId);
    if (incomingBytes === 0 ? used >= this.quota(kind) : used + incomingBytes > this.quota(kind)) {
      throw this.refusal(kind, orgId, used, incomingBytes === 0 ? undefined : incomingBytes);
    }
  }

  async #artifacts(orgId: string): Promise<number> {
    const now = this.#clock.now().getTime();
    const cached = this.#artifactCache.get(orgId);
    if (cached && now - cached.at < (this.#options.artifactsCacheMs ?? 30_000)) return cached.bytes;
    let bytes = 0;
    for (const dir of this.#options.usage.artifactDirs(orgId)) bytes += await diskBytes(dir);
    this.#artifactCache.set(orgId, { bytes, at: now });
    return bytes;
  }
}

/** Bytes of the regular files under `path` (symlinks not followed); 0 when it does not exist. */
export async function diskBytes(path: string): Promise<number> {
  let info;
  try {
    info = await lstat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  if (info.isFile()) return info.size;
  if (!info.isDirectory()) return 0;
  let total = 0;
  for (const entry of await readdir(path)) total += await diskBytes(join(path, entry));
  return total;
}
