import type { ProviderEnvironment } from '../base/config.ts';
import type { SecretStore } from '../secrets/index.ts';
import { resolveBaseUrl, type ResolvedBaseUrl } from './baseUrls.ts';
import { ModelNotConfiguredError, UnknownModelError } from './llmErrors.ts';
import { isModelProvider, PROVIDERS, providerSecretName, type ModelProvider } from './providers.ts';
import { DEFAULT_RETRY_POLICY, type LlmClient, type RetryPolicy } from './types.ts';

export interface LlmFactoryOptions {
  /** The secret store (opened lazily: only model jobs need it). */
  secrets(): Promise<Pick<SecretStore, 'get'>>;
  /** Base URLs stored by the console or `portico provider set-base-url`. */
  storedBaseUrl(provider: ModelProvider): string | undefined;
  /** Keys and base URLs from the environment, read once by base/config.ts. */
  environment: ProviderEnvironment;
  retry?: RetryPolicy;
}

/**
 * A client of `modelId` through its provider's SDK, at `baseUrl` (the SDK's own default when absent).
 * The SDK is imported on first use (each is ~25-30 MB and 150-250 ms to load): a service that never
 * calls a model never loads one (docs/performance.md).
 */
export async function createClient(
  provider: ModelProvider,
  options: { modelId: string; apiKey: string | undefined; baseUrl: string | undefined; retry: RetryPolicy },
): Promise<LlmClient> {
  const { modelId, apiKey, baseUrl, retry } = options;
  const at = baseUrl !== undefined ? { baseUrl } : {};
  if (PROVIDERS[provider].sdk === 'anthropic') {
    const { AnthropicClient } = await import('./anthropicClient.ts');
    return new AnthropicClient({ modelId, apiKey: apiKey ?? '', retry, ...at });
  }
  const { OpenAiClient } = await import('./openaiClient.ts');
  // Local servers mostly ignore the key, but the SDK insists on one.
  return new OpenAiClient({ modelId, apiKey: apiKey ?? 'not-needed', retry, ...at });
}

interface ProviderSettings {
  provider: ModelProvider;
  apiKey: string | undefined;
  baseUrl: string | undefined;
}

/** Builds model clients from `provider:model` ids, with keys from the keychain or the environment. */
export class LlmFactory {
  readonly #options: LlmFactoryOptions;

  constructor(options: LlmFactoryOptions) {
    this.#options = options;
  }

  /** The base URL `provider` is called at and where it comes from; undefined when there is none yet. */
  baseUrl(provider: ModelProvider): ResolvedBaseUrl | undefined {
    return resolveBaseUrl(provider, {
      env: this.#options.environment[provider].baseUrl,
      stored: this.#options.storedBaseUrl(provider),
      sdkEnv: this.#options.environment[provider].sdkBaseUrl,
    });
  }

  async #settings(modelId: string): Promise<ProviderSettings> {
    const colon = modelId.indexOf(':');
    const provider = colon > 0 ? modelId.slice(0, colon) : '';
    if (!isModelProvider(provider) || colon === modelId.length - 1) throw new UnknownModelError(modelId);
    // The keychain is what `portico provider set-key` writes; an unreadable keychain falls back to the environment.
    const stored = await this.#options
      .secrets()
      .then((s) => s.get(providerSecretName(provider)))
      .catch(() => undefined);
    return {
      provider,
      apiKey: stored ?? this.#options.environment[provider].apiKey,
      baseUrl: this.baseUrl(provider)?.url,
    };
  }

  /** What a model still needs before it can be called, as an instruction; undefined when it is ready. */
  async missing(modelId: string): Promise<string | undefined> {
    const { provider, apiKey, baseUrl } = await this.#settings(modelId);
    const info = PROVIDERS[provider];
    if (baseUrl === undefined) {
      return `no base URL; run \`portico provider set-base-url ${provider} <url>\`, set it in the console (Settings › Model providers) or set ${info.baseUrlEnv}`;
    }
    return info.needsKey && apiKey === undefined
      ? `no API key; run \`portico provider set-key ${provider}\` or set ${info.apiKeyEnv}`
      : undefined;
  }

  /** A ready client; throws UnknownModelError or ModelNotConfiguredError (both 422). */
  async create(modelId: string): Promise<LlmClient> {
    const missing = await this.missing(modelId);
    if (missing !== undefined) throw new ModelNotConfiguredError(modelId, missing);
    const { provider, apiKey, baseUrl } = await this.#settings(modelId);
    return createClient(provider, { modelId, apiKey, baseUrl, retry: this.#options.retry ?? DEFAULT_RETRY_POLICY });
  }
}
