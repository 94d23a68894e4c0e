import type { Locator, Page } from 'playwright-core';

/** A source of uniform numbers in [0, 1); injected so tests replay the same "human". */
export type RandomSource = () => number;

export interface Point {
  x: number;
  y: number;
}

export interface HumanInputOptions {
  random?: RandomSource;
  sleep?: (ms: number) => Promise<void>;
  /** Per-key delay bounds in ms; default 45..170. */
  minKeyDelayMs?: number;
  maxKeyDelayMs?: number;
  /** Where the pointer is assumed to start; Playwright cannot read the real position. */
  start?: Point;
}

const realSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function between(random: RandomSource, min: number, max: number): number {
  return min + (max - min) * random();
}

/**
 * Per-character delays with human cadence: uniform within bounds, a longer pause after a space or
 * punctuation, and now and then a hesitation.
 */
export function humanKeyDelays(text: string, random: RandomSource, minMs = 45, maxMs = 170): number[] {
  return [...text].map((char) => {
    let delay = between(random, minMs, maxMs);
    if (/[\s.,;:!?@]/.test(char)) delay += between(random, 0.3, 1) * maxMs;
    if (random() < 0.05) delay += between(random, 1, 2.5) * maxMs;
    return Math.round(delay);
  });
}

/**
 * A mouse path from `from` to `to`: a cubic Bezier with control points pushed off the straight
 * line, eased (slow-fast-slow), with a pixel of jitter on the inner points; ends exactly on `to`.
 */
export function humanMousePath(from: Point, to: Point, random: RandomSource, steps?: number): Point[] {
  const dx = to.x - from.x;
  const dy = to.y - from.y;
  const distance = Math.hypot(dx, dy);
  const count = steps ?? Math.max(8, Math.min(40, Math.round(distance / 20)));
  // Unit normal to the straight line; the bow goes to either side.
  const nx = distance === 0 ? 0 : -dy / distance;
  const ny = distance === 0 ? 0 : dx / distance;
  const bow = (): number => between(random, 0.08, 0.3) * distance * (random() < 0.5 ? -1 : 1);
  const b1 = bow();
  const b2 = bow();
  const c1 = {
    x: from.x + dx * between(random, 0.2, 0.4) + nx * b1,
    y: from.y + dy * between(random, 0.2, 0.4) + ny * b1,
  };
  const c2 = {
    x: from.x + dx * between(random, 0.6, 0.8) + nx * b2,
    y: from.y + dy * between(random, 0.6, 0.8) + ny * b2,
  };
  const points: Point[] = [];
  for (let i = 1; i <= count; i += 1) {
    const linear = i / count;
    const t = linear < 0.5 ? 2 * linear * linear : 1 - (-2 * linear + 2) ** 2 / 2;
    const u = 1 - t;
    const x = u ** 3 * from.x + 3 * u * u * t * c1.x + 3 * u * t * t * c2.x + t ** 3 * to.x;
    const y = u ** 3 * from.y + 3 * u * u * t * c1.y + 3 * u * t * t * c2.y + t ** 3 * to.y;
    const jitter = i === count ? 0 : 1;
    points.push({ x: x + between(random, -jitter, jitter), y: y + between(random, -jitter, jitter) });
  }
  return points;
}

/**
 * Types and clicks like a person, for pages listed in a portal's `humanized_urls`: per-key delays
 * instead of an instant fill, and a curved mouse approach instead of a teleporting click.
 */
export class HumanInput {
  readonly #page: Page;
  readonly #random: RandomSource;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #minKeyDelayMs: number;
  readonly #maxKeyDelayMs: number;
  #position: Point;

  constructor(page: Page, options: HumanInputOptions = {}) {
    this.#page = page;
    this.#random = options.random ?? Math.random;
    this.#sleep = options.sleep ?? realSleep;
    this.#minKeyDelayMs = options.minKeyDelayMs ?? 45;
    this.#maxKeyDelayMs = options.maxKeyDelayMs ?? 170;
    this.#position = options.start ?? { x: 0, y: 0 };
  }

  /** Where the pointer was last moved to. */
  get position(): Point {
    return { ...this.#position };
  }

  /** Moves the pointer along a human path to `target`; returns the points it passed through. */
  async moveTo(target: Point): Promise<Point[]> {
    const path = humanMousePath(this.#position, target, this.#random);
    for (const point of path) {
      await this.#page.mouse.move(point.x, point.y);
      await this.#sleep(Math.round(between(this.#random, 6, 18)));
    }
    this.#position = { ...target };
    return path;
  }

  /** Scrolls `locator` into view, moves to a point inside it and clicks with a human press time. */
  async click(locator: Locator): Promise<Point[]> {
    await locator.scrollIntoViewIfNeeded();
    const box = await locator.boundingBox();
    if (!box) throw new Error('Element to click is not visible');
    // Aim somewhere in the middle half of the element, not at its exact centre every time.
    const target = {
      x: box.x + box.width * between(this.#random, 0.25, 0.75),
      y: box.y + box.height * between(this.#random, 0.25, 0.75),
    };
    const path = await this.moveTo(target);
    await this.#sleep(Math.round(between(this.#random, 40, 140)));
    await this.#page.mouse.down();
    await this.#sleep(Math.round(between(this.#random, 40, 110)));
    await this.#page.mouse.up();
    return path;
  }

  /** Types `text` into the focused element, one key at a time with human delays. */
  async type(text: string): Promise<void> {
    const delays = humanKeyDelays(text, this.#random, this.#minKeyDelayMs, this.#maxKeyDelayMs);
    const chars = [...text];
    for (const [index, char] of chars.entries()) {
      await this.#page.keyboard.type(char);
      await this.#sleep(delays[index] ?? this.#minKeyDelayMs);
    }
  }

  /** Clicks the field, clears it and types `text` — the humanized replacement for `locator.fill`. */
  async fill(locator: Locator, text: string): Promise<void> {
    await this.click(locator);
    await this.#page.keyboard.press('ControlOrMeta+A');
    await this.#page.keyboard.press('Backspace');
    await this.type(text);
  }
}
