// Issue 24: an action sent right after another client navigated the session's page over cdp_url is
// filed under the page it ran on (the cache key reads the page's own address, not a stale copy).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonOf, startService, type TestService } from '../helpers/service.ts';

const page = (name: string) => `<!doctype html><title>${name}</title><h1>Page ${name}</h1><button onclick="document.body.dataset.n = String(Number(document.body.dataset.n || 0) + 1)">Go</button>`;

describe('the cache key follows the page after another client navigates it over cdp_url (real service, real session browser)', () => {
  let svc: TestService;
  let server: Server;
  const pages = { url: '' };
  let client: Browser | undefined;

  beforeAll(async () => {
    // A site that takes a moment to answer (as real ones do): the navigation is still under way when the action arrives.
    server = createServer((req, res) => {
      setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(page(req.url === '/a' ? 'A' : 'B')), 300);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    pages.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    svc = await startService(undefined, { sessionPoolSize: 0 });
  });
  afterAll(async () => {
    await client?.close().catch(() => undefined);
    await svc?.dispose();
    server?.close();
  });

  it('16 navigations by a second CDP connection, each followed at once by an action: every one is filed under its own page', async () => {
    const created = await jsonOf(await svc.api('/public/sessions', { method: 'POST', key: svc.accountKey, json: {} }));
    const session = created.body as { session_id: string; cdp_url: string };
    const run = async (action: string) => (await jsonOf(await svc.api('/public/single-actions/run-action', { method: 'POST', key: svc.accountKey, json: { session_id: session.session_id, action } }))).body as Record<string, unknown>;
    expect(await run(`go to ${pages.url}/a`)).toMatchObject({ success: true });
    client = await chromium.connectOverCDP(session.cdp_url);
    const remote = client.contexts().flatMap((c) => c.pages()).find((p) => p.url() === `${pages.url}/a`);
    if (!remote) throw new Error('the session page is not visible over cdp_url');
    // The client starts each navigation from the page's script over its own CDP connection and, without waiting
    // for it to commit, sends the action: Portico must wait for the navigation under way, then key by the new page.
    const outcomes: Array<Record<string, unknown>> = [];
    for (let i = 0; i < 16; i += 1) {
      await remote.evaluate((to) => { location.href = to; }, `${pages.url}/${i % 2 === 0 ? 'b' : 'a'}`);
      outcomes.push(await run('click Go'));
    }
    expect(outcomes.every((o) => o.success === true)).toBe(true);
    const list = (await jsonOf(await svc.api('/public/single-actions/cache', { key: svc.accountKey }))).body as { entries: Array<{ action: string; page: string; hits: number; misses: number }> };
    const entries = list.entries.filter((e) => e.action === 'click Go').map((e) => ({ page: e.page, hits: e.hits, misses: e.misses })).sort((x, y) => x.page.localeCompare(y.page));
    // 8 runs on each page: the first stores the step, the other 7 replay it; a run filed under the other page's key would move a hit.
    expect(entries).toEqual([{ page: `${pages.url}/a`, hits: 7, misses: 1 }, { page: `${pages.url}/b`, hits: 7, misses: 1 }]);
  });
});
