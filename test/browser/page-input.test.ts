import { afterAll, afterEach, describe, expect } from 'vitest';

import type { BrowserLease } from '../../src-main/browser/browserLease.ts';
import { BrowserRuntime } from '../../src-main/browser/browserRuntime.ts';
import { HumanInput } from '../../src-main/browser/humanInput.ts';
import { LiveView, type ScreencastFrame } from '../../src-main/browser/liveView.ts';
import { html, scratchDir, seededRandom } from '../helpers/browserFixtures.ts';
import { withServer } from '../helpers/fixtures.ts';

declare global {
  interface Window {
    keydowns: string[];
    moves: Array<[number, number]>;
    clicks: Array<[number, number]>;
  }
}

const FORM_PAGE = `
<style>body { margin: 0; height: 3000px; } #name { position: absolute; left: 40px; top: 40px; }
#go { position: absolute; left: 700px; top: 500px; width: 160px; height: 48px; }</style>
<input id="name" autocomplete="off">
<button id="go" onclick="this.textContent = 'clicked'">Go</button>
<script>
  window.keydowns = []; window.moves = []; window.clicks = [];
  addEventListener('keydown', (e) => keydowns.push(e.key));
  addEventListener('mousemove', (e) => moves.push([e.clientX, e.clientY]));
  addEventListener('click', (e) => clicks.push([e.clientX, e.clientY]));
</script>`;

/** `server` (one per file) serves the form every test starts on. */
const test = withServer({ '/form': html(FORM_PAGE) });

describe('page input', () => {
  const data = scratchDir('portico-data-');
  const runtime = new BrowserRuntime({ dataDir: data.path });
  let lease: BrowserLease;

  test.beforeEach(async ({ server }) => {
    lease = await runtime.lease();
    await lease.page.goto(server.url('/form'));
  });

  afterEach(async () => {
    await lease.close();
    expect(runtime.resources()).toMatchObject({ leases: 0, contexts: 0 });
  });

  afterAll(async () => {
    await runtime.close();
    expect(runtime.resources()).toEqual({ leases: 0, browsers: 0, contexts: 0, tempDirs: 0, sharedBrowser: false });
    data.cleanup();
  });

  describe('HumanInput', () => {
    test('types the exact text with one keydown per character and varying pauses', async () => {
      const pauses: number[] = [];
      const human = new HumanInput(lease.page, {
        random: seededRandom(11),
        sleep: async (ms) => {
          pauses.push(ms);
        },
      });
      await lease.page.focus('#name');
      const text = 'Ana Lima, 42!';
      await human.type(text);
      expect(await lease.page.inputValue('#name')).toBe(text);
      expect(await lease.page.evaluate(() => window.keydowns)).toEqual([...text]);
      expect(pauses).toHaveLength(text.length);
      expect(new Set(pauses).size).toBeGreaterThan(5);
    });

    test('fill replaces what the field held', async () => {
      await lease.page.fill('#name', 'old value');
      const human = new HumanInput(lease.page, { random: seededRandom(5), minKeyDelayMs: 1, maxKeyDelayMs: 4 });
      await human.fill(lease.page.locator('#name'), 'new');
      expect(await lease.page.inputValue('#name')).toBe('new');
    });

    test('moves the mouse along a curve of several points before clicking inside the button', async () => {
      const human = new HumanInput(lease.page, { random: seededRandom(21), start: { x: 5, y: 5 } });
      const path = await human.click(lease.page.locator('#go'));
      expect(await lease.page.textContent('#go')).toBe('clicked');
      const moves = await lease.page.evaluate(() => window.moves);
      expect(path.length).toBeGreaterThanOrEqual(8);
      expect(new Set(moves.map(([x, y]) => `${x},${y}`)).size).toBeGreaterThanOrEqual(5);
      const [clickX, clickY] = (await lease.page.evaluate(() => window.clicks))[0] ?? [0, 0];
      expect(clickX).toBeGreaterThanOrEqual(700);
      expect(clickX).toBeLessThanOrEqual(860);
      expect(clickY).toBeGreaterThanOrEqual(500);
      expect(clickY).toBeLessThanOrEqual(548);
    });
  });

  describe('LiveView', () => {
    test('streams screencast frames of the page and forwards a click onto its button', async () => {
      const view = await LiveView.start(lease.page, { format: 'jpeg', quality: 50 });
      try {
        const frame = await new Promise<ScreencastFrame>((resolve) => {
          view.onDidFrame(resolve);
        });
        expect(Buffer.from(frame.data, 'base64').subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
        expect(frame.deviceWidth).toBe(1280);
        await view.click(780, 524);
        await expect.poll(() => lease.page.textContent('#go')).toBe('clicked');
      } finally {
        await view.stop();
      }
    });

    test('forwards keys into the focused field and the wheel to scroll the page', async () => {
      const view = await LiveView.start(lease.page);
      try {
        await view.click(60, 50);
        for (const key of ['h', 'i']) {
          await view.dispatchKey({ type: 'keyDown', key, text: key });
          await view.dispatchKey({ type: 'keyUp', key });
        }
        expect(await lease.page.inputValue('#name')).toBe('hi');
        await view.dispatchWheel({ x: 400, y: 400, deltaX: 0, deltaY: 600 });
        await expect.poll(() => lease.page.evaluate(() => window.scrollY)).toBeGreaterThan(0);
      } finally {
        await view.stop();
      }
    });
  });
});
