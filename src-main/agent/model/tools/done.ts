import type { JsonObject } from '../../../contract/common.ts';
import type { AgentTool } from './toolTypes.ts';

/** Ends the job successfully with its result (matching output_schema when the portal has one). */
export const doneTool: AgentTool = {
  name: 'done',
  description: 'Finish: the task is complete. result is the job output and must match output_schema when one is given.',
  inputSchema: { properties: { result: { type: 'object' } }, required: ['result'] },
  changesPage: true,
  async run(input, env) {
    const result =
      typeof input.result === 'object' && input.result !== null && !Array.isArray(input.result)
        ? (input.result as JsonObject)
        : {};
    const clean = JSON.parse(env.secrets.redact(JSON.stringify(result))) as JsonObject;
    const problems = env.results.problems(clean);
    if (problems !== undefined)
      return {
        output: `the result does not match output_schema: ${problems}. Call done again with a corrected result.`,
        error: true,
      };
    env.trace.record({ action: 'done' });
    return { output: 'done', final: { kind: 'done', result: clean } };
  },
};
