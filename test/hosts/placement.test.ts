// tier: unit
// Placement (docs/scale.md, "How Portico places work"): the least-loaded host with room, per-host
// max_browsers, browsers_per_org across every host, labels, login windows local, refusals naming the hosts.
import { describe, expect, it } from 'vitest';
import { BrowserSlots, type PlacementHost } from '../../src-main/engine/limits/browserSlots.ts';

function host(
  name: string,
  maxBrowsers: number,
  labels: string[] = [],
  reachable = true,
): PlacementHost & { reachable: boolean } {
  const place = {
    name,
    maxBrowsers,
    labels,
    reachable,
    accepting: () => place.reachable,
    unavailableReason: () => (place.reachable ? undefined : 'unreachable (connect ECONNREFUSED)'),
  };
  return place;
}

describe('browser placement across hosts', () => {
  it('fills the least-loaded host with room, local first on ties, and queues when every host is full', () => {
    const hosts = [host('local', 2, ['local']), host('h1', 2), host('h2', 4)];
    const slots = new BrowserSlots({ perOrg: 64, total: 64 }, () => hosts);
    const placed = Array.from({ length: 8 }, () => slots.tryAcquire('org')?.host);
    // local 0/2 → h1 0/2 → h2 0/4 → h2 1/4 (0.25 < 0.5) → local 1/2 → h1 → h2 → h2.
    expect(placed).toEqual(['local', 'h1', 'h2', 'h2', 'local', 'h1', 'h2', 'h2']);
    expect(slots.tryAcquire('org')).toBeUndefined();
    expect(slots.refusal('org')).toBe(
      'Every browser host is full or unavailable: local 2/2 in use; h1 2/2 in use; h2 4/4 in use',
    );
    expect(() => slots.acquire('org')).toThrow('Every browser host is full or unavailable: local 2/2 in use');
    expect([slots.inUseOn('local'), slots.inUseOn('h1'), slots.inUseOn('h2'), slots.inUse()]).toEqual([2, 2, 4, 8]);
  });

  it('a host that does not answer takes nothing; browsers_per_org holds across every host', () => {
    const hosts = [host('local', 0, ['local']), host('h1', 4, [], false), host('h2', 4)];
    const slots = new BrowserSlots({ perOrg: 3, total: 64 }, () => hosts);
    expect([1, 2, 3].map(() => slots.tryAcquire('a')?.host)).toEqual(['h2', 'h2', 'h2']);
    expect(slots.tryAcquire('a')).toBeUndefined();
    expect(slots.refusal('a')).toMatch(
      /^Browser limit reached: organization 'a' has 3 live browsers .* \(browsers_per_org\)/,
    );
    expect(slots.tryAcquire('b')?.host).toBe('h2');
    expect(slots.refusal('b')).toBe(
      'Every browser host is full or unavailable: local 0/0 in use; h1 unreachable (connect ECONNREFUSED) (0/4 in use); h2 4/4 in use',
    );
    hosts[1]!.reachable = true;
    expect(slots.tryAcquire('b')?.host).toBe('h1');
  });

  it('labels route to hosts carrying all of them; `local` names the local Chromium; labels no host carries are said so', () => {
    const hosts = [host('local', 4, ['local']), host('eu1', 1, ['eu', 'gpu']), host('eu2', 4, ['eu'])];
    const slots = new BrowserSlots({ perOrg: 64, total: 64 }, () => hosts);
    expect(slots.tryAcquire('o', { labels: ['eu', 'gpu'] })?.host).toBe('eu1');
    expect(slots.tryAcquire('o', { labels: ['eu', 'gpu'] })).toBeUndefined();
    expect(slots.refusal('o', { labels: ['eu', 'gpu'] })).toBe(
      'Every browser host is full or unavailable: eu1 1/1 in use',
    );
    expect(slots.tryAcquire('o', { labels: ['eu'] })?.host).toBe('eu2');
    expect(slots.tryAcquire('o', { labels: ['local'] })?.host).toBe('local');
    expect(slots.unplaceable({ labels: ['us'] })).toBe(
      "no browser host carries the labels 'us' (hosts: local [local]; eu1 [eu, gpu]; eu2 [eu])",
    );
    expect(slots.refusal('o', { labels: ['us'] })).toMatch(
      /^No browser host can take it: no browser host carries the labels 'us'/,
    );
  });

  it('a refused connect moves the slot to the next host with room; login windows stay local even at local_max_browsers 0', () => {
    const hosts = [host('local', 0, ['local']), host('h1', 1), host('h2', 1), host('h3', 1)];
    const slots = new BrowserSlots({ perOrg: 64, total: 64 }, () => hosts);
    const slot = slots.tryAcquire('o');
    expect(slot?.host).toBe('h1');
    expect(slot?.moveOn(new Set(['h1']))).toBe(true);
    expect(slot?.host).toBe('h2');
    expect([slots.inUseOn('h1'), slots.inUseOn('h2')]).toEqual([0, 1]);
    const other = slots.tryAcquire('o');
    expect(other?.host).toBe('h1');
    // h1 and h3 … h1 is taken now, h3 has room.
    expect(slot?.moveOn(new Set(['h1', 'h2']))).toBe(true);
    expect(slot?.host).toBe('h3');
    expect(slot?.moveOn(new Set(['h1', 'h2', 'h3']))).toBe(false);
    expect(slot?.host).toBe('h3');
    slot?.release();
    slot?.release();
    expect([slots.inUseOn('h3'), slots.inUse()]).toEqual([0, 1]);

    const login = slots.acquire('o', { loginWindow: true });
    expect(login.host).toBe('local');
    expect([slots.inUseOn('local'), slots.inUse('o')]).toEqual([0, 2]);
    expect(() => slots.acquire('o', { localOnly: true })).toThrow(
      'Every browser host is full or unavailable: local 0/0 in use',
    );
  });
});
