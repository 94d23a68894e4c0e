import { agentTool, ElementIndex, Text } from './toolTypes.ts';
import { SECRET_FIELD_ATTRIBUTE } from '../../../browser/pageScreenshot.ts';
import { assertCredentialOrigin } from '../../autofill/loginPages.ts';
import { markField } from '../../injected/index.ts';

/** Types a stored credential's password; the model names the credential, never sees the value. */
export const useCredentialTool = agentTool({
  name: 'use_credential',
  description:
    'Type the password of stored credential credential_id into the field at [index]. The value is filled in locally and never shown to you.',
  input: { index: ElementIndex, credential_id: Text },
  changesPage: false,
  async run(input, env) {
    const { element, locator } = env.element(input.index);
    const id = input.credential_id;
    await assertCredentialOrigin(locator, env.ctx.credential);
    // Marked before the value goes in, so no screenshot or recording frame shows it (browser/pageScreenshot.ts).
    await locator.evaluate(markField, SECRET_FIELD_ATTRIBUTE).catch(() => undefined);
    await locator.fill(await env.secrets.credential(id), { timeout: 5_000 });
    env.trace.record({ action: 'type', target: element, value: { kind: 'credential', id, field: 'password' } });
    return { output: `typed {{credential:${id}.password}} into [${element.index}]` };
  },
});
