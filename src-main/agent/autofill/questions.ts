import { AgentFailure, type AgentContext } from '../agentTypes.ts';
import { findChoice } from './valueAdapter.ts';

export interface Question {
  question: string;
  options: string[];
  message: string;
}

/**
 * Asks the human when the portal allows it, otherwise fails with `failure` (which becomes the
 * job's error, so it names the field and the reason).
 */
export async function askOrFail(ctx: AgentContext, question: Question, failure: string): Promise<string> {
  if (!ctx.humanInTheLoop) throw new AgentFailure(failure);
  ctx.log(`asking: ${question.question}`);
  const answer = await ctx.ask(question);
  ctx.log('answer received');
  return answer;
}

/**
 * Asks a question with options and reads the answer by the same rules as form_data values
 * (findChoice): an answer that is none of the options is asked again once, saying so; a second
 * miss fails the job. Never defaults to an option. Returns the index of the option chosen.
 */
export async function askForOption(ctx: AgentContext, question: Question, failure: string): Promise<number> {
  const choices = question.options.map((option) => ({ label: option, value: option }));
  let asked = question;
  for (let attempt = 1; ; attempt += 1) {
    const answer = await askOrFail(ctx, asked, failure);
    const match = findChoice(answer, choices);
    if ('how' in match) return match.index;
    const why = match.index === -2 ? 'matches more than one of the options' : "isn't one of the options";
    if (attempt === 2) {
      throw new AgentFailure(
        `The answer ${quote(answer, 80)} to "${question.question}" ${why} (${question.options.map((o) => quote(o, 60)).join(', ')}), asked twice`,
      );
    }
    asked = { ...question, message: `The answer ${quote(answer, 80)} ${why}. ${question.message}` };
    ctx.log(`the answer ${why}; asking again`);
  }
}

/** Quotes page text for a message, shortened. */
export function quote(text: string, max = 200): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return `"${t.length > max ? `${t.slice(0, max - 3)}...` : t}"`;
}
