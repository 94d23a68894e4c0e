import { describe, expect, it } from 'vitest';
import { snap, useConsoleWorld } from './harness.ts';

describe('console access: the token, the keyboard, organizations', () => {
  const world = useConsoleWorld();

  it('without a valid token it explains where the console URL comes from', async () => {
    const stranger = await world.browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await stranger.goto(`${world.svc.url}/#token=ct_not-the-token`);
      await expect.poll(() => stranger.getByText('The token changes at every start').count()).toBe(1);
      expect(new URL(stranger.url()).hash).toBe('#/jobs');
    } finally {
      await stranger.close();
    }
  });

  it('says when a saved token is stale or a pasted one is refused, and takes a new #token= pasted into the open tab', async () => {
    const tab = await world.browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await tab.goto(`${world.svc.url}/`);
      await tab.getByLabel('Console URL or token').waitFor();
      expect(await tab.getByTestId('token-refused').count()).toBe(0);
      await tab.evaluate(() => localStorage.setItem('portico.consoleToken', 'ct_from-an-earlier-start'));
      await tab.reload();
      await tab
        .getByRole('alert')
        .getByText(/^Portico no longer accepts the token this console was opened with/)
        .waitFor();
      await tab.evaluate(() => {
        window.location.hash = '#token=ct_mistyped';
      });
      await tab
        .getByRole('alert')
        .getByText(/^Portico refused that token/)
        .waitFor();
      expect(new URL(tab.url()).hash).toBe('#/jobs');
      await tab.evaluate((token) => {
        window.location.hash = `#token=${token}`;
      }, world.svc.consoleToken);
      await tab.getByRole('navigation', { name: 'Main' }).waitFor();
      expect(new URL(tab.url()).hash).toBe('#/jobs');
      await tab.getByRole('link', { name: 'Portals' }).click();
      await tab.getByRole('heading', { name: 'Portals' }).waitFor();
      expect(await tab.evaluate(() => localStorage.getItem('portico.consoleToken'))).toBe(world.svc.consoleToken);
    } finally {
      await tab.close();
    }
  });

  it('creates an organization from the sidebar, shows its API key once, and switches to it', async () => {
    const page = await world.openConsole();
    const orgId = world.unique('acme');
    const switcher = page.getByLabel('Organization', { exact: true });
    expect(await switcher.inputValue()).toBe('default');
    await page.getByRole('button', { name: 'New organization' }).click();
    const dialog = page.getByRole('dialog', { name: 'New organization' });
    await dialog.getByLabel('Organization id').fill(orgId);
    await dialog.getByLabel('Display name (optional)').fill('Acme Ltd');
    await dialog.getByRole('button', { name: 'Create organization' }).click();
    const secret = (await dialog.getByTestId('secret').textContent()) ?? '';
    expect(secret).toMatch(/^pk_org_/);
    expect((await world.svc.request('listPortals', { params: { org_id: orgId } }, { key: secret })).status).toBe(200);
    expect((await world.svc.request('listPortals', { params: { org_id: 'default' } }, { key: secret })).status).toBe(
      403,
    );
    await snap(page, 'org-new');
    await dialog.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => switcher.inputValue()).toBe(orgId);
    expect(await page.content()).not.toContain(secret);
    // The whole console now acts for the new org: its lists are its own (empty), and creating it again is refused.
    await page.getByRole('link', { name: 'Portals' }).click();
    await page.getByText('No portals yet').waitFor();
    await page.getByRole('button', { name: 'New organization' }).click();
    await dialog.getByLabel('Organization id').fill(orgId);
    await dialog.getByRole('button', { name: 'Create organization' }).click();
    await dialog.getByText(`Organization '${orgId}' already exists`).waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await switcher.selectOption('default');
    await expect.poll(() => switcher.inputValue()).toBe('default');
  });

  it('is reachable by keyboard alone: Tab to the navigation, open Portals, create a portal, submit with Enter', async () => {
    const kb = await world.openConsole({ width: 1024, height: 700 });
    const endpoint = world.unique('by-keyboard');
    const focused = () =>
      kb.evaluate(() => {
        const el = document.activeElement as HTMLElement | null;
        const labelled = el?.id ? document.querySelector(`label[for="${el.id}"]`)?.textContent : null;
        return `${el?.tagName ?? ''}|${(el?.getAttribute('aria-label') ?? labelled ?? el?.textContent ?? '').trim()}`;
      });
    const tabTo = async (pattern: RegExp, limit = 40): Promise<void> => {
      for (let i = 0; i < limit; i += 1) {
        await kb.keyboard.press('Tab');
        if (pattern.test(await focused())) return;
      }
      throw new Error(`Tab never reached ${pattern}; last focus: ${await focused()}`);
    };
    await tabTo(/^A\|Portals/);
    await kb.keyboard.press('Enter');
    await kb.getByRole('heading', { name: 'Portals' }).waitFor();
    await tabTo(/^A\|(New portal|Create your first portal)/);
    await kb.keyboard.press('Enter');
    await tabTo(/^INPUT\|Endpoint name/);
    await kb.keyboard.type(endpoint);
    await tabTo(/^INPUT\|Start URL/);
    await kb.keyboard.type(world.pages.url('/form'));
    await tabTo(/^TEXTAREA\|Task/);
    await kb.keyboard.type('script:visit');
    await tabTo(/^BUTTON\|Create portal/, 80);
    await kb.keyboard.press('Enter');
    await kb.getByRole('form', { name: 'Run a job' }).waitFor();
    expect(
      (await world.svc.request('getPortal', { params: { org_id: 'default', endpoint_name: endpoint } })).status,
    ).toBe(200);
  });
});
