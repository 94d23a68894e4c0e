import type { AgentTool } from './toolTypes.ts';
import { stringArg } from './toolTypes.ts';

/** Reads an attached skill's SKILL.md, or a file it references, on demand. */
export const readSkillTool: AgentTool = {
  name: 'read_skill',
  description: 'Read the instructions (SKILL.md) of an attached skill by name, or a file inside it by relative path.',
  inputSchema: { properties: { skill: { type: 'string' }, file: { type: 'string' } }, required: ['skill'] },
  changesPage: false,
  async run(input, env) {
    const file = typeof input.file === 'string' && input.file ? input.file : 'SKILL.md';
    return { output: await env.skills.read(stringArg(input, 'skill'), file) };
  },
};
