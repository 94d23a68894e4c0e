import { z } from 'zod';
import { agentTool } from './toolTypes.ts';

/** Clicks viewport coordinates (after locate_visually). */
export const clickAtTool = agentTool({
  name: 'click_at',
  description: 'Click at viewport coordinates x, y (from locate_visually).',
  input: { x: z.number(), y: z.number() },
  changesPage: true,
  async run({ x, y }, env) {
    await env.page.mouse.click(x, y);
    env.trace.record({ action: 'click_at', x, y });
    return { output: `clicked at ${x},${y}` };
  },
});
