import type { AgentTool } from './toolTypes.ts';

/** Waits for the page to settle (a spinner, a delayed widget). */
export const waitTool: AgentTool = {
  name: 'wait',
  description: 'Wait up to 10 seconds for the page to finish loading or changing.',
  inputSchema: { properties: { seconds: { type: 'number', minimum: 0.1, maximum: 10 } } },
  changesPage: true,
  async run(input, env) {
    const seconds = Math.min(10, Math.max(0.1, typeof input.seconds === 'number' ? input.seconds : 1));
    await env.page.waitForLoadState('networkidle', { timeout: seconds * 1000 }).catch(() => undefined);
    await env.page.waitForTimeout(Math.min(seconds * 1000, 1000));
    return { output: `waited ${seconds}s` };
  },
};
