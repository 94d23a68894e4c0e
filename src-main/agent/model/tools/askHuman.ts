import { z } from 'zod';
import { agentTool, Text } from './toolTypes.ts';

/** Pauses the job with a question (HITL), exactly as the builtin agent does; fails the job when HITL is off. */
export const askHumanTool = agentTool({
  name: 'ask_human',
  description:
    'Ask the human operator a question when data is missing or a choice is ambiguous. Offer options when there are a few clear choices.',
  input: { question: Text, options: z.array(Text).optional(), reason: z.string().optional() },
  changesPage: true,
  async run(input, env) {
    const question = env.secrets.redact(input.question);
    const message = input.reason !== undefined ? env.secrets.redact(input.reason) : question;
    const answer = await env.ctx.ask({ question, options: input.options ?? [], message });
    return { output: `the human answered: ${answer}` };
  },
});
