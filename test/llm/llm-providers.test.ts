import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  costOfUsage,
  LlmFactory,
  ModelNotConfiguredError,
  UnknownModelError,
  type LlmRequest,
} from '../../src-main/llm/index.ts';
import { readConfig } from '../../src-main/base/config.ts';
import { startModelServer, type ModelServer } from '../helpers/modelServer.ts';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

function factory(server: ModelServer, keys: Record<string, string> = {}, env: Record<string, string> = {}): LlmFactory {
  return new LlmFactory({
    secrets: async () => ({ get: async (name: string) => keys[name] }),
    storedBaseUrl: (provider) =>
      provider === 'openai-compatible'
        ? undefined
        : provider === 'anthropic'
          ? server.anthropicBaseUrl
          : server.openaiBaseUrl,
    environment: readConfig(env).providers,
    retry: { maxRetries: 2, timeoutMs: 5_000 },
  });
}

const request: LlmRequest = {
  system: 'You drive a browser.',
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Look at the page' },
        { type: 'image', mediaType: 'image/png', data: PNG },
      ],
    },
    { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'click', input: { index: 3 } }] },
    {
      role: 'user',
      content: [
        { type: 'tool_result', toolUseId: 't1', content: 'clicked' },
        { type: 'text', text: 'next' },
      ],
    },
  ],
  tools: [
    {
      name: 'click',
      description: 'Click an element',
      inputSchema: { properties: { index: { type: 'integer' } }, required: ['index'] },
    },
  ],
  maxTokens: 512,
};

describe('model providers through the real SDKs', () => {
  let server: ModelServer;
  beforeAll(async () => {
    server = await startModelServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('anthropic: sends system, tools, the image and the tool result; reads tool calls and usage', async () => {
    server.reset([
      { text: 'ok', toolCalls: [{ name: 'click', input: { index: 4 } }], usage: { input: 1200, output: 80 } },
    ]);
    const client = await factory(server, { 'provider/anthropic': 'sk-ant-x' }).create('anthropic:claude-sonnet-4-6');
    const response = await client.complete(request);
    expect(response.stopReason).toBe('tool_use');
    expect(response.content).toEqual([
      { type: 'text', text: 'ok' },
      { type: 'tool_use', id: 'toolu_0_0', name: 'click', input: { index: 4 } },
    ]);
    expect(response.usage).toEqual({ inputTokens: 1200, outputTokens: 80 });
    const sent = server.requests[0]!;
    expect(sent.path).toBe('/v1/messages');
    expect(JSON.stringify(sent.headers)).toContain('sk-ant-x');
    expect(sent.body).toMatchObject({ model: 'claude-sonnet-4-6', max_tokens: 512, system: 'You drive a browser.' });
    expect(sent.body.tools[0]).toMatchObject({ name: 'click', input_schema: { type: 'object', required: ['index'] } });
    expect(sent.body.messages[0].content[1]).toEqual({
      type: 'image',
      source: { type: 'base64', media_type: 'image/png', data: PNG },
    });
    expect(sent.body.messages[2].content[0]).toEqual({ type: 'tool_result', tool_use_id: 't1', content: 'clicked' });
  });

  it('openai: tool results become tool messages, the image a data URL; usage is read', async () => {
    server.reset([{ toolCalls: [{ name: 'click', input: { index: 2 } }], usage: { input: 900, output: 40 } }]);
    const client = await factory(server, {}, { OPENAI_API_KEY: 'sk-oa-env' }).create('openai:gpt-5.4-mini');
    const response = await client.complete(request);
    expect(response).toMatchObject({ stopReason: 'tool_use', usage: { inputTokens: 900, outputTokens: 40 } });
    expect(response.content[0]).toMatchObject({ type: 'tool_use', name: 'click', input: { index: 2 } });
    const sent = server.requests[0]!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe('Bearer sk-oa-env');
    expect(sent.body.model).toBe('gpt-5.4-mini');
    expect(sent.body.messages.map((m: { role: string }) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'user',
    ]);
    expect(sent.body.messages[1].content[1]).toEqual({
      type: 'image_url',
      image_url: { url: `data:image/png;base64,${PNG}` },
    });
    expect(sent.body.tools[0]).toMatchObject({
      type: 'function',
      function: { name: 'click', parameters: { type: 'object' } },
    });
  });

  it('moonshot and openai-compatible go through the OpenAI SDK at their base URL', async () => {
    server.reset([{ text: 'hi' }, { text: 'local' }]);
    const moonshot = await factory(server, { 'provider/moonshot': 'sk-moon' }).create('moonshot:kimi-k2.5');
    expect(
      (await moonshot.complete({ system: 's', messages: [{ role: 'user', content: [{ type: 'text', text: 'q' }] }] }))
        .content,
    ).toEqual([{ type: 'text', text: 'hi' }]);
    const local = await factory(server, {}, { PORTICO_OPENAI_COMPATIBLE_BASE_URL: server.openaiBaseUrl }).create(
      'openai-compatible:llama-3.2',
    );
    await local.complete({ system: 's', messages: [{ role: 'user', content: [{ type: 'text', text: 'q' }] }] });
    expect(server.requests.map((r) => r.body.model)).toEqual(['kimi-k2.5', 'llama-3.2']);
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-moon');
  });

  it('a 429 and a 503 are retried with backoff, then the call succeeds', async () => {
    server.reset([{ status: 429 }, { status: 503 }, { text: 'finally' }]);
    const client = await factory(server, { 'provider/anthropic': 'k' }).create('anthropic:claude-haiku-4-5');
    const response = await client.complete({
      system: 's',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'q' }] }],
    });
    expect(response.content).toEqual([{ type: 'text', text: 'finally' }]);
    expect(server.requests).toHaveLength(3);
  });

  it('an unknown provider or a missing key is a typed 422 naming the model and the fix', async () => {
    const f = factory(server);
    await expect(f.create('acme:model-1')).rejects.toBeInstanceOf(UnknownModelError);
    const missing = await f.create('anthropic:claude-sonnet-4-6').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ModelNotConfiguredError);
    expect((missing as ModelNotConfiguredError).status).toBe(422);
    expect((missing as ModelNotConfiguredError).detail).toBe(
      "Model 'anthropic:claude-sonnet-4-6' is not configured: no API key; run `portico provider set-key anthropic` or set ANTHROPIC_API_KEY",
    );
    expect(await f.missing('openai-compatible:qwen')).toMatch(
      /no base URL; run `portico provider set-base-url openai-compatible <url>`/,
    );
  });

  it('cost follows the published price table', () => {
    expect(costOfUsage('anthropic:claude-sonnet-4-6', { inputTokens: 1_000_000, outputTokens: 100_000 })).toBeCloseTo(
      4.5,
    );
    expect(costOfUsage('openai-compatible:llama', { inputTokens: 5000, outputTokens: 5000 })).toBe(0);
  });
});
