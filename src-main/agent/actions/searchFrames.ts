import type { Frame, Locator, Page } from 'playwright-core';
import { scriptableFrames } from '../../browser/frameAccess.ts';

/** The frames a target may live in: the page and its attached, shown iframes (a hidden iframe's controls cannot be used). */
export async function searchFrames(page: Page): Promise<Frame[]> {
  const main = page.mainFrame();
  const children = scriptableFrames(page).filter((f) => f !== main);
  if (children.length === 0) return [main];
  const shown = await Promise.all(children.map(async (frame) => {
    const owner = await frame.frameElement().catch(() => null);
    return owner !== null && (await owner.isVisible().catch(() => false));
  }));
  return [main, ...children.filter((_, i) => shown[i])];
}

/** How many elements one locator recipe matches across the frames, and the locator when exactly one does. */
export async function countAcross<S>(frames: readonly S[], locate: (frame: S) => Locator): Promise<{ count: number; only?: Locator; all: Locator[] }> {
  const found = await Promise.all(frames.map(async (frame) => {
    const locator = locate(frame);
    return { locator, count: await locator.count().catch(() => 0) };
  }));
  const hits = found.filter((f) => f.count > 0);
  const count = hits.reduce((sum, f) => sum + f.count, 0);
  const first = hits[0];
  return { count, all: hits.map((f) => f.locator), ...(count === 1 && first && { only: first.locator }) };
}
