import { z } from 'zod';

/** What one organization (and the whole service) may consume; docs/api.md, "Limits and quotas". */
export interface ResourceLimits {
  /** Live browsers (sessions, profile logins, running jobs) of one organization. */
  browsersPerOrg: number;
  /** Live browsers of the whole service. */
  browsersTotal: number;
  /** Requests per minute per API key (or the console token). */
  requestsPerMinute: number;
  /** Bytes of extracted skills an organization may keep. */
  skillsQuotaBytes: number;
  /** Bytes of uploaded documents an organization may keep. */
  documentsQuotaBytes: number;
  /** Bytes of job artifacts (screenshots, downloads, recordings) an organization may keep. */
  artifactsQuotaBytes: number;
  /** The longest one uploaded document may take to read (its read worker is then stopped and the bundle fails). */
  documentReadTimeoutMs: number;
}

const MB = 1024 * 1024;

/** Defaults for a workstation: a few browsers, a generous request rate, gigabytes of disk. */
export const DEFAULT_RESOURCE_LIMITS: Readonly<ResourceLimits> = Object.freeze({
  browsersPerOrg: 4,
  browsersTotal: 8,
  requestsPerMinute: 600,
  skillsQuotaBytes: 1024 * MB,
  documentsQuotaBytes: 2048 * MB,
  artifactsQuotaBytes: 5120 * MB,
  documentReadTimeoutMs: 5 * 60_000,
});

const quotaMb = z
  .int()
  .min(1)
  .max(1024 * 1024);

/** The `settings.json` fields that change the limits (operatorSettings.ts spreads them into its schema). */
export const LimitSettingsShape = {
  browsers_per_org: z.int().min(1).max(64).optional(),
  browsers_total: z.int().min(1).max(256).optional(),
  requests_per_minute: z.int().min(1).max(1_000_000).optional(),
  skills_quota_mb: quotaMb.optional(),
  documents_quota_mb: quotaMb.optional(),
  artifacts_quota_mb: quotaMb.optional(),
  document_read_timeout_s: z.int().min(1).max(86_400).optional(),
};
const LimitSettings = z.object(LimitSettingsShape);
export type LimitSettings = z.infer<typeof LimitSettings>;

/**
 * The limits in force: an explicit override (tests) wins over settings.json, which wins over the defaults.
 * `browserCapacity` is what the browser hosts hold together (local_max_browsers + every host's
 * max_browsers, docs/scale.md): without browsers_total in settings.json, that is the service's total.
 */
export function resolveLimits(
  settings: LimitSettings,
  overrides: Partial<ResourceLimits> = {},
  browserCapacity?: number,
): ResourceLimits {
  const mb = (value: number | undefined): number | undefined => (value === undefined ? undefined : value * MB);
  return {
    browsersPerOrg: overrides.browsersPerOrg ?? settings.browsers_per_org ?? DEFAULT_RESOURCE_LIMITS.browsersPerOrg,
    browsersTotal:
      overrides.browsersTotal ??
      settings.browsers_total ??
      (browserCapacity === undefined || browserCapacity < 1 ? DEFAULT_RESOURCE_LIMITS.browsersTotal : browserCapacity),
    requestsPerMinute:
      overrides.requestsPerMinute ?? settings.requests_per_minute ?? DEFAULT_RESOURCE_LIMITS.requestsPerMinute,
    skillsQuotaBytes:
      overrides.skillsQuotaBytes ?? mb(settings.skills_quota_mb) ?? DEFAULT_RESOURCE_LIMITS.skillsQuotaBytes,
    documentsQuotaBytes:
      overrides.documentsQuotaBytes ?? mb(settings.documents_quota_mb) ?? DEFAULT_RESOURCE_LIMITS.documentsQuotaBytes,
    artifactsQuotaBytes:
      overrides.artifactsQuotaBytes ?? mb(settings.artifacts_quota_mb) ?? DEFAULT_RESOURCE_LIMITS.artifactsQuotaBytes,
    documentReadTimeoutMs:
      overrides.documentReadTimeoutMs ??
      (settings.document_read_timeout_s === undefined ? undefined : settings.document_read_timeout_s * 1000) ??
      DEFAULT_RESOURCE_LIMITS.documentReadTimeoutMs,
  };
}
