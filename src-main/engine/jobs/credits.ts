import { BUILTIN_AUTOFILL, providerOf } from '../../contract/models.ts';
import { isModelProvider, PROVIDERS } from '../../llm/index.ts';

/** Credits per started minute of active run time (published in docs/credits.md). */
export const CREDIT_RATES_PER_MINUTE: Readonly<Record<string, number>> = {
  [BUILTIN_AUTOFILL]: 1,
  'anthropic:claude-haiku-4-5': 3,
  'anthropic:claude-sonnet-4-6': 10,
};

/** A model on the user's own machine costs what the builtin engine does; an unlisted hosted one the dearest rate. */
const LOCAL_RATE = 1;
const UNLISTED_RATE = 10;

/** A job's credits: its active minutes (rounded up, at least one) times the orchestrator's rate. */
export function creditsFor(orchestratorModel: string, activeMs: number): number {
  const provider = providerOf(orchestratorModel);
  const rate =
    CREDIT_RATES_PER_MINUTE[orchestratorModel] ??
    (isModelProvider(provider) && PROVIDERS[provider].local ? LOCAL_RATE : UNLISTED_RATE);
  return Math.max(1, Math.ceil(activeMs / 60_000)) * rate;
}
