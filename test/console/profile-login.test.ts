import type { Frame, FrameLocator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { snap, useConsoleWorld } from './harness.ts';

/** The address bar of the live view inside the console page. */
const addressOf = (live: FrameLocator) => live.getByLabel('Address');

async function liveFrame(page: Page): Promise<Frame> {
  await expect.poll(() => page.frames().some((f) => f.url().includes('/live/'))).toBe(true);
  const frame = page.frames().find((f) => f.url().includes('/live/'));
  if (!frame) throw new Error('no live view frame');
  return frame;
}

describe('profile login through the live view: address bar, back, reload, and "Log in again" (console item 4)', () => {
  const world = useConsoleWorld();

  it('goes to an address typed in the live view, back again, reloads, then saves the profile', async () => {
    const page = await world.openConsole({ hash: '#/profiles' });
    const name = world.unique('Tax office');
    await page.getByLabel('Name').fill(name);
    await page.getByLabel('Start page (optional)').fill(world.pages.url('/login'));
    await page.getByRole('button', { name: 'New profile and log in' }).click();
    const live = page.frameLocator('iframe.live');
    await live.locator('body[data-state="live"]').waitFor({ timeout: 15_000 });
    const address = addressOf(live);
    await expect.poll(() => address.inputValue(), { timeout: 10_000 }).toBe(world.pages.url('/login'));
    await address.fill(world.pages.url('/account'));
    await address.press('Enter');
    await expect.poll(() => address.inputValue(), { timeout: 10_000 }).toBe(world.pages.url('/account'));
    await snap(page, 'profile-login-address-bar');
    await live.getByRole('button', { name: 'Back' }).click();
    await expect.poll(() => address.inputValue(), { timeout: 10_000 }).toBe(world.pages.url('/login'));
    await live.getByRole('button', { name: 'Reload' }).click();
    await expect.poll(() => address.inputValue()).toBe(world.pages.url('/login'));
    // Only http and https: the server refuses anything else, and the view says so.
    await address.fill('file:///etc/passwd');
    await address.press('Enter');
    await live.getByRole('status').getByText(/url/).waitFor();
    // The address bar goes back to where the page really is.
    await expect.poll(() => address.inputValue(), { timeout: 10_000 }).toBe(world.pages.url('/login'));
    await page.getByRole('button', { name: 'Save and close' }).click();
    await liveFrameGone(page);
    await expect.poll(() => world.api.call('listProfileSessions', { params: { org_id: 'default' } })).toEqual([]);
    await page.getByRole('table').getByText(name).waitFor();
  });

  it('"Log in again" asks where to start, offering the address used last time', async () => {
    const page = await world.openConsole({ hash: '#/profiles' });
    const name = world.unique('Bank');
    await page.getByLabel('Name').fill(name);
    await page.getByLabel('Start page (optional)').fill(world.pages.url('/account'));
    await page.getByRole('button', { name: 'New profile and log in' }).click();
    await page.frameLocator('iframe.live').locator('body[data-state="live"]').waitFor({ timeout: 15_000 });
    await page.getByRole('button', { name: 'Save and close' }).click();
    await liveFrameGone(page);
    const row = page.getByRole('row').filter({ hasText: name });
    await row.getByRole('button', { name: 'Log in again' }).click();
    const form = page.getByRole('form', { name: `Log in again to ${name}` });
    const start = form.getByLabel('Start page');
    expect(await start.inputValue()).toBe(world.pages.url('/account'));
    await start.fill(world.pages.url('/login'));
    await form.getByRole('button', { name: 'Open login browser' }).click();
    const live = page.frameLocator('iframe.live');
    await live.locator('body[data-state="live"]').waitFor({ timeout: 15_000 });
    await expect.poll(() => addressOf(live).inputValue(), { timeout: 10_000 }).toBe(world.pages.url('/login'));
    const frame = await liveFrame(page);
    expect(frame.url()).toContain('/live/');
    await page.getByRole('button', { name: 'Save and close' }).click();
    await liveFrameGone(page);
    await page.getByRole('row').filter({ hasText: name }).getByRole('button', { name: 'Log in again' }).click();
    expect(
      await page
        .getByRole('form', { name: `Log in again to ${name}` })
        .getByLabel('Start page')
        .inputValue(),
    ).toBe(world.pages.url('/login'));
  });
});

async function liveFrameGone(page: Page): Promise<void> {
  // Saving writes the profile's browser state first; on a busy machine that takes a while.
  await expect.poll(() => page.locator('iframe.live').count(), { timeout: 30_000 }).toBe(0);
}
