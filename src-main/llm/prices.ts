import { providerOf } from '../contract/models.ts';
import { isModelProvider, PROVIDERS } from './providers.ts';
import type { LlmUsage } from './types.ts';

/** USD per million tokens, input and output; published in docs/credits.md (keep the two in step). */
export interface TokenPrice {
  inputPerMillion: number;
  outputPerMillion: number;
}

export const TOKEN_PRICES: Readonly<Record<string, TokenPrice>> = {
  'anthropic:claude-sonnet-4-6': { inputPerMillion: 3, outputPerMillion: 15 },
  'anthropic:claude-haiku-4-5': { inputPerMillion: 1, outputPerMillion: 5 },
  'anthropic:claude-haiku-4-5-20251001': { inputPerMillion: 1, outputPerMillion: 5 },
  'openai:gpt-5.4': { inputPerMillion: 1.25, outputPerMillion: 10 },
  'openai:gpt-5.4-mini': { inputPerMillion: 0.25, outputPerMillion: 2 },
  'moonshot:kimi-k2.5': { inputPerMillion: 0.6, outputPerMillion: 2.5 },
};

/** A model on the user's own machine costs nothing per token; an unlisted hosted model is priced like the dearest listed one. */
const LOCAL_PRICE: TokenPrice = { inputPerMillion: 0, outputPerMillion: 0 };
const UNLISTED_PRICE: TokenPrice = { inputPerMillion: 3, outputPerMillion: 15 };

/** What one call's tokens cost in USD under the published table. */
export function costOfUsage(modelId: string, usage: LlmUsage): number {
  const provider = providerOf(modelId);
  const price =
    TOKEN_PRICES[modelId] ?? (isModelProvider(provider) && PROVIDERS[provider].local ? LOCAL_PRICE : UNLISTED_PRICE);
  return (usage.inputTokens * price.inputPerMillion + usage.outputTokens * price.outputPerMillion) / 1_000_000;
}
