import OpenAI from 'openai';
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

export interface OpenAiClientOptions {
  modelId: string;
  apiKey: string;
  /** OpenAI itself when absent; Moonshot and local OpenAI-compatible servers always set it. */
  baseUrl?: string;
  retry: RetryPolicy;
}

type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type UserPart = OpenAI.Chat.Completions.ChatCompletionContentPart;

/** Chat Completions has no tool results inside a user turn: each becomes its own `tool` message, before the rest. */
function toMessages(message: LlmMessage): ChatMessage[] {
  if (message.role === 'assistant') {
    const text = message.content
      .filter((b) => b.type === 'text')
      .map((b) => b.text)
      .join('\n');
    const calls = message.content.filter((b) => b.type === 'tool_use');
    return [
      {
        role: 'assistant',
        content: text || null,
        ...(calls.length > 0 && {
          tool_calls: calls.map((call) => ({
            id: call.id,
            type: 'function' as const,
            function: { name: call.name, arguments: JSON.stringify(call.input) },
          })),
        }),
      },
    ];
  }
  const out: ChatMessage[] = [];
  const parts: UserPart[] = [];
  for (const block of message.content) {
    if (block.type === 'tool_result')
      out.push({
        role: 'tool',
        tool_call_id: block.toolUseId,
        content: block.isError ? `ERROR: ${block.content}` : block.content,
      });
    else if (block.type === 'text') parts.push({ type: 'text', text: block.text });
    else parts.push({ type: 'image_url', image_url: { url: `data:${block.mediaType};base64,${block.data}` } });
  }
  if (parts.length > 0) out.push({ role: 'user', content: parts });
  return out;
}

function stopReasonOf(reason: string | null | undefined): StopReason {
  if (reason === 'tool_calls') return 'tool_use';
  if (reason === 'length') return 'max_tokens';
  return reason === 'stop' ? 'end_turn' : 'other';
}

function parseArguments(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text || '{}');
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : { value: parsed };
  } catch {
    // A model that emits broken JSON gets the raw text back as a tool error through the loop.
    return { _unparsed: text };
  }
}

/** OpenAI Chat Completions through the official SDK; also Moonshot and any OpenAI-compatible server by base URL. */
export class OpenAiClient implements LlmClient {
  readonly modelId: string;
  readonly #sdk: OpenAI;
  readonly #model: string;

  constructor(options: OpenAiClientOptions) {
    this.modelId = options.modelId;
    this.#model = options.modelId.slice(options.modelId.indexOf(':') + 1);
    this.#sdk = new OpenAI({
      apiKey: options.apiKey,
      ...(options.baseUrl !== undefined && { baseURL: options.baseUrl }),
      maxRetries: options.retry.maxRetries,
      timeout: options.retry.timeoutMs,
    });
  }

  async complete(request: LlmRequest): Promise<LlmResponse> {
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    try {
      completion = await this.#sdk.chat.completions.create(
        {
          model: this.#model,
          max_completion_tokens: request.maxTokens ?? 4096,
          messages: [{ role: 'system', content: request.system }, ...request.messages.flatMap(toMessages)],
          ...(request.tools &&
            request.tools.length > 0 && {
              tools: request.tools.map((tool) => ({
                type: 'function' as const,
                function: {
                  name: tool.name,
                  description: tool.description,
                  parameters: { type: 'object', ...tool.inputSchema },
                },
              })),
            }),
        },
        { ...(request.signal && { signal: request.signal }) },
      );
    } catch (error) {
      if (request.signal?.aborted) throw request.signal.reason;
      throw new LlmCallError(this.modelId, error);
    }
    const choice = completion.choices[0];
    const content: AssistantContent[] = [];
    if (choice?.message.content) content.push({ type: 'text', text: choice.message.content });
    for (const call of choice?.message.tool_calls ?? []) {
      if (call.type === 'function')
        content.push({
          type: 'tool_use',
          id: call.id,
          name: call.function.name,
          input: parseArguments(call.function.arguments),
        });
    }
    return {
      content,
      stopReason: stopReasonOf(choice?.finish_reason),
      usage: {
        inputTokens: completion.usage?.prompt_tokens ?? 0,
        outputTokens: completion.usage?.completion_tokens ?? 0,
      },
    };
  }
}
