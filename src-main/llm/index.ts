export type * from './types.ts';
export { DEFAULT_RETRY_POLICY } from './types.ts';
export { LlmCallError, ModelNotConfiguredError, UnknownModelError } from './llmErrors.ts';
export { createClient, LlmFactory, type LlmFactoryOptions } from './llmFactory.ts';
export { TOKEN_PRICES, costOfUsage, type TokenPrice } from './prices.ts';
export { resolveBaseUrl, type ResolvedBaseUrl } from './baseUrls.ts';
export {
  isModelProvider,
  MODEL_PROVIDERS,
  PROVIDERS,
  providerNameList,
  providerSecretName,
  type ConnectionProbe,
  type ModelProvider,
  type ProviderInfo,
  type SdkFamily,
} from './providers.ts';
