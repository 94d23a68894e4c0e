import type { SecretStore } from '../secrets/index.ts';
import { AnthropicClient } from './anthropicClient.ts';
import { BASE_URL_ENV, resolveBaseUrl } from './baseUrls.ts';
import { ModelNotConfiguredError, UnknownModelError } from './llmErrors.ts';
import { OpenAiClient } from './openaiClient.ts';
import { DEFAULT_RETRY_POLICY, type LlmClient, type RetryPolicy } from './types.ts';

/** The model providers Portico talks to (local-service.md §3). */
export const LLM_PROVIDERS = ['anthropic', 'openai', 'moonshot', 'openai-compatible'] as const;
export type LlmProvider = (typeof LLM_PROVIDERS)[number];

const KEY_ENV: Record<LlmProvider, string> = {
  anthropic: 'ANTHROPIC_API_KEY',
  openai: 'OPENAI_API_KEY',
  moonshot: 'MOONSHOT_API_KEY',
  'openai-compatible': 'OPENAI_COMPATIBLE_API_KEY',
};

export function isLlmProvider(name: string): name is LlmProvider {
  return (LLM_PROVIDERS as readonly string[]).includes(name);
}

export interface LlmFactoryOptions {
  /** The secret store (opened lazily: only model jobs need it). */
  secrets(): Promise<Pick<SecretStore, 'get'>>;
  /** Base URLs stored by the console or `portico provider set-base-url`. */
  storedBaseUrl(provider: LlmProvider): string | undefined;
  env?: Readonly<Record<string, string | undefined>>;
  retry?: RetryPolicy;
}

interface ProviderSettings {
  provider: LlmProvider;
  apiKey: string | undefined;
  baseUrl: string | undefined;
}

/** Builds model clients from `provider:model` ids, with keys from the keychain or the environment. */
export class LlmFactory {
  readonly #options: LlmFactoryOptions;

  constructor(options: LlmFactoryOptions) {
    this.#options = options;
  }

  #env(name: string): string | undefined {
    const value = (this.#options.env ?? process.env)[name];
    return value !== undefined && value.trim() !== '' ? value.trim() : undefined;
  }

  async #settings(modelId: string): Promise<ProviderSettings> {
    const colon = modelId.indexOf(':');
    const provider = colon > 0 ? modelId.slice(0, colon) : '';
    if (!isLlmProvider(provider) || colon === modelId.length - 1) throw new UnknownModelError(modelId);
    // The keychain is what `portico provider set-key` writes; an unreadable keychain falls back to the environment.
    const stored = await this.#options.secrets().then((s) => s.get(`provider/${provider}`)).catch(() => undefined);
    return {
      provider,
      apiKey: stored ?? this.#env(KEY_ENV[provider]),
      baseUrl: resolveBaseUrl(provider, this.#options.storedBaseUrl(provider), this.#options.env ?? process.env)?.url,
    };
  }

  /** What a model still needs before it can be called, as an instruction; undefined when it is ready. */
  async missing(modelId: string): Promise<string | undefined> {
    const { provider, apiKey, baseUrl } = await this.#settings(modelId);
    if (provider === 'openai-compatible') {
      return baseUrl === undefined
        ? `no base URL; run \`portico provider set-base-url openai-compatible <url>\`, set it in the console (Settings › Model providers) or set ${BASE_URL_ENV[provider]}`
        : undefined;
    }
    return apiKey === undefined ? `no API key; run \`portico provider set-key ${provider}\` or set ${KEY_ENV[provider]}` : undefined;
  }

  /** A ready client; throws UnknownModelError or ModelNotConfiguredError (both 422). */
  async create(modelId: string): Promise<LlmClient> {
    const missing = await this.missing(modelId);
    if (missing !== undefined) throw new ModelNotConfiguredError(modelId, missing);
    const { provider, apiKey, baseUrl } = await this.#settings(modelId);
    const retry = this.#options.retry ?? DEFAULT_RETRY_POLICY;
    if (provider === 'anthropic') return new AnthropicClient({ modelId, apiKey: apiKey ?? '', retry, ...(baseUrl !== undefined && { baseUrl }) });
    // Local servers mostly ignore the key, but the SDK insists on one.
    return new OpenAiClient({ modelId, apiKey: apiKey ?? 'not-needed', retry, ...(baseUrl !== undefined && { baseUrl }) });
  }
}
