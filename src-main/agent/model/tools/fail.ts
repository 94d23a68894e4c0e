import { agentTool, Text } from './toolTypes.ts';

/** Ends the job as failed with a reason the user reads. */
export const failTool = agentTool({
  name: 'fail',
  description: 'Give up: the task cannot be completed. reason says why, for the user.',
  input: { reason: Text },
  changesPage: true,
  async run(input, env) {
    const reason = env.secrets.redact(input.reason);
    return { output: reason, final: { kind: 'fail', message: reason } };
  },
});
