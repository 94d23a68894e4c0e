import { agentTool, ElementIndex, Text } from './toolTypes.ts';

/** Presses a key (Enter, Tab, Escape, ArrowDown, …), optionally on an element. */
export const pressKeyTool = agentTool({
  name: 'press_key',
  description:
    'Press a key such as Enter, Tab, Escape or ArrowDown, on the element at [index] if given, else on the focused element.',
  input: { key: Text, index: ElementIndex.optional() },
  changesPage: true,
  async run(input, env) {
    const { key } = input;
    if (input.index !== undefined) {
      const { element, locator } = env.element(input.index);
      await locator.press(key, { timeout: 5_000 });
      env.trace.record({ action: 'press_key', target: element, key });
    } else {
      await env.page.keyboard.press(key);
      env.trace.record({ action: 'press_key', key });
    }
    await env.page.waitForLoadState('domcontentloaded').catch(() => undefined);
    return { output: `pressed ${key}` };
  },
});
