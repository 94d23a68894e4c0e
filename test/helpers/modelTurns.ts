import type { RecordedRequest } from './modelServer.ts';

/** The text of the latest user turn of a recorded request, in either API's message shape. */
export function lastTurnText(request: RecordedRequest): string {
  const users = (request.body.messages as Array<{ role: string; content: unknown }>).filter((m) => m.role === 'user');
  const content = users.at(-1)?.content;
  if (typeof content === 'string') return content;
  return ((content as Array<{ type: string; text?: string }> | undefined) ?? [])
    .filter((b) => b.type === 'text')
    .map((b) => b.text ?? '')
    .join('\n');
}

/** Every tool result of a recorded request (Anthropic tool_result blocks or OpenAI tool messages), as text. */
export function toolResults(request: RecordedRequest): string[] {
  const out: string[] = [];
  for (const message of request.body.messages as Array<{ role: string; content: unknown }>) {
    if (message.role === 'tool') out.push(String(message.content));
    if (Array.isArray(message.content)) {
      for (const block of message.content as Array<{ type: string; content?: unknown }>)
        if (block.type === 'tool_result')
          out.push(typeof block.content === 'string' ? block.content : JSON.stringify(block.content));
    }
  }
  return out;
}

/** The [index] the latest turn listed for an element with this accessible name. */
export function elementIndex(request: RecordedRequest, name: string): number {
  const text = lastTurnText(request);
  const found = text.match(
    new RegExp(`\\[(\\d+)\\] [a-z]+(?: type=\\w+)? ${JSON.stringify(name).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
  );
  if (!found) throw new Error(`no element "${name}" in:\n${text}`);
  return Number(found[1]);
}
