import type { BaseUrlSource } from '../contract/console.ts';
import { PROVIDERS, type ModelProvider } from './providers.ts';

export interface ResolvedBaseUrl {
  url: string;
  source: BaseUrlSource;
}

/**
 * The base URL a provider is called at: the environment (`PORTICO_<PROVIDER>_BASE_URL`), then the
 * stored setting, then the SDK's own variable (`ANTHROPIC_BASE_URL`, `OPENAI_BASE_URL`), then the
 * provider's own. One function so jobs, "Test connection" and the console's status can never disagree.
 */
export function resolveBaseUrl(
  provider: ModelProvider,
  from: { env: string | undefined; stored: string | undefined; sdkEnv?: string | undefined },
): ResolvedBaseUrl | undefined {
  if (from.env !== undefined) return { url: from.env, source: 'env' };
  if (from.stored !== undefined) return { url: from.stored, source: 'stored' };
  if (from.sdkEnv !== undefined) return { url: from.sdkEnv, source: 'sdk_env' };
  const fallback = PROVIDERS[provider].defaultBaseUrl;
  return fallback === undefined ? undefined : { url: fallback, source: 'default' };
}
