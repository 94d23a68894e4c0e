import { z } from 'zod';
import { agentTool } from './toolTypes.ts';

/** Scrolls the page by about one screen, to reveal more elements. */
export const scrollTool = agentTool({
  name: 'scroll',
  description: 'Scroll the page up or down by about one screen.',
  input: { direction: z.enum(['up', 'down']) },
  changesPage: true,
  async run(input, env) {
    const up = input.direction === 'up';
    await env.page.mouse.wheel(0, up ? -700 : 700);
    return { output: `scrolled ${input.direction}` };
  },
});
