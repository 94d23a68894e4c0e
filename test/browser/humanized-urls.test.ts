// tier: unit
import { describe, expect, it } from 'vitest';

import { humanKeyDelays, humanMousePath } from '../../src-main/browser/humanInput.ts';
import { matchesHumanizedUrl } from '../../src-main/browser/humanizedUrls.ts';
import { seededRandom } from '../helpers/browserFixtures.ts';

describe('matchesHumanizedUrl', () => {
  it('matches a URL given as a prefix, up to a path boundary', () => {
    const patterns = ['https://shop.example/login'];
    expect(matchesHumanizedUrl('https://shop.example/login', patterns)).toBe(true);
    expect(matchesHumanizedUrl('https://shop.example/login?next=/cart', patterns)).toBe(true);
    expect(matchesHumanizedUrl('https://shop.example/login/step-2', patterns)).toBe(true);
    expect(matchesHumanizedUrl('https://shop.example/loginx', patterns)).toBe(false);
    expect(matchesHumanizedUrl('https://shop.example/', patterns)).toBe(false);
  });

  it('matches a bare host on any scheme and path, but not a longer host', () => {
    const patterns = ['shop.example'];
    expect(matchesHumanizedUrl('https://shop.example/a/b', patterns)).toBe(true);
    expect(matchesHumanizedUrl('http://SHOP.example', patterns)).toBe(true);
    expect(matchesHumanizedUrl('https://shop.example.evil/a', patterns)).toBe(false);
  });

  it('matches globs where * spans any characters, against the whole URL', () => {
    const patterns = ['https://*.bank.example/*/transfer*'];
    expect(matchesHumanizedUrl('https://www.bank.example/en/transfer?to=1', patterns)).toBe(true);
    expect(matchesHumanizedUrl('https://www.bank.example/en/history', patterns)).toBe(false);
    expect(matchesHumanizedUrl('https://bank.example.evil/x/transfer', patterns)).toBe(false);
  });

  it('matches nothing without patterns', () => {
    expect(matchesHumanizedUrl('https://shop.example/', null)).toBe(false);
    expect(matchesHumanizedUrl('https://shop.example/', [])).toBe(false);
    expect(matchesHumanizedUrl('https://shop.example/', ['  '])).toBe(false);
  });
});

describe('human cadence', () => {
  it('key delays vary within bounds and replay with the same random source', () => {
    const delays = humanKeyDelays('hello world', seededRandom(7), 40, 120);
    expect(delays).toHaveLength(11);
    expect(new Set(delays).size).toBeGreaterThan(5);
    for (const delay of delays) expect(delay).toBeGreaterThanOrEqual(40);
    expect(humanKeyDelays('hello world', seededRandom(7), 40, 120)).toEqual(delays);
  });

  it('a mouse path bows away from the straight line and ends exactly on the target', () => {
    const from = { x: 10, y: 10 };
    const to = { x: 610, y: 310 };
    const path = humanMousePath(from, to, seededRandom(3));
    expect(path.length).toBeGreaterThanOrEqual(8);
    expect(path.at(-1)).toEqual(to);
    const length = Math.hypot(to.x - from.x, to.y - from.y);
    const offLine = (p: { x: number; y: number }): number =>
      Math.abs((to.x - from.x) * (from.y - p.y) - (from.x - p.x) * (to.y - from.y)) / length;
    expect(Math.max(...path.map(offLine))).toBeGreaterThan(20);
    expect(humanMousePath(from, to, seededRandom(3))).toEqual(path);
  });
});
