import { createClient, PROVIDERS, type ModelProvider, type RetryPolicy } from '../llm/index.ts';

/** The answer of a "Test connection": whether the stored key works, in words for the operator. */
export interface ProviderCheckResult {
  ok: boolean;
  detail: string;
}

export interface ProviderCheckOptions {
  /** The base URL jobs call (LlmFactory.baseUrl): the check must call the same one. */
  baseUrl(provider: ModelProvider): string | undefined;
  /** One quick try: a connection test that retries for minutes would look hung. */
  retry?: RetryPolicy;
}

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
export function describeFailure(provider: ModelProvider, url: string, error: unknown): string {
  // LlmCallError wraps the SDK error; the SDK error carries the HTTP status.
  const cause = (error instanceof Error && error.cause instanceof Error ? error.cause : error) as SdkErrorShape;
  const name = PROVIDERS[provider].label;
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
export function providerChecker(
  options: ProviderCheckOptions,
): (provider: ModelProvider, apiKey: string | undefined) => Promise<ProviderCheckResult> {
  const retry = options.retry ?? DEFAULT_CHECK_RETRY;
  return async (provider, apiKey) => {
    const info = PROVIDERS[provider];
    const baseUrl = options.baseUrl(provider);
    if (baseUrl === undefined) {
      return {
        ok: false,
        detail: `No base URL is set; set it in the console, run \`portico provider set-base-url ${provider} <url>\` or set ${info.baseUrlEnv}`,
      };
    }
    try {
      if (info.probe.kind === 'model-list') {
        // Local servers mostly need no key, but the SDK insists on one (as in LlmFactory).
        // Imported on first use, like the clients (llm/llmFactory.ts).
        const { default: OpenAI } = await import('openai');
        const sdk = new OpenAI({
          apiKey: apiKey ?? 'not-needed',
          baseURL: baseUrl,
          maxRetries: retry.maxRetries,
          timeout: retry.timeoutMs,
        });
        const models = await sdk.models.list();
        const count = models.data.length;
        return { ok: true, detail: `${baseUrl} answered and lists ${count} model${count === 1 ? '' : 's'}` };
      }
      if (apiKey === undefined) return { ok: false, detail: 'No key is stored for this provider' };
      const { modelId } = info.probe;
      const client = await createClient(provider, { modelId, apiKey, baseUrl, retry });
      await client.complete({
        system: 'Connection test.',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Reply with OK.' }] }],
        maxTokens: 1,
      });
      return { ok: true, detail: `${info.label} accepted the key at ${baseUrl} (${modelId} answered)` };
    } catch (error) {
      return { ok: false, detail: describeFailure(provider, baseUrl, error) };
    }
  };
}
