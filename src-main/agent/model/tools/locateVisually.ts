import { agentTool, Text } from './toolTypes.ts';

/** Asks the vision model where something is on the screenshot (canvas, unlabeled icon); answers with coordinates. */
export const locateVisuallyTool = agentTool({
  name: 'locate_visually',
  description:
    'Find something on the screen that the element listing does not name (a canvas, an unlabeled icon). Returns viewport coordinates for click_at.',
  input: { description: Text },
  changesPage: false,
  async run(input, env) {
    const found = await env.vision.locate(env.page, input.description);
    return found
      ? { output: `found at x=${found.x}, y=${found.y}: ${found.description}` }
      : { output: 'not found on the screen', error: true };
  },
});
