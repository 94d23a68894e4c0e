import type { AgentTool } from './toolTypes.ts';
import { stringArg } from './toolTypes.ts';

/** Pauses the job with a question (HITL), exactly as the builtin agent does; fails the job when HITL is off. */
export const askHumanTool: AgentTool = {
  name: 'ask_human',
  description:
    'Ask the human operator a question when data is missing or a choice is ambiguous. Offer options when there are a few clear choices.',
  inputSchema: {
    properties: {
      question: { type: 'string' },
      options: { type: 'array', items: { type: 'string' } },
      reason: { type: 'string' },
    },
    required: ['question'],
  },
  changesPage: true,
  async run(input, env) {
    const question = env.secrets.redact(stringArg(input, 'question'));
    const options = Array.isArray(input.options) ? input.options.map(String) : [];
    const message = typeof input.reason === 'string' ? env.secrets.redact(input.reason) : question;
    const answer = await env.ctx.ask({ question, options, message });
    return { output: `the human answered: ${answer}` };
  },
};
