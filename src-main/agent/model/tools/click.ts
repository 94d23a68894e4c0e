import { agentTool, ElementIndex } from './toolTypes.ts';

/** Clicks an element by index (buttons, links, tabs, custom widgets). */
export const clickTool = agentTool({
  name: 'click',
  description: 'Click the element at [index]. Ends the actions of this turn if the page may change.',
  input: { index: ElementIndex },
  changesPage: true,
  async run(input, env) {
    const { element, locator } = env.element(input.index);
    await locator.click({ timeout: 5_000 });
    await env.page.waitForLoadState('domcontentloaded').catch(() => undefined);
    env.trace.record({ action: 'click', target: element });
    return { output: `clicked [${element.index}] ${element.role} ${JSON.stringify(element.name)}` };
  },
});
