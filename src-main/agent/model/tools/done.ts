import { JsonObject } from '../../../contract/common.ts';
import { agentTool } from './toolTypes.ts';

/** Ends the job successfully with its result (matching output_schema when the portal has one). */
export const doneTool = agentTool({
  name: 'done',
  description: 'Finish: the task is complete. result is the job output and must match output_schema when one is given.',
  input: { result: JsonObject },
  changesPage: true,
  async run(input, env) {
    const clean = JSON.parse(env.secrets.redact(JSON.stringify(input.result))) as JsonObject;
    const problems = env.results.problems(clean);
    if (problems !== undefined)
      return {
        output: `the result does not match output_schema: ${problems}. Call done again with a corrected result.`,
        error: true,
      };
    env.trace.record({ action: 'done' });
    return { output: 'done', final: { kind: 'done', result: clean } };
  },
});
