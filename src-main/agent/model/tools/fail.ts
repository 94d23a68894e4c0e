import type { AgentTool } from './toolTypes.ts';
import { stringArg } from './toolTypes.ts';

/** Ends the job as failed with a reason the user reads. */
export const failTool: AgentTool = {
  name: 'fail',
  description: 'Give up: the task cannot be completed. reason says why, for the user.',
  inputSchema: { properties: { reason: { type: 'string' } }, required: ['reason'] },
  changesPage: true,
  async run(input, env) {
    const reason = env.secrets.redact(stringArg(input, 'reason'));
    return { output: reason, final: { kind: 'fail', message: reason } };
  },
};
