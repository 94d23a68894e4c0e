import { AgentFailure, type AgentContext } from '../agentTypes.ts';

/**
 * Asks the human when the portal allows it, otherwise fails with `failure` (which becomes the
 * job's error, so it names the field and the reason).
 */
export async function askOrFail(
  ctx: AgentContext,
  question: { question: string; options: string[]; message: string },
  failure: string,
): Promise<string> {
  if (!ctx.humanInTheLoop) throw new AgentFailure(failure);
  ctx.log(`asking: ${question.question}`);
  const answer = await ctx.ask(question);
  ctx.log('answer received');
  return answer;
}

/** Quotes page text for a message, shortened. */
export function quote(text: string, max = 200): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return `"${t.length > max ? `${t.slice(0, max - 3)}...` : t}"`;
}
