/**
 * The orchestrator ids the console offers on its run form, in a module without zod so the console
 * bundle can use the values; `models.ts` re-exports them, so there is one list.
 */

/** The engine that fills forms with no model and no network. */
export const BUILTIN_AUTOFILL = 'builtin:autofill';

/**
 * The interface's allowed orchestrators with its neutral vendors made concrete
 * (vendorA = anthropic; local-service.md §3).
 */
export const ORCHESTRATOR_MODELS = ['anthropic:claude-sonnet-4-6', 'anthropic:claude-haiku-4-5'] as const;

/** The interface's default orchestrator: used when its provider has a key, else builtin:autofill (local-service.md §3). */
export const DEFAULT_ORCHESTRATOR_MODEL = 'anthropic:claude-sonnet-4-6';

/** `anthropic:claude-sonnet-4-6` → `anthropic`. */
export const providerOfModel = (id: string): string => id.slice(0, id.indexOf(':'));
