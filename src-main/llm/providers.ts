import { providerEnvNames } from '../base/config.ts';
import { LOCAL_MODEL_PROVIDER, MODEL_PROVIDERS, ModelProvider } from '../contract/models.ts';

export { MODEL_PROVIDERS, type ModelProvider };

/** Which official SDK speaks to a provider: Moonshot and local servers speak OpenAI's Chat Completions. */
export type SdkFamily = 'anthropic' | 'openai';

/** How "Test connection" checks a provider with one minimal request. */
export type ConnectionProbe =
  /** A one-token completion of this (cheap) model. */
  | { kind: 'completion'; modelId: string }
  /** The server's model list: Portico cannot guess which models a local server has. */
  | { kind: 'model-list' };

/** Everything Portico knows about one model provider. */
export interface ProviderInfo {
  name: ModelProvider;
  /** How sentences name it: "Anthropic rejected the key…". */
  label: string;
  sdk: SdkFamily;
  /** The provider's own endpoint; a local server has none until one is configured. */
  defaultBaseUrl: string | undefined;
  /** The environment variable holding a key, read when the keychain has none (named by base/config.ts, which reads it). */
  apiKeyEnv: string;
  /** The environment variable that overrides the base URL, ahead of the stored setting. */
  baseUrlEnv: string;
  /** The SDK's own base-URL variable, honoured below the stored setting (none for providers whose SDK has none of its own). */
  sdkBaseUrlEnv: string | undefined;
  /** Whether calls need a key: a local server usually takes none, its base URL is what makes it usable. */
  needsKey: boolean;
  /** A model on the user's own machine: no per-token price, no network beyond it. */
  local: boolean;
  probe: ConnectionProbe;
}

/** The one registry of model providers (local-service.md §3: vendorA = anthropic, vendorB = moonshot, vendorC = openai). */
export const PROVIDERS: Readonly<Record<ModelProvider, ProviderInfo>> = {
  anthropic: {
    name: 'anthropic',
    label: 'Anthropic',
    sdk: 'anthropic',
    defaultBaseUrl: 'https://api.anthropic.com',
    ...providerEnvNames('anthropic'),
    needsKey: true,
    local: false,
    probe: { kind: 'completion', modelId: 'anthropic:claude-haiku-4-5' },
  },
  openai: {
    name: 'openai',
    label: 'OpenAI',
    sdk: 'openai',
    defaultBaseUrl: 'https://api.openai.com/v1',
    ...providerEnvNames('openai'),
    needsKey: true,
    local: false,
    probe: { kind: 'completion', modelId: 'openai:gpt-5.4-mini' },
  },
  moonshot: {
    name: 'moonshot',
    label: 'Moonshot',
    sdk: 'openai',
    defaultBaseUrl: 'https://api.moonshot.ai/v1',
    ...providerEnvNames('moonshot'),
    needsKey: true,
    local: false,
    probe: { kind: 'completion', modelId: 'moonshot:kimi-k2.5' },
  },
  [LOCAL_MODEL_PROVIDER]: {
    name: LOCAL_MODEL_PROVIDER,
    label: 'The OpenAI-compatible server',
    sdk: 'openai',
    defaultBaseUrl: undefined,
    ...providerEnvNames(LOCAL_MODEL_PROVIDER),
    needsKey: false,
    local: true,
    probe: { kind: 'model-list' },
  },
};

/** Whether `name` is a provider Portico knows. */
export function isModelProvider(name: string): name is ModelProvider {
  return ModelProvider.safeParse(name).success;
}

/** The SecretStore entry of a provider's key: what `portico provider set-key` and the console write. */
export function providerSecretName(provider: ModelProvider): string {
  return `provider/${provider}`;
}

/** The provider names joined for a sentence: "anthropic, openai, moonshot or openai-compatible". */
export function providerNameList(): string {
  return `${MODEL_PROVIDERS.slice(0, -1).join(', ')} or ${MODEL_PROVIDERS.at(-1) ?? ''}`;
}
