import { pageText } from '../../injected/index.ts';
import { agentTool } from './toolTypes.ts';

/** Reads the page's visible text (more of it than the turn summary shows). */
export const extractTool = agentTool({
  name: 'extract',
  description:
    'Read the visible text of the page (up to 8000 characters), e.g. to find a confirmation number for the result.',
  input: {},
  changesPage: false,
  async run(_input, env) {
    const text = await env.page.evaluate(pageText, 8000);
    return { output: env.secrets.redact(text) };
  },
});
