import { z } from 'zod';
import { Timestamp } from './common.ts';

/** Longest action text accepted; a longer one is a 422 before any browser work. */
export const MAX_ACTION_LENGTH = 4_000;
const MAX_VARIABLES = 100;
const MAX_VARIABLE_VALUE = 10_000;

/** Exact texts of single-action failures (interface §7 where it gives them). */
export const singleActionMessages = {
  internal: 'Failed to run single action: internal error',
  noModel: (reason: string) =>
    `Could not read this action: ${reason}. The built-in interpreter reads go to / open, click, type … into, select … from, check / uncheck, press, hover, scroll, wait for and extract; no model is configured to read anything else`,
  missingVariable: (name: string) => `Variable '${name}' is used in the action but not given in variables`,
} as const;

// eslint-disable-next-line no-control-regex
const NO_CONTROL = /^[^\u0000-\u001f\u007f]*$/;

/** POST /public/single-actions/run-action (interface §4.5). */
export const SingleActionRequest = z.strictObject({
  action: z
    .string()
    .trim()
    .min(1)
    .max(MAX_ACTION_LENGTH)
    .describe('Plain imperative English; may contain {{variable_name}} references'),
  session_id: z.string().min(1).max(128),
  id: z.string().min(1).max(200).optional().describe('Stable identifier: the cached step is kept under it across runs'),
  variables: z
    .record(z.string().min(1).max(100), z.union([z.string().max(MAX_VARIABLE_VALUE), z.number(), z.boolean()]))
    .refine((v) => Object.keys(v).length <= MAX_VARIABLES, `must have at most ${MAX_VARIABLES} entries`)
    .default({})
    .describe('Values for {{name}} references; never stored in the cache'),
  set_cache: z.boolean().default(true).describe('Store or refresh the cached step after a fresh resolution'),
  user_agent: z
    .string()
    .min(1)
    .max(512)
    .regex(NO_CONTROL, 'must not contain control characters')
    .optional()
    .describe('User agent for this action only'),
});
export type SingleActionRequest = z.infer<typeof SingleActionRequest>;

/** The answer to run-action: a target that was not found is `success: false` with `error`, still a 200. */
export const SingleActionResponse = z.object({
  success: z.boolean(),
  result: z.string().optional().describe('Outcome text: what was done, or the extracted text'),
  credits: z.int().min(0).optional().describe("1 per action, plus the model's when one was called"),
  error: z.string().optional(),
  used_cache: z.boolean().describe('A cached step was replayed'),
  set_cache: z.boolean().describe('This run stored or replaced the cached step'),
  cache_failed: z.boolean().describe('A cached step existed but no longer applied, so a fresh resolution ran'),
});
export type SingleActionResponse = z.infer<typeof SingleActionResponse>;

/** One step-cache entry as GET /public/single-actions/cache lists it (Portico addition). */
export const ActionCacheEntry = z.object({
  cache_key: z.string(),
  id: z.string().nullable().describe('The request id the entry is kept under, or null for a hashed key'),
  action: z.string().describe('The action as written, {{variable}} names unexpanded'),
  page: z.string().describe('Origin and path of the page it was resolved on'),
  operation: z.string(),
  target: z.object({ role: z.string(), name: z.string() }).nullable(),
  hits: z.int(),
  misses: z.int(),
  created_at: Timestamp,
  updated_at: Timestamp,
  last_used_at: Timestamp,
});
export type ActionCacheEntry = z.infer<typeof ActionCacheEntry>;

export const ActionCacheQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  offset: z.coerce.number().int().min(0).default(0),
});
export type ActionCacheQuery = z.infer<typeof ActionCacheQuery>;

export const ActionCacheList = z.object({ entries: z.array(ActionCacheEntry), total: z.int() });
export type ActionCacheList = z.infer<typeof ActionCacheList>;
