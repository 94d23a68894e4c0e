import { agentTool, ElementIndex, Text, ToolInputError } from './toolTypes.ts';

/** Chooses an option of a <select> by its label (or value). */
export const selectTool = agentTool({
  name: 'select',
  description: 'Choose the option with this label in the dropdown at [index].',
  input: { index: ElementIndex, option: Text },
  changesPage: false,
  async run(input, env) {
    const { element, locator } = env.element(input.index);
    if (element.tag !== 'select')
      throw new ToolInputError(`[${element.index}] is not a dropdown; click it and then the option instead`);
    const { value, source } = await env.secrets.resolve(input.option);
    const chosen = await locator
      .selectOption({ label: value }, { timeout: 3_000 })
      .catch(() => locator.selectOption(value, { timeout: 3_000 }));
    if (chosen.length === 0)
      throw new ToolInputError(`no option ${JSON.stringify(value)}; options are ${JSON.stringify(element.options)}`);
    env.trace.record({ action: 'select', target: element, value: source });
    return { output: `selected ${JSON.stringify(value)} in [${element.index}]` };
  },
});
