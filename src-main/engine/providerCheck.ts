import OpenAI from 'openai';
import { AnthropicClient } from '../llm/anthropicClient.ts';
import { OpenAiClient } from '../llm/openaiClient.ts';
import { BASE_URL_ENV, resolveBaseUrl, type LlmClient, type LlmProvider, type RetryPolicy } from '../llm/index.ts';

/** The answer of a "Test connection": whether the stored key works, in words for the operator. */
export interface ProviderCheckResult {
  ok: boolean;
  detail: string;
}

export interface ProviderCheckOptions {
  /** Base URLs stored by the console or `portico provider set-base-url` (the same store the model layer reads). */
  storedBaseUrl(provider: LlmProvider): string | undefined;
  env?: Readonly<Record<string, string | undefined>>;
  /** One quick try: a connection test that retries for minutes would look hung. */
  retry?: RetryPolicy;
}

const PROVIDER_NAMES: Record<LlmProvider, string> = {
  anthropic: 'Anthropic',
  openai: 'OpenAI',
  moonshot: 'Moonshot',
  'openai-compatible': 'The OpenAI-compatible server',
};

/** The cheapest model of each hosted provider, asked for a single token. */
const PROBE_MODELS: Record<Exclude<LlmProvider, 'openai-compatible'>, string> = {
  anthropic: 'anthropic:claude-haiku-4-5',
  openai: 'openai:gpt-5.4-mini',
  moonshot: 'moonshot:kimi-k2.5',
};

const DEFAULT_CHECK_RETRY: RetryPolicy = { maxRetries: 0, timeoutMs: 15_000 };

interface SdkErrorShape {
  status?: unknown;
  message?: unknown;
  error?: { message?: unknown; error?: { message?: unknown } };
}

/** The provider's own words from an SDK error (Anthropic nests them one level deeper than OpenAI). */
function providerMessage(error: SdkErrorShape): string {
  const nested = error.error?.error?.message ?? error.error?.message;
  if (typeof nested === 'string' && nested !== '') return nested;
  return typeof error.message === 'string' ? error.message.replace(/^\d{3}\s+/, '') : String(error);
}

/** The innermost reason of a connection failure ("connect ECONNREFUSED …" rather than "fetch failed"). */
function rootReason(error: unknown): string {
  let current = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(current);
}

/** Turns a failed call into a sentence: a rejected key, another HTTP answer, or no answer at all. */
export function describeFailure(provider: LlmProvider, url: string, error: unknown): string {
  // LlmCallError wraps the SDK error; the SDK error carries the HTTP status.
  const cause = (error instanceof Error && error.cause instanceof Error ? error.cause : error) as SdkErrorShape;
  const name = PROVIDER_NAMES[provider];
  if (typeof cause.status === 'number') {
    const said = providerMessage(cause);
    if (cause.status === 401 || cause.status === 403) return `${name} rejected the key (HTTP ${cause.status}): ${said}`;
    return `${name} answered HTTP ${cause.status} at ${url}: ${said}`;
  }
  return `Could not reach ${url}: ${rootReason(cause)}`;
}

/**
 * Checks a provider key with one real, minimal request at the base URL jobs use: a one-token
 * completion for hosted providers, the model list for an OpenAI-compatible server (whose model names
 * Portico cannot guess).
 */
export function providerChecker(options: ProviderCheckOptions): (provider: LlmProvider, apiKey: string | undefined) => Promise<ProviderCheckResult> {
  const env = options.env ?? process.env;
  const retry = options.retry ?? DEFAULT_CHECK_RETRY;
  // The same resolution as LlmFactory: the check must call the URL jobs will call.
  const baseUrlOf = (provider: LlmProvider): string | undefined => resolveBaseUrl(provider, options.storedBaseUrl(provider), env)?.url;

  return async (provider, apiKey) => {
    const baseUrl = baseUrlOf(provider);
    if (baseUrl === undefined) {
      return { ok: false, detail: `No base URL is set; set it in the console, run \`portico provider set-base-url ${provider} <url>\` or set ${BASE_URL_ENV[provider]}` };
    }
    try {
      if (provider === 'openai-compatible') {
        // Local servers mostly need no key, but the SDK insists on one (as in LlmFactory).
        const sdk = new OpenAI({ apiKey: apiKey ?? 'not-needed', baseURL: baseUrl, maxRetries: retry.maxRetries, timeout: retry.timeoutMs });
        const models = await sdk.models.list();
        const count = models.data.length;
        return { ok: true, detail: `${baseUrl} answered and lists ${count} model${count === 1 ? '' : 's'}` };
      }
      if (apiKey === undefined) return { ok: false, detail: 'No key is stored for this provider' };
      const modelId = PROBE_MODELS[provider];
      const client: LlmClient = provider === 'anthropic'
        ? new AnthropicClient({ modelId, apiKey, baseUrl, retry })
        : new OpenAiClient({ modelId, apiKey, baseUrl, retry });
      await client.complete({ system: 'Connection test.', messages: [{ role: 'user', content: [{ type: 'text', text: 'Reply with OK.' }] }], maxTokens: 1 });
      return { ok: true, detail: `${PROVIDER_NAMES[provider]} accepted the key at ${baseUrl} (${modelId} answered)` };
    } catch (error) {
      return { ok: false, detail: describeFailure(provider, baseUrl, error) };
    }
  };
}
