import { describe, expect, it } from 'vitest';
import { makePortal, snap, useConsoleWorld } from './harness.ts';

describe("portal editor: the advanced section and the server's word on each field (console item 10)", () => {
  const world = useConsoleWorld();

  it('keeps the advanced section open when its only filled field, the webhook URL, is cleared', async () => {
    const endpoint = world.unique('hooked');
    await makePortal(world, endpoint, 'script:visit', { webhook_url: 'https://example.org/hook' });
    const page = await world.openConsole({ hash: `#/portals/${endpoint}/edit` });
    const more = page.locator('details.more');
    await expect.poll(() => more.evaluate((d: HTMLDetailsElement) => d.open)).toBe(true);
    await page.getByLabel('Webhook URL (optional)').fill('');
    await page.getByLabel('Webhook URL (optional)').press('Tab');
    expect(await more.evaluate((d: HTMLDetailsElement) => d.open)).toBe(true);
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect
      .poll(
        async () =>
          (await world.api.call('getPortal', { params: { org_id: 'default', endpoint_name: endpoint } })).webhook_url,
      )
      .toBeNull();
  });

  it('shows a schema the server refuses next to the schema, in words, and stops calling it valid', async () => {
    const endpoint = world.unique('schema');
    await makePortal(world, endpoint, 'script:visit');
    const page = await world.openConsole({ hash: `#/portals/${endpoint}/edit` });
    const schema = page.getByLabel(/^Form schema/);
    // Well-formed to the console's own checks; Ajv (the server) refuses a negative minLength.
    await schema.fill(JSON.stringify({ type: 'object', properties: { code: { type: 'string', minLength: -1 } } }));
    const verdict = page.getByTestId('portal-form-schema-check');
    await verdict.getByText('Valid JSON Schema').waitFor();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await verdict
      .getByText(
        'Portico refused this schema: Form schema: not a valid JSON Schema: properties.code.minLength must be >= 0',
      )
      .waitFor();
    expect(await schema.getAttribute('aria-invalid')).toBe('true');
    expect(await verdict.textContent()).not.toMatch(/^Valid/);
    expect(await page.locator('body').textContent()).not.toContain('body.form_schema');
    await page.getByRole('alert').getByText('one field needs a change; see the message under it.').waitFor();
    await snap(page, 'portal-editor-schema-refused');
    // Editing the text hands the verdict back to the editor, which judges the new text.
    await schema.fill(JSON.stringify({ type: 'object', properties: { code: { type: 'string', minLength: 2 } } }));
    await verdict.getByText('Valid JSON Schema').waitFor();
    expect(await schema.getAttribute('aria-invalid')).toBe('false');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('form', { name: 'Run a job' }).waitFor();
  });

  it('puts a refused start URL under the Start URL field, linked to it', async () => {
    const endpoint = world.unique('url');
    await makePortal(world, endpoint, 'script:visit');
    const page = await world.openConsole({ hash: `#/portals/${endpoint}/edit` });
    const startUrl = page.getByLabel('Start URL');
    await startUrl.fill('ftp://nope');
    await startUrl.evaluate((input: HTMLInputElement) => input.form?.setAttribute('novalidate', ''));
    await page.getByRole('button', { name: 'Save changes' }).click();
    const message = page.locator('#portal-start-url-error');
    await message.getByText('Start URL must be an absolute http(s) URL.').waitFor();
    expect(await startUrl.getAttribute('aria-describedby')).toBe('portal-start-url-error');
    expect(await page.locator('body').textContent()).not.toContain('body.start_url');
  });
});
