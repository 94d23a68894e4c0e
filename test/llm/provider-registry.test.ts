// tier: unit
import { describe, expect, it } from 'vitest';
import { readConfig } from '../../src-main/base/config.ts';
import { ModelProvider as ConsoleModelProvider, ProviderParams } from '../../src-main/contract/console.ts';
import { MODEL_PROVIDERS } from '../../src-main/contract/models.ts';
import { USAGE } from '../../src-main/cli/commands.ts';
import { creditsFor } from '../../src-main/engine/jobs/credits.ts';
import { costOfUsage, LlmFactory, PROVIDERS, providerSecretName, UnknownModelError } from '../../src-main/llm/index.ts';

describe('one provider registry', () => {
  it('has exactly the providers the contract names, and every face offers the same list', () => {
    expect(Object.keys(PROVIDERS)).toEqual([...MODEL_PROVIDERS]);
    for (const [name, info] of Object.entries(PROVIDERS)) expect(info.name).toBe(name);
    expect(ConsoleModelProvider.options).toEqual([...MODEL_PROVIDERS]);
    expect(ProviderParams.safeParse({ provider: 'acme-ai' }).success).toBe(false);
    expect(USAGE).toContain(`provider set-key <${MODEL_PROVIDERS.join('|')}>`);
    expect(new UnknownModelError('acme:x').detail).toBe(
      "Unknown model 'acme:x': use provider:model with provider anthropic, openai, moonshot or openai-compatible",
    );
  });

  it('drives what the factory needs: a local server needs a base URL and no key, hosted ones a key', async () => {
    const factory = new LlmFactory({
      secrets: async () => ({ get: async () => undefined }),
      storedBaseUrl: () => undefined,
      environment: readConfig({}).providers,
    });
    for (const info of Object.values(PROVIDERS)) {
      const missing = await factory.missing(`${info.name}:some-model`);
      if (info.defaultBaseUrl === undefined) expect(missing).toContain(`set ${info.baseUrlEnv}`);
      else expect(missing).toBe(`no API key; run \`portico provider set-key ${info.name}\` or set ${info.apiKeyEnv}`);
      expect(factory.baseUrl(info.name)).toEqual(
        info.defaultBaseUrl === undefined ? undefined : { url: info.defaultBaseUrl, source: 'default' },
      );
      expect(providerSecretName(info.name)).toBe(`provider/${info.name}`);
    }
  });

  it("a local provider's models cost no tokens and the builtin rate in credits; an unlisted hosted model the dearest", () => {
    const local = Object.values(PROVIDERS)
      .filter((info) => info.local)
      .map((info) => info.name);
    expect(local).toEqual(['openai-compatible']);
    expect(costOfUsage('openai-compatible:qwen', { inputTokens: 1_000_000, outputTokens: 1_000_000 })).toBe(0);
    expect(creditsFor('openai-compatible:qwen', 60_000)).toBe(1);
    expect(costOfUsage('moonshot:kimi-next', { inputTokens: 1_000_000, outputTokens: 0 })).toBe(3);
    expect(creditsFor('moonshot:kimi-next', 60_000)).toBe(10);
  });
});
