export type * from './types.ts';
export { DEFAULT_RETRY_POLICY } from './types.ts';
export { LlmCallError, ModelNotConfiguredError, UnknownModelError } from './llmErrors.ts';
export { LLM_PROVIDERS, LlmFactory, isLlmProvider, type LlmFactoryOptions, type LlmProvider } from './llmFactory.ts';
export { TOKEN_PRICES, costOfUsage, type TokenPrice } from './prices.ts';
export { BASE_URL_ENV, DEFAULT_BASE_URLS, resolveBaseUrl, type ResolvedBaseUrl } from './baseUrls.ts';
