/** Provider-neutral shapes of one model call: what Portico sends and what comes back. */

export interface TextBlock {
  type: 'text';
  text: string;
}

/** A PNG or JPEG the model should look at (a screenshot), base64 without a data: prefix. */
export interface ImageBlock {
  type: 'image';
  mediaType: 'image/png' | 'image/jpeg';
  data: string;
}

export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
}

export interface ToolResultBlock {
  type: 'tool_result';
  toolUseId: string;
  content: string;
  isError?: boolean;
}

export type UserContent = TextBlock | ImageBlock | ToolResultBlock;
export type AssistantContent = TextBlock | ToolUseBlock;

export type LlmMessage = { role: 'user'; content: UserContent[] } | { role: 'assistant'; content: AssistantContent[] };

/** A tool the model may call; `inputSchema` is a JSON Schema object. */
export interface LlmTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface LlmRequest {
  system: string;
  messages: LlmMessage[];
  tools?: LlmTool[];
  maxTokens?: number;
  signal?: AbortSignal;
}

export interface LlmUsage {
  inputTokens: number;
  outputTokens: number;
}

export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'other';

export interface LlmResponse {
  content: AssistantContent[];
  stopReason: StopReason;
  usage: LlmUsage;
}

/** One configured model behind one provider. */
export interface LlmClient {
  /** The `provider:model` id this client calls. */
  readonly modelId: string;
  complete(request: LlmRequest): Promise<LlmResponse>;
}

/** How the SDKs retry and time out; tests shorten these. */
export interface RetryPolicy {
  maxRetries: number;
  timeoutMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 4, timeoutMs: 120_000 };
