import { z } from 'zod';
import { agentTool } from './toolTypes.ts';

/** Waits for the page to settle (a spinner, a delayed widget). */
export const waitTool = agentTool({
  name: 'wait',
  description: 'Wait up to 10 seconds for the page to finish loading or changing.',
  input: { seconds: z.number().min(0.1).max(10).optional() },
  changesPage: true,
  async run(input, env) {
    const seconds = input.seconds ?? 1;
    await env.page.waitForLoadState('networkidle', { timeout: seconds * 1000 }).catch(() => undefined);
    await env.page.waitForTimeout(Math.min(seconds * 1000, 1000));
    return { output: `waited ${seconds}s` };
  },
});
