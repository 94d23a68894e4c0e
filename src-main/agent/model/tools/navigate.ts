import { openUrl } from '../../../browser/openUrl.ts';
import { agentTool, Text, ToolInputError } from './toolTypes.ts';

/** Opens a URL (http or https only). */
export const navigateTool = agentTool({
  name: 'navigate',
  description: 'Open an http(s) URL in the browser.',
  input: { url: Text },
  changesPage: true,
  async run(input, env) {
    const url = new URL(input.url, env.page.url());
    if (!/^https?:$/.test(url.protocol)) throw new ToolInputError('only http and https URLs can be opened');
    await openUrl(env.page, url.href, { waitUntil: 'load', timeout: 30_000 });
    env.trace.record({ action: 'navigate', url: url.href });
    return { output: `opened ${url.href}` };
  },
});
