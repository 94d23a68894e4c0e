import { z } from 'zod';
import { BUILTIN_AUTOFILL, ORCHESTRATOR_MODELS } from './orchestrators.ts';

// The run form of the console needs these as values, so they live in a module without zod.
export { BUILTIN_AUTOFILL, DEFAULT_ORCHESTRATOR_MODEL, ORCHESTRATOR_MODELS } from './orchestrators.ts';

/**
 * The providers of `provider:model` ids, as a plain list because the contract may import zod only;
 * every other fact about them lives in src-main/llm/providers.ts.
 */
export const MODEL_PROVIDERS = ['anthropic', 'openai', 'moonshot', 'openai-compatible'] as const;
export const ModelProvider = z.enum(MODEL_PROVIDERS);
export type ModelProvider = z.infer<typeof ModelProvider>;

/** The provider of a model server on the user's own machine: any model name it serves is allowed. */
export const LOCAL_MODEL_PROVIDER = 'openai-compatible' satisfies ModelProvider;

/** How the allowed lists name a local server's models. */
export const LOCAL_MODEL_PLACEHOLDER = `${LOCAL_MODEL_PROVIDER}:<model>`;

/**
 * The interface's allowed lists with its neutral vendors made concrete
 * (vendorA = anthropic, vendorB = moonshot, vendorC = openai; local-service.md §3).
 */
export const VISION_MODELS = [
  'anthropic:claude-haiku-4-5-20251001',
  'moonshot:kimi-k2.5',
  'openai:gpt-5.4',
  'openai:gpt-5.4-mini',
] as const;

export const DEFAULT_VISION_MODEL = 'anthropic:claude-haiku-4-5-20251001';

/** Names a client of the hosted service may send, mapped to Portico's ids. */
export const MODEL_ALIASES: Readonly<Record<string, string>> = {
  'claude-sonnet-4-6': 'anthropic:claude-sonnet-4-6',
  'claude-haiku-4-5': 'anthropic:claude-haiku-4-5',
  'anthropic:haiku-4-5-20251001': 'anthropic:claude-haiku-4-5-20251001',
  'claude-haiku-4-5-20251001': 'anthropic:claude-haiku-4-5-20251001',
  'moonshot:kimi-k2.5': 'moonshot:kimi-k2.5',
  'kimi-k2.5': 'moonshot:kimi-k2.5',
  'gpt-5.4': 'openai:gpt-5.4',
  'gpt-5.4-mini': 'openai:gpt-5.4-mini',
  autofill: BUILTIN_AUTOFILL,
};

/** A `provider:model` id, or an alias of one. */
export const ModelId = z
  .string()
  .min(1)
  .max(200)
  .transform((value) => MODEL_ALIASES[value] ?? value)
  .refine((value) => /^[a-z][a-z0-9-]*:[^\s]+$/.test(value), {
    message: 'must be a model id of the form provider:model',
    abort: true,
  });

/** Whether a canonical id names a model of a local OpenAI-compatible server. */
export function isLocalModel(id: string): boolean {
  return id.startsWith(`${LOCAL_MODEL_PROVIDER}:`);
}

/** Whether a canonical id may orchestrate: the allowed list, the builtin engine, or a local OpenAI-compatible server. */
export function isOrchestratorModel(id: string): boolean {
  return id === BUILTIN_AUTOFILL || (ORCHESTRATOR_MODELS as readonly string[]).includes(id) || isLocalModel(id);
}

export function isVisionModel(id: string): boolean {
  return (VISION_MODELS as readonly string[]).includes(id) || isLocalModel(id);
}

/** Whether a canonical id may be a portal's `assist_model`: any listed model, or a local OpenAI-compatible one (never the builtin engine). */
export function isAssistModel(id: string): boolean {
  return (ORCHESTRATOR_MODELS as readonly string[]).includes(id) || isVisionModel(id);
}

/** A portal's `assist_model`: a model id (or alias) that builtin:autofill may ask to map unmatched keys. */
export const AssistModelId = ModelId.refine(
  isAssistModel,
  `must be one of ${[...ORCHESTRATOR_MODELS, ...VISION_MODELS, LOCAL_MODEL_PLACEHOLDER].join(', ')}, or null`,
);

/** The provider part of `provider:model`. */
export function providerOf(id: string): string {
  return id.slice(0, id.indexOf(':'));
}
