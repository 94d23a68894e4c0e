import type { AgentTool } from './toolTypes.ts';

/** Scrolls the page by about one screen, to reveal more elements. */
export const scrollTool: AgentTool = {
  name: 'scroll',
  description: 'Scroll the page up or down by about one screen.',
  inputSchema: { properties: { direction: { type: 'string', enum: ['up', 'down'] } }, required: ['direction'] },
  changesPage: true,
  async run(input, env) {
    const up = input.direction === 'up';
    await env.page.mouse.wheel(0, up ? -700 : 700);
    return { output: `scrolled ${up ? 'up' : 'down'}` };
  },
};
