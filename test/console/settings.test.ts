import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { contrastOf, makePortal, runJob, snap, useConsoleWorld } from './harness.ts';

/** A webhook receiver that answers 500 to its first request and 200 to every later one. */
async function startFlakyReceiver(): Promise<{ url: string; received: string[]; close(): Promise<void> }> {
  const received: string[] = [];
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push(String(req.headers['x-webhook-attempt']));
      res.writeHead(received.length === 1 ? 500 : 200).end(received.length === 1 ? 'not yet' : 'ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('settings: keys, webhooks, system, model providers', () => {
  const world = useConsoleWorld({ modelServer: true });

  it('creates an API key shown once, and revokes it', async () => {
    const page = await world.openConsole({ hash: '#/settings' });
    await page.getByRole('button', { name: 'Create API key' }).click();
    const secret = (await page.getByTestId('secret').textContent()) ?? '';
    expect(secret).toMatch(/^pk_org_/);
    expect((await world.svc.request('listPortals', { params: { org_id: 'default' } }, { key: secret })).status).toBe(
      200,
    );
    await snap(page, 'settings-key-created');
    await page.getByRole('button', { name: 'Done' }).click();
    await page.reload();
    await page.getByRole('table', { name: 'API keys' }).waitFor();
    expect(await page.content()).not.toContain(secret);
    const row = page
      .getByRole('table', { name: 'API keys' })
      .getByRole('row', { name: new RegExp(secret.slice(0, 13)) });
    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.getByRole('button', { name: 'Revoke key' }).click();
    await expect
      .poll(
        async () => (await world.svc.request('listPortals', { params: { org_id: 'default' } }, { key: secret })).status,
      )
      .toBe(401);
  });

  it('generates a webhook signing key shown once, then rotates and revokes it', async () => {
    const page = await world.openConsole({ hash: '#/settings' });
    const webhooks = page.getByRole('region', { name: 'Webhooks' });
    await page
      .getByTestId('webhook-key-status')
      .getByText(/^(No signing key|Active key)/)
      .waitFor();
    await webhooks.getByRole('button', { name: /^(Generate|Rotate) key$/ }).click();
    const secret = (await page.getByTestId('secret').textContent()) ?? '';
    expect(secret.length).toBeGreaterThan(20);
    await page
      .getByTestId('webhook-key-status')
      .getByText(/^Active key/)
      .waitFor();
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.content()).not.toContain(secret);
    await page.getByRole('button', { name: 'Rotate key' }).click();
    const rotated = (await page.getByTestId('secret').textContent()) ?? '';
    expect(rotated).not.toBe(secret);
    await page.getByRole('button', { name: 'Done' }).click();
    await snap(page, 'settings');
    await webhooks.getByRole('button', { name: 'Revoke', exact: true }).click();
    await webhooks.getByRole('button', { name: 'Revoke signing key' }).click();
    await page
      .getByTestId('webhook-key-status')
      .getByText(/^No signing key/)
      .waitFor();
  });

  it('settings show the data folder and apply job concurrency', async () => {
    const page = await world.openConsole({ hash: '#/settings' });
    await expect.poll(() => page.getByTestId('data-dir').textContent(), { timeout: 10_000 }).toBe(world.svc.dataDir); // (10 s: the settings load is slow on a busy machine)
    // The reload after a save arrives late (as on a busy machine): it is held until the person has typed in
    // another field, which must survive it. What shows it was applied: record_video, changed meanwhile through
    // the API, is what the reload brings.
    const recording = (await world.api.call('getSettings')).record_video;
    let reloads = 0;
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/admin/settings', async (route) => {
      if (route.request().method() === 'GET') {
        reloads += 1;
        await held;
      }
      await route.continue();
    });
    try {
      await page.getByLabel('Jobs at once').fill('4');
      await page.getByLabel('Jobs at once').press('Enter');
      await page.getByLabel('Chromium path').fill('/nonexistent/chromium');
      await page.getByText('Job concurrency saved').waitFor();
      await expect.poll(() => reloads).toBeGreaterThan(0);
      await world.api.call('updateSettings', { body: { record_video: !recording } });
      release();
      await expect
        .poll(() => page.getByLabel('Record jobs and sessions by default').isChecked(), {
          message: 'the held reload to be applied (the record box shows the setting changed meanwhile)',
        })
        .toBe(!recording);
      expect(await page.getByLabel('Chromium path').inputValue()).toBe('/nonexistent/chromium');
    } finally {
      release();
      await page.unroute('**/admin/settings');
      await world.api.call('updateSettings', { body: { record_video: recording } });
    }
    expect((await world.api.call('getSettings')).job_concurrency).toBe(4);
    await page.getByRole('button', { name: 'Check and save' }).click();
    await page
      .getByText('body.chromium_path: /nonexistent/chromium does not exist or is not an executable file')
      .waitFor();
  });

  it("tests a model provider key: connected, then the provider's 401 in plain words", async () => {
    const page = await world.openConsole({ hash: '#/settings' });
    const row = page.locator('li.provider', { hasText: 'Anthropic' });
    await row.getByLabel('Anthropic API key').fill('sk-ant-console');
    await row.getByRole('button', { name: 'Save' }).click();
    await row.getByText('key stored').waitFor();
    try {
      expect(await contrastOf(row.getByText('key stored'))).toBeGreaterThanOrEqual(4.5);
      world.model.reset([{ text: 'OK' }]);
      await row.getByRole('button', { name: 'Test connection' }).click();
      await row.getByText(`Connected. Anthropic accepted the key at ${world.model.anthropicBaseUrl}`).waitFor();
      expect(JSON.stringify(world.model.requests[0]?.headers)).toContain('sk-ant-console');
      world.model.reset([{ status: 401, error: 'invalid x-api-key' }]);
      await row.getByRole('button', { name: 'Test connection' }).click();
      await row.getByText('Not connected. Anthropic rejected the key (HTTP 401): invalid x-api-key').waitFor();
      await row.scrollIntoViewIfNeeded();
      await snap(page, 'settings-providers');
    } finally {
      await row.getByRole('button', { name: 'Remove' }).click();
      await row.getByText('no key').waitFor();
    }
  });

  it("sets an OpenAI-compatible server's base URL (no key) and tests it; the env override is shown as such", async () => {
    const page = await world.openConsole({ hash: '#/settings' });
    await page
      .locator('li.provider', { hasText: 'Anthropic' })
      .getByText(`Calls ${world.model.anthropicBaseUrl} (from PORTICO_ANTHROPIC_BASE_URL`)
      .waitFor();
    const row = page.locator('li.provider', { hasText: 'OpenAI-compatible server' });
    await row.getByText('No base URL yet').waitFor();
    // The base URL is required here, the key is not.
    expect(await row.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);
    const url = row.getByLabel('OpenAI-compatible server base URL');
    await url.fill('ftp://127.0.0.1/v1');
    await row.getByRole('button', { name: 'Save' }).click();
    await row.getByText('body.base_url: must be an absolute http(s) URL').waitFor();
    await url.fill(world.model.openaiBaseUrl);
    await row.getByRole('button', { name: 'Save' }).click();
    await row.getByText(`Calls ${world.model.openaiBaseUrl} (saved base URL).`).waitFor();
    const listed = await world.api.call('listProviders');
    expect(listed.providers.find((p) => p.provider === 'openai-compatible')).toEqual({
      provider: 'openai-compatible',
      configured: false,
      base_url: world.model.openaiBaseUrl,
      base_url_source: 'stored',
    });
    world.model.reset([]);
    await row.getByRole('button', { name: 'Test connection' }).click();
    await row.getByText(`Connected. ${world.model.openaiBaseUrl} answered and lists 1 model`).waitFor();
    await row.scrollIntoViewIfNeeded();
    await snap(page, 'settings-provider-base-url');
  });

  it('shows a webhook delivery with its attempts and redelivers it', async () => {
    const receiver = await startFlakyReceiver();
    try {
      await world.api.call('createWebhookKey', { params: { org_id: 'default' } });
      const endpoint = world.unique('hooked');
      await makePortal(world, endpoint, 'script:visit', { webhook_url: receiver.url });
      await runJob(world, endpoint, { form_data: {} }, ['completed']);
      // The first attempt gets a 500; the retry a second later succeeds.
      await expect.poll(() => receiver.received.length, { timeout: 15_000 }).toBe(2);
      const page = await world.openConsole({ hash: '#/settings' });
      const webhooks = page.getByRole('region', { name: 'Webhooks' });
      const table = webhooks.getByRole('table', { name: 'Webhook deliveries' });
      const row = table.getByRole('row', { name: new RegExp(receiver.url.replace(/[.]/g, '\\.')) });
      await row.getByText(/^succeeded · 200$/).waitFor({ timeout: 10_000 });
      await row.getByRole('button', { name: 'Attempts' }).click();
      const attempts = webhooks.getByRole('list', { name: 'Attempts' });
      await attempts.getByText(/^Attempt 1 · .*: HTTP 500 in \d+ ms$/).waitFor();
      await attempts.getByText(/^Attempt 2 · .*: HTTP 200 in \d+ ms$/).waitFor();
      await row.getByRole('button', { name: 'Redeliver' }).click();
      await expect.poll(() => receiver.received, { timeout: 10_000 }).toEqual(['1', '2', '1']);
      await attempts.getByText(/^Redelivery, attempt 1 · .*: HTTP 200 in \d+ ms$/).waitFor({ timeout: 10_000 });
      expect(await row.locator('td.num').textContent()).toBe('3');
      await table.scrollIntoViewIfNeeded();
      await snap(page, 'settings-webhook-deliveries');
    } finally {
      await receiver.close();
    }
  });
});
