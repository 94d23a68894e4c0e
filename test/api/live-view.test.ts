import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { BrowserRuntime } from '../../src-main/browser/browserRuntime.ts';
import type { BrowserLease } from '../../src-main/browser/browserLease.ts';
import { html, scratchDir, startPageServer, type LocalServer } from '../helpers/browserFixtures.ts';
import { jsonOf, startService, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';

const previousHeadless = process.env.PORTICO_HEADLESS;
process.env.PORTICO_HEADLESS = '1';

// A button at a fixed place in the 1280x800 viewport, so a point on the live image maps to it.
const LOGIN_PAGE = `
<style>body{margin:0} #user{position:absolute;left:100px;top:40px;width:300px;height:30px} #go{position:absolute;left:100px;top:100px;width:200px;height:80px}</style>
<input id="user" aria-label="user"><button id="go">Log in</button>
<script>
document.getElementById('go').onclick = () => fetch('/clicked?user=' + encodeURIComponent(document.getElementById('user').value));
</script>`;

/** Clicks the live image where page point (x, y) is shown, allowing for object-fit letterboxing. */
async function clickOnScreen(viewer: Page, x: number, y: number): Promise<void> {
  const screen = viewer.locator('#screen');
  const box = await screen.boundingBox();
  if (!box) throw new Error('live image not visible');
  const ratio = 1280 / 800;
  const width = Math.min(box.width, box.height * ratio);
  const height = width / ratio;
  await screen.click({
    position: { x: (box.width - width) / 2 + (x / 1280) * width, y: (box.height - height) / 2 + (y / 800) * height },
  });
}

describe('live view (local-service §6)', () => {
  let svc: TestService;
  let pages: LocalServer;
  const clicks: string[] = [];
  const viewerData = scratchDir('portico-viewer-');
  const viewerRuntime = new BrowserRuntime({ dataDir: viewerData.path });
  let viewerLease: BrowserLease;
  let session: { profile_id: string; live_url: string; session_id: string };

  beforeAll(async () => {
    pages = await startPageServer({
      '/login': html(LOGIN_PAGE),
      '/clicked': (req: IncomingMessage, res) => {
        clicks.push(new URL(req.url ?? '/', 'http://x').searchParams.get('user') ?? '');
        res.writeHead(204).end();
      },
    });
    svc = await startService();
    const [created] = await Promise.all([
      svc.send('openProfileSession', {
        params: { org_id: 'default' },
        body: { name: 'Live', start_url: pages.url('/login'), timeout_minutes: 30 },
      }),
      (async () => {
        viewerLease = await viewerRuntime.lease();
      })(),
    ]);
    expect(created.status).toBe(200);
    session = created.body as typeof session;
  });

  afterAll(async () => {
    await viewerLease?.close();
    await viewerRuntime.close();
    await svc?.dispose();
    await pages?.close();
    viewerData.cleanup();
    if (previousHeadless === undefined) delete process.env.PORTICO_HEADLESS;
    else process.env.PORTICO_HEADLESS = previousHeadless;
  });

  it('an unknown token is 404 for the page, its frames and its input', async () => {
    for (const [path, init] of [
      ['/live/lv_nope', {}],
      ['/live/lv_nope/frames', {}],
      ['/live/lv_nope/input', { method: 'POST', json: { kind: 'text', text: 'x' } }],
    ] as const) {
      expect(await jsonOf(await svc.api(path, { key: null, ...init }))).toEqual({
        status: 404,
        body: { detail: 'Live view not found or ended' },
      });
    }
  });

  it('the page needs no API key and loads nothing from elsewhere', async () => {
    const res = await fetch(session.live_url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const text = await res.text();
    expect(text).toContain('Profile login · Live');
    expect(text).not.toMatch(/(src|href)="https?:/);
  });

  it("the page's CSP allows no inline code but its own script and style sheet, by hash", async () => {
    const res = await fetch(session.live_url);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    const text = await res.text();
    const hash = (body: string) => `'sha256-${createHash('sha256').update(body, 'utf8').digest('base64')}'`;
    const scripts = [...text.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1] ?? '');
    const sheets = [...text.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1] ?? '');
    expect([scripts.length, sheets.length]).toEqual([1, 1]);
    expect(/script-src ([^;]*)/.exec(csp)?.[1]).toBe(hash(scripts[0] ?? ''));
    expect(/style-src ([^;]*)/.exec(csp)?.[1]).toBe(hash(sheets[0] ?? ''));
    // The one other script element is a JSON data block, which no browser runs.
    expect(text.match(/<script[\s>]/g)).toHaveLength(2);
    expect(text).toContain('<script id="config" type="application/json">');
    expect(text).not.toMatch(/ style=| on[a-z]+=/);
  });

  it('bad input is 422 and names the field', async () => {
    const send = (json: unknown) =>
      svc.api(`${new URL(session.live_url).pathname}/input`, { method: 'POST', key: null, json });
    const wrongKind = await jsonOf(await send({ kind: 'telepathy' }));
    expect(wrongKind.status).toBe(422);
    const noY = await jsonOf(await send({ kind: 'mouse', type: 'mousePressed', x: 1 }));
    expect(noY).toEqual({ status: 422, body: { detail: 'body.y: is required' } });
    expect((await jsonOf(await send({ kind: 'key', type: 'keyPress', key: 'a' }))).status).toBe(422);
  });

  it('a real browser watching the live_url sees frames, and its clicks, keys and pasted text reach the page', async () => {
    const viewer = viewerLease.page;
    // Under its CSP: a refused script or style sheet would show as a violation (and a dead page).
    const refused: string[] = [];
    viewer.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
    });
    await viewer.goto(session.live_url);
    await viewer.waitForSelector('body[data-state="live"]', { timeout: 10_000 });
    expect(await viewer.locator('#screen').getAttribute('src')).toMatch(/^data:image\/jpeg;base64,/);
    expect(await viewer.locator('#status-text').textContent()).toBe('live');
    // The style sheet applied: the page's dark background and the live dot's green.
    expect(await viewer.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(22, 24, 29)');
    expect(await viewer.locator('.dot').evaluate((dot) => getComputedStyle(dot).backgroundColor)).toBe(
      'rgb(47, 191, 113)',
    );

    await clickOnScreen(viewer, 250, 55); // the text field; the screen now has keyboard focus
    await viewer.keyboard.type('anax');
    await viewer.keyboard.press('Backspace');
    await viewer.fill('#type-text', '@example.test');
    await viewer.click('button[type=submit]');
    // No wait needed: the page sends its input as one ordered queue, so the text lands before the click.
    await clickOnScreen(viewer, 200, 140); // the button
    await until(() => clicks.length > 0, 'the click to reach the page');
    expect(clicks).toEqual(['ana@example.test']);
    expect(refused).toEqual([]);
  });

  it('input posted straight to the API lands too (no viewer needed)', async () => {
    await viewerLease.page.goto('about:blank');
    const res = await svc.api(`${new URL(session.live_url).pathname}/input`, {
      method: 'POST',
      key: null,
      json: { kind: 'mouse', type: 'click', x: 200, y: 140 },
    });
    expect(await jsonOf(res)).toEqual({ status: 200, body: { ok: true } });
    await until(() => clicks.length > 1, 'the posted click to reach the page');
  });

  it('the frame stream is server-sent events of JSON frames with the page geometry', async () => {
    const controller = new AbortController();
    const res = await fetch(`${session.live_url}/frames`, { signal: controller.signal });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.getReader();
    let text = '';
    const decoder = new TextDecoder();
    while (!/event: frame\ndata: .*\n\n/.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    controller.abort();
    const data = JSON.parse(/event: frame\ndata: (.*)\n\n/.exec(text)![1]!) as Record<string, unknown>;
    expect(data).toMatchObject({ format: 'jpeg', deviceWidth: 1280, deviceHeight: 800 });
    expect(typeof data.data).toBe('string');
  });

  it('when the session closes the stream ends and the page says "ended"', async () => {
    const viewer = viewerLease.page;
    await viewer.goto(session.live_url);
    await viewer.waitForSelector('body[data-state="live"]');
    const closed = await svc.send('closeProfileSession', {
      params: { org_id: 'default', session_id: session.session_id },
    });
    expect(closed.status).toBe(200);
    await viewer.waitForSelector('body[data-state="ended"]');
    expect(await viewer.locator('#status-text').textContent()).toBe('ended');
    expect((await fetch(session.live_url)).status).toBe(404);
  });
});
