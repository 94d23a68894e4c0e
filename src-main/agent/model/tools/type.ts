import type { AgentTool } from './toolTypes.ts';
import { INDEX_PROP, stringArg } from './toolTypes.ts';

/** Types text into a field; placeholders such as {{form_data.password}} are filled by the browser layer. */
export const typeTool: AgentTool = {
  name: 'type',
  description: 'Replace the content of the text field at [index] with text. Use placeholders like {{form_data.<key>}} or {{credential:<id>.password}} for secrets; they are filled in locally.',
  inputSchema: { properties: { ...INDEX_PROP, text: { type: 'string' } }, required: ['index', 'text'] },
  changesPage: false,
  async run(input, env) {
    const { element, locator } = env.element(input.index);
    const { value, source } = await env.secrets.resolve(stringArg(input, 'text'));
    await locator.fill(value, { timeout: 5_000 });
    env.trace.record({ action: 'type', target: element, value: source });
    return { output: `typed into [${element.index}] ${JSON.stringify(element.name)}` };
  },
};
