import { z } from 'zod';

/** ISO 8601 timestamp string, as every `created_at` / `updated_at`. */
export const Timestamp = z.string().describe('ISO 8601 timestamp');

export const Uuid = z.uuid();

/** Any JSON object (a JSON Schema, form data, a result). */
export const JsonObject = z.record(z.string(), z.unknown());
export type JsonObject = z.infer<typeof JsonObject>;

export const HttpUrl = z.string().refine((value) => {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}, 'must be an absolute http(s) URL');

/** The body of every error response. */
export const ErrorResponse = z.object({ detail: z.string() });
export type ErrorResponse = z.infer<typeof ErrorResponse>;

export const OrgIdParam = z.object({ org_id: z.string().min(1) });

export const HealthResponse = z.object({ status: z.literal('ok'), version: z.string() });
export type HealthResponse = z.infer<typeof HealthResponse>;
