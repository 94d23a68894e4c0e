import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { newId } from '../../src-main/base/ids.ts';
import { openStore } from '../../src-main/store/store.ts';
import { snap, useConsoleWorld } from './harness.ts';

interface SessionBody {
  session_id: string;
  status: string;
  cdp_url: string | null;
  live_url: string | null;
  expires_at: string;
  created_at: string;
}

describe("Sessions page: the default workspace's browser sessions and the single-action step cache (issue 11)", () => {
  const world = useConsoleWorld();
  const asAccount = (path: string, init: { method?: string; json?: unknown } = {}) =>
    world.svc.api(path, { key: world.svc.accountKey, ...init });
  const session = async (id: string) => (await (await asAccount(`/public/sessions/${id}`)).json()) as SessionBody;

  it('starts a session, shows its expiry, copies a CDP URL that works, opens its live view, terminates it, filters and pages', async () => {
    const page = await world.openConsole({ hash: '#/sessions' });
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: world.svc.url });
    await page.getByText('No sessions yet').waitFor();

    await page.getByLabel('Expires after (minutes)').fill('15');
    await page.getByRole('button', { name: 'New session' }).click();
    const row = page.locator('tr[data-session]');
    await expect.poll(() => row.count(), { timeout: 30_000 }).toBe(1);
    const id = String(await row.getAttribute('data-session'));
    const made = await session(id);
    // Made by the console, it is the default workspace's: its account key reads it.
    expect(made.status).toBe('active');
    expect(Date.parse(made.expires_at) - Date.parse(made.created_at)).toBe(15 * 60_000);
    expect(await row.locator('td').nth(1).innerText()).toBe('Active');
    expect(await row.locator('time').getAttribute('datetime')).toBe(made.expires_at);

    // The live view opens under the new session, showing that session's browser.
    const live = page.frameLocator(`iframe[title="Live view of session ${id.slice(0, 8)}"]`);
    await live.locator('body[data-state="live"]').waitFor({ timeout: 15_000 });
    await snap(page, 'sessions-live');

    // Copy puts the CDP URL on the clipboard, and a script connects to it.
    await row.getByRole('button', { name: 'Copy CDP URL' }).click();
    await row.getByRole('button', { name: 'Copy CDP URL' }).getByText('Copied').waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toBe(made.cdp_url);
    const remote = await chromium.connectOverCDP(copied);
    expect(remote.contexts().length).toBeGreaterThan(0);
    await remote.close();

    // Terminate asks once more, then the session ends: no CDP URL, no live view.
    await row.getByRole('button', { name: 'Terminate', exact: true }).click();
    await row.getByRole('button', { name: `Terminate session ${id.slice(0, 8)}` }).click();
    await expect.poll(() => row.locator('td').nth(1).innerText(), { timeout: 15_000 }).toBe('Terminated');
    expect(await session(id)).toMatchObject({ status: 'terminated', cdp_url: null, live_url: null });
    expect(await row.getByRole('button', { name: 'Copy CDP URL' }).count()).toBe(0);
    expect(await page.locator('iframe.live').count()).toBe(0);

    // Ten more, all ended but one: the status filter and the pages of ten. The active one is a real session;
    // the nine ended ones are the rows ended sessions leave (a browser each to launch and end would only cost
    // time: creating and terminating are what the steps above and test/sessions check).
    const others: string[] = [];
    const active = (await (
      await asAccount('/public/sessions', { method: 'POST', json: { timeout_minutes: 5 } })
    ).json()) as SessionBody;
    others.push(active.session_id);
    const store = openStore(join(world.svc.dataDir, 'portico.db'));
    try {
      const template = store.sessions.get(active.session_id);
      if (!template) throw new Error(`no row for session ${active.session_id}`);
      for (let i = 1; i < 10; i++) {
        const at = new Date(Date.parse(template.created_at) + i * 1000).toISOString();
        const id = newId();
        store.sessions.insert({ ...template, id, status: 'terminated', ended_at: at, created_at: at, updated_at: at });
        others.push(id);
      }
    } finally {
      store.close();
    }
    const stillActive = others[0] as string;
    await page.reload();
    await page.getByLabel('Status').selectOption('active');
    await expect
      .poll(async () =>
        page.locator('tr[data-session]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-session'))),
      )
      .toEqual([stillActive]);
    await page.getByLabel('Status').selectOption('');
    await expect.poll(() => page.locator('tr[data-session]').count()).toBe(10);
    const pager = page.getByRole('navigation', { name: 'Sessions pages' });
    expect(await pager.innerText()).toContain('1–10 of 11');
    await pager.getByRole('button', { name: 'Next' }).click();
    // Newest first: the oldest, the one the console made, is alone on page two.
    await expect
      .poll(async () =>
        page.locator('tr[data-session]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-session'))),
      )
      .toEqual([id]);
    expect(await pager.innerText()).toContain('11–11 of 11');
    await page.getByLabel('Status').selectOption('terminated');
    await expect.poll(() => page.locator('tr[data-session]').count()).toBe(10);
    await asAccount(`/public/sessions/${stillActive}/terminate`, { method: 'POST' });
  }, 120_000);

  it('the step cache tab lists each cached step with its hit and miss counts', async () => {
    const made = (await (
      await asAccount('/public/sessions', { method: 'POST', json: { timeout_minutes: 5 } })
    ).json()) as SessionBody;
    const run = async (action: string) => {
      const response = await asAccount('/public/single-actions/run-action', {
        method: 'POST',
        json: { session_id: made.session_id, action },
      });
      expect(await response.json()).toMatchObject({ success: true });
    };
    const page = await world.openConsole({ hash: '#/sessions/cache' });
    await page.getByText('No cached steps yet').waitFor();
    for (let round = 0; round < 2; round++) {
      await run(`go to ${world.pages.url('/login')}`);
      await run('type ada into user');
    }
    await run(`go to ${world.pages.url('/login')}`);
    await run('type ada into user');

    const entry = page.locator('tr[data-cache-key]').filter({ hasText: 'type ada into user' });
    await expect.poll(() => entry.count(), { timeout: 15_000 }).toBe(1);
    // First run resolved it fresh (a miss), the two after replayed it (hits).
    await expect.poll(() => entry.getByTestId('hits').innerText(), { timeout: 15_000 }).toBe('2');
    expect(await entry.getByTestId('misses').innerText()).toBe('1');
    expect(await entry.innerText()).toContain(world.pages.url('/login'));
    await snap(page, 'sessions-step-cache');
    await page.getByRole('navigation', { name: 'Sessions' }).getByRole('link', { name: 'Sessions' }).click();
    await page.locator(`tr[data-session="${made.session_id}"]`).waitFor();
    await asAccount(`/public/sessions/${made.session_id}/terminate`, { method: 'POST' });
  }, 90_000);
});
