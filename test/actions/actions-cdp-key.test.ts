// Issue 24: an action sent right after another client navigated the session's page over cdp_url is
// filed under the page it ran on, and runs there. The race is reproduced, not left to timing: the test
// server holds the new page's response, so the navigation is still under way when the action is sent
// and stays so until the action either did something on the old page (its Go button reports the click)
// or has been left waiting for a while. An action that waits for the navigation under way is keyed by
// the new page whatever the hold's length; one keyed by the address it saw on arrival (page.url(), the
// old page's while the new one is held) is filed under the old page's key every time.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type TestService } from '../helpers/service.ts';

const page = (name: string) => `<!doctype html><title>${name}</title><h1>Page ${name}</h1>
<button onclick="fetch('/clicked?page=${name}', {method: 'POST', keepalive: true})">Go</button>`;

/** How long a held response waits for the old page to report a click before it is released anyway (the hold's end; no assertion depends on it). */
const HOLD_MS = 1_500;

describe('the cache key follows the page after another client navigates it over cdp_url (real service, real session browser)', () => {
  let svc: TestService;
  let server: Server;
  let origin = '';
  let client: Browser | undefined;
  /** Pages whose Go button was clicked, in order. */
  const clicks: string[] = [];
  let onClick: (() => void) | undefined;
  const clickWaiters: Array<() => void> = [];
  /** Resolves once `n` clicks have been reported (a click's report is a request of its own, sent after the action's answer may have come). */
  const clicked = (n: number): Promise<void> =>
    new Promise<void>((resolve) => {
      const check = (): void => {
        if (clicks.length >= n) resolve();
        else clickWaiters.push(check);
      };
      check();
    });
  /** The next request for this path is held until `release` is called. */
  let hold: { path: string; requested: () => void; res?: ServerResponse } | undefined;

  const answer = (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/clicked') {
      clicks.push(url.searchParams.get('page') ?? '?');
      res.writeHead(204).end();
      onClick?.();
      for (const wake of clickWaiters.splice(0)) wake();
      return;
    }
    const name = url.pathname === '/a' ? 'A' : 'B';
    if (hold && hold.path === url.pathname && !hold.res) {
      hold.res = res;
      hold.requested();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end(page(name));
  };

  beforeAll(async () => {
    server = createServer(answer);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    svc = await startService(undefined, { sessionPoolSize: 0 });
  });
  afterAll(async () => {
    await client?.close().catch(() => undefined);
    await svc?.dispose();
    server?.close();
  });

  it('a navigation under way when the action arrives (its response held by the site) is waited for: the action runs on the new page and is filed under it', async () => {
    const created = await svc.send('createSession', { body: {} }, { key: svc.accountKey });
    const session = created.body as { session_id: string; cdp_url: string };
    const run = async (action: string) =>
      (await svc.send('runSingleAction', { body: { session_id: session.session_id, action } }, { key: svc.accountKey }))
        .body as Record<string, unknown>;
    expect(await run(`go to ${origin}/a`)).toMatchObject({ success: true });
    // The step is stored under page A: an action filed under A's key by mistake would replay it on A.
    expect(await run('click Go')).toMatchObject({ success: true, set_cache: true });
    await clicked(1);
    expect(clicks).toEqual(['A']);
    client = await chromium.connectOverCDP(session.cdp_url);
    const remote = client
      .contexts()
      .flatMap((c) => c.pages())
      .find((p) => p.url() === `${origin}/a`);
    if (!remote) throw new Error('the session page is not visible over cdp_url');

    // To B (never seen: resolved afresh and stored under B), then back to A (its stored step replayed).
    for (const [to, name, cached] of [
      ['/b', 'B', false],
      ['/a', 'A', true],
    ] as const) {
      const requested = new Promise<void>((resolve) => {
        hold = { path: to, requested: resolve };
      });
      // The other client starts the navigation; the site has received its request and holds the answer.
      await remote.evaluate((href) => {
        location.href = href;
      }, `${origin}${to}`);
      await requested;
      const before = clicks.length;
      const clickedOnOldPage = new Promise<void>((resolve) => {
        onClick = resolve;
      });
      const action = run('click Go');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        clickedOnOldPage,
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, HOLD_MS);
        }),
      ]);
      clearTimeout(timer);
      onClick = undefined;
      const held = hold?.res;
      hold = undefined;
      held?.writeHead(200, { 'content-type': 'text/html' }).end(page(name));
      // Filed under the page it ran on: keyed by A while B was still loading, the first would replay A's step.
      expect(await action).toMatchObject({ success: true, used_cache: cached, set_cache: !cached });
      // The click landed on the page the navigation led to, never on the one it left.
      await clicked(before + 1);
      expect(clicks.slice(before)).toEqual([name]);
    }

    const list = (await svc.send('listActionCache', {}, { key: svc.accountKey })).body as {
      entries: Array<{ action: string; page: string; hits: number; misses: number }>;
    };
    const entries = list.entries
      .filter((e) => e.action === 'click Go')
      .map((e) => ({ page: e.page, hits: e.hits, misses: e.misses }))
      .sort((x, y) => x.page.localeCompare(y.page));
    // A: stored by the first run, replayed after the navigation back; B: stored by the run after the first navigation.
    expect(entries).toEqual([
      { page: `${origin}/a`, hits: 1, misses: 1 },
      { page: `${origin}/b`, hits: 0, misses: 1 },
    ]);
  });
});
