import Anthropic from '@anthropic-ai/sdk';
import { LlmCallError } from './llmErrors.ts';
import type {
  AssistantContent,
  LlmClient,
  LlmMessage,
  LlmRequest,
  LlmResponse,
  RetryPolicy,
  StopReason,
} from './types.ts';

export interface AnthropicClientOptions {
  modelId: string;
  apiKey: string;
  baseUrl?: string;
  retry: RetryPolicy;
}

type MessageParam = Anthropic.MessageParam;
type ContentBlockParam = Anthropic.ContentBlockParam;

function toParam(message: LlmMessage): MessageParam {
  const content: ContentBlockParam[] = message.content.map((block): ContentBlockParam => {
    switch (block.type) {
      case 'text':
        return { type: 'text', text: block.text };
      case 'image':
        return { type: 'image', source: { type: 'base64', media_type: block.mediaType, data: block.data } };
      case 'tool_use':
        return { type: 'tool_use', id: block.id, name: block.name, input: block.input };
      case 'tool_result':
        return {
          type: 'tool_result',
          tool_use_id: block.toolUseId,
          content: block.content,
          ...(block.isError && { is_error: true }),
        };
      default: {
        const unknown: never = block;
        throw new TypeError(`unknown content block ${JSON.stringify(unknown)}`);
      }
    }
  });
  return { role: message.role, content };
}

function stopReasonOf(reason: string | null): StopReason {
  return reason === 'end_turn' || reason === 'tool_use' || reason === 'max_tokens' ? reason : 'other';
}

/** Anthropic Messages API through the official SDK (its retries cover 408/409/429/5xx and timeouts). */
export class AnthropicClient implements LlmClient {
  readonly modelId: string;
  readonly #sdk: Anthropic;
  readonly #model: string;

  constructor(options: AnthropicClientOptions) {
    this.modelId = options.modelId;
    this.#model = options.modelId.slice(options.modelId.indexOf(':') + 1);
    this.#sdk = new Anthropic({
      apiKey: options.apiKey,
      ...(options.baseUrl !== undefined && { baseURL: options.baseUrl }),
      maxRetries: options.retry.maxRetries,
      timeout: options.retry.timeoutMs,
    });
  }

  async complete(request: LlmRequest): Promise<LlmResponse> {
    let message: Anthropic.Message;
    try {
      message = await this.#sdk.messages.create(
        {
          model: this.#model,
          max_tokens: request.maxTokens ?? 4096,
          system: request.system,
          messages: request.messages.map(toParam),
          ...(request.tools &&
            request.tools.length > 0 && {
              tools: request.tools.map((tool) => ({
                name: tool.name,
                description: tool.description,
                input_schema: { type: 'object' as const, ...tool.inputSchema },
              })),
            }),
        },
        { ...(request.signal && { signal: request.signal }) },
      );
    } catch (error) {
      if (request.signal?.aborted) throw request.signal.reason;
      throw new LlmCallError(this.modelId, error);
    }
    const content: AssistantContent[] = [];
    for (const block of message.content) {
      if (block.type === 'text') content.push({ type: 'text', text: block.text });
      else if (block.type === 'tool_use')
        content.push({
          type: 'tool_use',
          id: block.id,
          name: block.name,
          input: (block.input ?? {}) as Record<string, unknown>,
        });
    }
    return {
      content,
      stopReason: stopReasonOf(message.stop_reason),
      usage: { inputTokens: message.usage.input_tokens, outputTokens: message.usage.output_tokens },
    };
  }
}
