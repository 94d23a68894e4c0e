import { SECRET_FIELD_ATTRIBUTE } from '../../../browser/pageScreenshot.ts';
import { assertCredentialOrigin } from '../../autofill/loginPages.ts';
import { markField } from '../../injected/index.ts';
import { agentTool, ElementIndex, Text } from './toolTypes.ts';

/** Types text into a field; placeholders such as {{form_data.password}} are filled by the browser layer. */
export const typeTool = agentTool({
  name: 'type',
  description:
    'Replace the content of the text field at [index] with text. Use placeholders like {{form_data.<key>}} or {{credential:<id>.password}} for secrets; they are filled in locally.',
  input: { index: ElementIndex, text: Text },
  changesPage: false,
  async run(input, env) {
    const { element, locator } = env.element(input.index);
    const { text } = input;
    const typesCredential = text.includes('{{credential:');
    // A credential's value goes only into a frame of its own site, like use_credential (docs/credentials.md).
    if (typesCredential) await assertCredentialOrigin(locator, env.ctx.credential);
    const { value, source } = await env.secrets.resolve(text);
    // A credential's password or code is masked in screenshots and recordings (browser/pageScreenshot.ts).
    if (typesCredential) await locator.evaluate(markField, SECRET_FIELD_ATTRIBUTE).catch(() => undefined);
    await locator.fill(value, { timeout: 5_000 });
    env.trace.record({ action: 'type', target: element, value: source });
    return { output: `typed into [${element.index}] ${JSON.stringify(element.name)}` };
  },
});
