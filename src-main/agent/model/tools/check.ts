import { z } from 'zod';
import { agentTool, ElementIndex } from './toolTypes.ts';

/** Sets a checkbox, radio button or switch on or off. */
export const checkTool = agentTool({
  name: 'check',
  description: 'Set the checkbox / radio / switch at [index] to checked (true) or unchecked (false).',
  input: { index: ElementIndex, checked: z.boolean() },
  changesPage: false,
  async run(input, env) {
    const { element, locator } = env.element(input.index);
    const { checked } = input;
    await locator.setChecked(checked, {
      timeout: 5_000,
      force: element.type === 'radio' || element.type === 'checkbox' ? false : true,
    });
    env.trace.record({ action: 'check', target: element, value: { kind: 'literal', value: String(checked) } });
    return { output: `[${element.index}] is now ${checked ? 'checked' : 'unchecked'}` };
  },
});
