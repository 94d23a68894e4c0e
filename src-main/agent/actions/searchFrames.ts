import type { Frame, Locator, Page } from 'playwright-core';
import { scriptableFrames } from '../../browser/frameAccess.ts';
import { perceivable, type Perceived } from '../injected/index.ts';

/** The frames a target may live in: the page and its attached, shown iframes (a hidden iframe's controls cannot be used). */
export async function searchFrames(page: Page): Promise<Frame[]> {
  const main = page.mainFrame();
  const children = scriptableFrames(page).filter((f) => f !== main);
  if (children.length === 0) return [main];
  const shown = await Promise.all(
    children.map(async (frame) => {
      const owner = await frame.frameElement().catch(() => null);
      return owner !== null && (await owner.isVisible().catch(() => false));
    }),
  );
  return [main, ...children.filter((_, i) => shown[i])];
}

/** How many elements one locator recipe matches across the frames, and the locator when exactly one does. */
export async function countAcross<S>(
  frames: readonly S[],
  locate: (frame: S) => Locator,
): Promise<{ count: number; only?: Locator; all: Locator[] }> {
  const found = await Promise.all(
    frames.map(async (frame) => {
      const locator = locate(frame);
      return { locator, count: await locator.count().catch(() => 0) };
    }),
  );
  const hits = found.filter((f) => f.count > 0);
  const count = hits.reduce((sum, f) => sum + f.count, 0);
  const first = hits[0];
  return { count, all: hits.map((f) => f.locator), ...(count === 1 && first && { only: first.locator }) };
}

/**
 * Like countAcross, but counting only what a person can perceive there (see `perceivable`): hidden,
 * inert, aria-hidden and modal-covered elements are no candidates. When several remain and exactly one
 * is not covered by another element at its centre, that one is the match: a covered element is never
 * waited on while another candidate can be used.
 */
export async function perceivableAcross<S>(
  frames: readonly S[],
  locate: (frame: S) => Locator,
  textOnly: boolean,
): Promise<{ count: number; only?: Locator; all: Locator[] }> {
  const found = await Promise.all(
    frames.map(async (frame) => {
      const locator = locate(frame);
      const seen = await locator.evaluateAll(perceivable, textOnly).catch(() => [] as Perceived[]);
      return { locator, seen };
    }),
  );
  const hits: Array<{ locator: Locator; index: number; covered: boolean }> = [];
  for (const { locator, seen } of found)
    seen.forEach((s, index) => {
      if (s !== 0) hits.push({ locator, index, covered: s === 2 });
    });
  const all = found.filter((f) => f.seen.some((s) => s !== 0)).map((f) => f.locator);
  const pick = (list: typeof hits): Locator | undefined => {
    const one = list.length === 1 ? list[0] : undefined;
    return one?.locator.nth(one.index);
  };
  if (hits.length === 1) return { count: 1, all, only: pick(hits) };
  const uncovered = hits.filter((h) => !h.covered);
  if (hits.length > 1 && uncovered.length === 1) return { count: 1, all, only: pick(uncovered) };
  return { count: hits.length, all };
}
