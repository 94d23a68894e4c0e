import type { Page } from 'playwright-core';
import { maskedScreenshot } from '../../browser/pageScreenshot.ts';
import type { LlmClient } from '../../llm/index.ts';
import type { AgentContext } from '../agentTypes.ts';
import { costOfUsage } from '../../llm/index.ts';

export interface VisualMatch {
  x: number;
  y: number;
  description: string;
}

/** Grounding through the job's vision_model: a screenshot and a description in, viewport coordinates out. */
export class VisionLocator {
  readonly #client: () => Promise<LlmClient>;
  readonly #ctx: AgentContext;

  constructor(client: () => Promise<LlmClient>, ctx: AgentContext) {
    this.#client = client;
    this.#ctx = ctx;
  }

  /** Where `description` is on the screen, or null when the vision model cannot find it. */
  async locate(page: Page, description: string): Promise<VisualMatch | null> {
    const client = await this.#client();
    const viewport = page.viewportSize() ?? { width: 1280, height: 800 };
    const shot = await maskedScreenshot(page, { type: 'png' });
    const response = await client.complete({
      system:
        'You locate things on a browser screenshot. Answer with JSON only: {"found": true|false, "x": <px>, "y": <px>, "description": "<what is there>"}.',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', mediaType: 'image/png', data: shot.toString('base64') },
            {
              type: 'text',
              text: `The screenshot is ${viewport.width}x${viewport.height} CSS pixels. Find: ${description}`,
            },
          ],
        },
      ],
      maxTokens: 300,
      signal: this.#ctx.signal,
    });
    this.#ctx.reportUsage?.({
      model: client.modelId,
      ...response.usage,
      costUsd: costOfUsage(client.modelId, response.usage),
    });
    const text = response.content
      .filter((b) => b.type === 'text')
      .map((b) => b.text)
      .join('');
    const json = text.match(/\{[\s\S]*\}/)?.[0];
    if (!json) return null;
    const parsed = JSON.parse(json) as { found?: boolean; x?: number; y?: number; description?: string };
    if (!parsed.found || typeof parsed.x !== 'number' || typeof parsed.y !== 'number') return null;
    return { x: parsed.x, y: parsed.y, description: parsed.description ?? description };
  }
}
