import { filePayloads } from '../../autofill/valueAdapter.ts';
import { agentTool, ElementIndex, Text, ToolInputError } from './toolTypes.ts';

/** Sets a file input from a form_data file object ({name, mime_type, content_base64}). */
export const uploadFileTool = agentTool({
  name: 'upload_file',
  description: 'Attach the file held in form_data under key to the file input at [index].',
  input: { index: ElementIndex, form_data_key: Text },
  changesPage: false,
  async run(input, env) {
    const { element, locator } = env.element(input.index);
    const key = input.form_data_key;
    const files = filePayloads(env.ctx.formData[key]);
    if (files.length === 0) throw new ToolInputError(`form_data.${key} is not a file object`);
    await locator.setInputFiles(
      files.map((f) => ({ name: f.name, mimeType: f.mimeType, buffer: f.buffer })),
      { timeout: 5_000 },
    );
    env.trace.record({ action: 'upload_file', target: element, value: { kind: 'form_data', key } });
    return { output: `attached ${files.map((f) => f.name).join(', ')} to [${element.index}]` };
  },
});
