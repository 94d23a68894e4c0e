import { z } from 'zod';
import { agentTool, Text } from './toolTypes.ts';

/** Reads an attached skill's SKILL.md, or a file it references, on demand. */
export const readSkillTool = agentTool({
  name: 'read_skill',
  description: 'Read the instructions (SKILL.md) of an attached skill by name, or a file inside it by relative path.',
  input: { skill: Text, file: z.string().optional() },
  changesPage: false,
  async run(input, env) {
    return { output: await env.skills.read(input.skill, input.file || 'SKILL.md') };
  },
});
