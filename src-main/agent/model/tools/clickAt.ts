import type { AgentTool } from './toolTypes.ts';

/** Clicks viewport coordinates (after locate_visually). */
export const clickAtTool: AgentTool = {
  name: 'click_at',
  description: 'Click at viewport coordinates x, y (from locate_visually).',
  inputSchema: { properties: { x: { type: 'number' }, y: { type: 'number' } }, required: ['x', 'y'] },
  changesPage: true,
  async run(input, env) {
    const x = Number(input.x);
    const y = Number(input.y);
    await env.page.mouse.click(x, y);
    env.trace.record({ action: 'click_at', x, y });
    return { output: `clicked at ${x},${y}` };
  },
};
