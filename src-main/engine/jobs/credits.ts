import { BUILTIN_AUTOFILL, providerOf } from '../../contract/models.ts';

/** Credits per started minute of active run time (published in docs/credits.md). */
export const CREDIT_RATES_PER_MINUTE: Readonly<Record<string, number>> = {
  [BUILTIN_AUTOFILL]: 1,
  'anthropic:claude-haiku-4-5': 3,
  'anthropic:claude-sonnet-4-6': 10,
};

/** Local OpenAI-compatible servers cost the user nothing beyond their own machine. */
const PROVIDER_FALLBACK_RATES: Readonly<Record<string, number>> = { 'openai-compatible': 1 };

/** A job's credits: its active minutes (rounded up, at least one) times the orchestrator's rate. */
export function creditsFor(orchestratorModel: string, activeMs: number): number {
  const rate = CREDIT_RATES_PER_MINUTE[orchestratorModel] ?? PROVIDER_FALLBACK_RATES[providerOf(orchestratorModel)] ?? 10;
  return Math.max(1, Math.ceil(activeMs / 60_000)) * rate;
}
