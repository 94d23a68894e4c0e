import type { AgentTool } from './toolTypes.ts';
import { INDEX_PROP } from './toolTypes.ts';

/** Sets a checkbox, radio button or switch on or off. */
export const checkTool: AgentTool = {
  name: 'check',
  description: 'Set the checkbox / radio / switch at [index] to checked (true) or unchecked (false).',
  inputSchema: { properties: { ...INDEX_PROP, checked: { type: 'boolean' } }, required: ['index', 'checked'] },
  changesPage: false,
  async run(input, env) {
    const { element, locator } = env.element(input.index);
    const checked = input.checked !== false;
    await locator.setChecked(checked, {
      timeout: 5_000,
      force: element.type === 'radio' || element.type === 'checkbox' ? false : true,
    });
    env.trace.record({ action: 'check', target: element, value: { kind: 'literal', value: String(checked) } });
    return { output: `[${element.index}] is now ${checked ? 'checked' : 'unchecked'}` };
  },
};
