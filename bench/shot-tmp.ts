import { chromium } from 'playwright-core';
import { govukWizard } from '../test/fixtures/forms/dynamicPages.ts';
import { startFormServer } from '../test/helpers/formServer.ts';
const site = await startFormServer(govukWizard().handlers);
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox','--disable-gpu'] });
const p = await (await b.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
await p.goto(site.url('/wizard/contact'));
for (const [name, fn] of [
  ['fullPage+mask', () => p.screenshot({ fullPage: true, type: 'png', mask: [p.locator('input[type="password"]')] })],
  ['fullPage', () => p.screenshot({ fullPage: true, type: 'png' })],
  ['fullPage caret', () => p.screenshot({ fullPage: true, type: 'png', caret: 'initial' })],
  ['cdp full', async () => { const s = await p.context().newCDPSession(p); const m = await s.send('Page.getLayoutMetrics'); const r = await s.send('Page.captureScreenshot', { format: 'png', optimizeForSpeed: true, captureBeyondViewport: true, clip: { x: 0, y: 0, width: m.cssContentSize.width, height: m.cssContentSize.height, scale: 1 } } as never); await s.detach(); return r; }],
  ['viewport', () => p.screenshot({ type: 'png' })],
  ['cdp', async () => { const s = await p.context().newCDPSession(p); const r = await s.send('Page.captureScreenshot', { format: 'png', optimizeForSpeed: true } as never); await s.detach(); return r; }],
] as const) {
  const t = []; for (let i = 0; i < 6; i++) { const t0 = performance.now(); await fn(); t.push(Math.round(performance.now() - t0)); }
  console.log(name, t.join(' '));
}
await b.close(); await site.close();
