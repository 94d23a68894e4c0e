import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the server received, body parsed, plus its raw text for "contains no secret" checks. */
export interface RecordedRequest {
  api: 'anthropic' | 'openai';
  path: string;
  headers: IncomingMessage['headers'];
  // biome-ignore lint/suspicious/noExplicitAny: test code reads arbitrary provider JSON; the shape is asserted, not typed.
  body: Record<string, any>;
  raw: string;
}

export interface ScriptedToolCall {
  name: string;
  input: Record<string, unknown>;
}

/** One reply: a model message (text and/or tool calls) or a bare HTTP error such as a 429. */
export type ScriptedReply =
  | { text?: string; toolCalls?: ScriptedToolCall[]; usage?: { input: number; output: number } }
  | { status: number; error?: string; headers?: Record<string, string> };

/** Chooses the reply to a request; `index` counts every request so far, errors included. */
export type ReplyScript = ScriptedReply[] | ((request: RecordedRequest, index: number) => ScriptedReply);

export interface ModelServer {
  url: string;
  /** What the Anthropic SDK takes as baseURL (it appends /v1/messages). */
  anthropicBaseUrl: string;
  /** What the OpenAI SDK takes as baseURL (it appends /chat/completions). */
  openaiBaseUrl: string;
  requests: RecordedRequest[];
  /** Replaces the script and forgets recorded requests. */
  reset(script: ReplyScript): void;
  close(): Promise<void>;
}

const DEFAULT_USAGE = { input: 1000, output: 100 };

function anthropicBody(reply: Extract<ScriptedReply, { toolCalls?: unknown }>, model: string, n: number): unknown {
  const content: unknown[] = [];
  if (reply.text) content.push({ type: 'text', text: reply.text });
  for (const [i, call] of (reply.toolCalls ?? []).entries()) {
    content.push({ type: 'tool_use', id: `toolu_${n}_${i}`, name: call.name, input: call.input });
  }
  const usage = reply.usage ?? DEFAULT_USAGE;
  return {
    id: `msg_${n}`,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: reply.toolCalls?.length ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: usage.input, output_tokens: usage.output },
  };
}

function openaiBody(reply: Extract<ScriptedReply, { toolCalls?: unknown }>, model: string, n: number): unknown {
  const calls = (reply.toolCalls ?? []).map((call, i) => ({
    id: `call_${n}_${i}`,
    type: 'function',
    function: { name: call.name, arguments: JSON.stringify(call.input) },
  }));
  const usage = reply.usage ?? DEFAULT_USAGE;
  return {
    id: `chatcmpl_${n}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: reply.text ?? null, ...(calls.length > 0 && { tool_calls: calls }) },
        finish_reason: calls.length ? 'tool_calls' : 'stop',
        logprobs: null,
      },
    ],
    usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output },
  };
}

/**
 * A local stand-in for the Anthropic Messages API (`POST /v1/messages`) and OpenAI Chat
 * Completions (`POST /v1/chat/completions`), answering from a per-test script and recording every request;
 * `GET /v1/models` lists one model, as an OpenAI-compatible server does.
 */
export async function startModelServer(initial: ReplyScript = []): Promise<ModelServer> {
  let script = initial;
  let count = 0;
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const path = (req.url ?? '').split('?')[0] ?? '';
      const api = path.endsWith('/messages') ? 'anthropic' : path.endsWith('/chat/completions') ? 'openai' : undefined;
      // What an OpenAI-compatible server's "Test connection" asks for; not a model call, so not recorded.
      if (req.method === 'GET' && path === '/v1/models') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            object: 'list',
            data: [{ id: 'scripted', object: 'model', created: 0, owned_by: 'portico-tests' }],
          }),
        );
        return;
      }
      if (req.method !== 'POST' || !api) {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: `no route ${req.method} ${path}` } }));
        return;
      }
      const body = JSON.parse(raw || '{}') as RecordedRequest['body'];
      const request: RecordedRequest = { api, path, headers: req.headers, body, raw };
      requests.push(request);
      const n = count++;
      let reply: ScriptedReply | undefined;
      try {
        reply = Array.isArray(script) ? script.shift() : script(request, n);
      } catch (error) {
        res
          .writeHead(500, { 'content-type': 'application/json', 'x-should-retry': 'false' })
          .end(JSON.stringify({ error: { type: 'api_error', message: `the test script threw: ${String(error)}` } }));
        return;
      }
      if (!reply) {
        res
          .writeHead(500, { 'content-type': 'application/json', 'x-should-retry': 'false' })
          .end(JSON.stringify({ error: { type: 'api_error', message: 'the test script has no more replies' } }));
        return;
      }
      if ('status' in reply) {
        res
          .writeHead(reply.status, { 'content-type': 'application/json', 'retry-after-ms': '10', ...reply.headers })
          .end(
            JSON.stringify({
              type: 'error',
              error: { type: 'rate_limit_error', message: reply.error ?? `scripted ${reply.status}` },
            }),
          );
        return;
      }
      const model = String(body.model ?? 'scripted');
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(api === 'anthropic' ? anthropicBody(reply, model, n) : openaiBody(reply, model, n)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    anthropicBaseUrl: url,
    openaiBaseUrl: `${url}/v1`,
    requests,
    reset(next) {
      script = next;
      count = 0;
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
