import { agentTool, ElementIndex, Text } from './toolTypes.ts';
import { SECRET_FIELD_ATTRIBUTE } from '../../../browser/pageScreenshot.ts';
import { assertCredentialOrigin } from '../../autofill/loginPages.ts';
import { markField } from '../../injected/index.ts';

/** Generates a TOTP code locally from a credential's seed and types it; the code never reaches the model. */
export const totpCodeTool = agentTool({
  name: 'totp_code',
  description:
    'Generate the current one-time code (TOTP) of credential credential_id and type it into the field at [index].',
  input: { index: ElementIndex, credential_id: Text },
  changesPage: false,
  async run(input, env) {
    const { element, locator } = env.element(input.index);
    const id = input.credential_id;
    await assertCredentialOrigin(locator, env.ctx.credential);
    // Marked before the value goes in, so no screenshot or recording frame shows it (browser/pageScreenshot.ts).
    await locator.evaluate(markField, SECRET_FIELD_ATTRIBUTE).catch(() => undefined);
    await locator.fill(await env.secrets.totp(id), { timeout: 5_000 });
    env.trace.record({ action: 'type', target: element, value: { kind: 'totp', id } });
    return { output: `typed {{credential:${id}.totp}} into [${element.index}]` };
  },
});
