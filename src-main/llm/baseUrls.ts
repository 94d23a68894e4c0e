import { PROVIDER_BASE_URL_ENV, type BaseUrlSource } from '../contract/console.ts';
import type { LlmProvider } from './llmFactory.ts';

/** Per-provider override, ahead of anything stored (named in the contract so the console can show it). */
export const BASE_URL_ENV: Record<LlmProvider, string> = PROVIDER_BASE_URL_ENV;

/** The providers' own endpoints (the SDKs' defaults, and Moonshot's OpenAI-compatible API); a local server has none. */
export const DEFAULT_BASE_URLS: Record<LlmProvider, string | undefined> = {
  anthropic: 'https://api.anthropic.com',
  openai: 'https://api.openai.com/v1',
  moonshot: 'https://api.moonshot.ai/v1',
  'openai-compatible': undefined,
};

export interface ResolvedBaseUrl {
  url: string;
  source: BaseUrlSource;
}

/**
 * The base URL a provider is called at: the environment, then the stored setting, then the provider's
 * own. One function so jobs, "Test connection" and the console's status can never disagree.
 */
export function resolveBaseUrl(
  provider: LlmProvider,
  stored: string | undefined,
  env: Readonly<Record<string, string | undefined>> = process.env,
): ResolvedBaseUrl | undefined {
  const fromEnv = env[BASE_URL_ENV[provider]]?.trim();
  if (fromEnv !== undefined && fromEnv !== '') return { url: fromEnv, source: 'env' };
  if (stored !== undefined) return { url: stored, source: 'stored' };
  const fallback = DEFAULT_BASE_URLS[provider];
  return fallback === undefined ? undefined : { url: fallback, source: 'default' };
}
