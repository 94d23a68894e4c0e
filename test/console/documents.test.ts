import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filledFormPdf } from '../documents/builders.ts';
import { page as formPage, startFormServer, type FormServer } from '../helpers/formServer.ts';
import { seriousAxeViolations, snap, useConsoleWorld } from './harness.ts';

// End to end through the console: a real PDF (pdf-lib, filled AcroForm fields) and a CSV are uploaded as a
// bundle, the page shows each document as read, the extraction preview shows each value with its source and
// the key the documents disagree on, and "Start job from this bundle" runs built-in autofill on a real form.

const APPLY_FORM = formPage(
  `<h1>Apply</h1><form method="post" action="/submit/apply">
  <p><label for="full_name">Full name</label> <input id="full_name" name="full_name"></p>
  <p><label for="passport_number">Passport number</label> <input id="passport_number" name="passport_number"></p>
  <p><label for="city">City</label> <input id="city" name="city"></p>
  <p><label for="phone">Phone</label> <input id="phone" name="phone"></p>
  <p><label for="pin">Security PIN</label> <input id="pin" name="pin"></p>
  <button type="submit">Submit application</button></form>`,
  'Apply',
);

describe('documents: upload a bundle, see what was read and extracted, start a job from it', () => {
  const world = useConsoleWorld({ realAgents: true });
  let forms: FormServer;
  beforeAll(async () => {
    forms = await startFormServer({
      '/apply': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(APPLY_FORM);
      },
    });
  });
  afterAll(async () => {
    await forms?.close();
  });

  it('uploads a PDF and a CSV, previews each value with its source, starts the job and shows the sources on the job page, then deletes the bundle', async () => {
    const endpoint = world.unique('passport');
    await world.api.call('createPortal', {
      params: { org_id: 'default' },
      body: {
        endpoint_name: endpoint,
        start_url: forms.url('/apply'),
        task: 'Apply for a passport',
        form_schema: {
          type: 'object',
          properties: {
            full_name: { type: 'string', title: 'Full name' },
            passport_number: { type: 'string', title: 'Passport number' },
            city: { type: 'string', title: 'City' },
            phone: { type: 'string', title: 'Phone' },
            pin: { type: 'string', title: 'Security PIN' },
          },
          required: ['full_name', 'passport_number', 'city'],
        },
      },
    });
    const pdfPath = join(world.scratch, 'passport-form.pdf');
    writeFileSync(
      pdfPath,
      await filledFormPdf({
        'Full name': 'Ada Lovelace',
        'Passport number': '502135326',
        Phone: '020 7946 0001',
        'Security PIN': '4321',
      }),
    );
    const csvPath = join(world.scratch, 'address.csv');
    const csv = 'City,Phone\nLeeds,0113 496 0002\n';
    writeFileSync(csvPath, csv);

    const page = await world.openConsole();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Documents' }).click();
    const upload = page.getByRole('form', { name: 'Upload documents' });
    await upload.getByLabel(/^Files/).setInputFiles([pdfPath, csvPath]);
    await upload.getByRole('button', { name: 'Upload' }).click();

    // The bundle's own address: reloadable, and its status says when reading is done.
    await expect.poll(() => page.url()).toMatch(/#\/documents\/[0-9a-f-]{36}$/);
    const bundleId = page.url().split('/').at(-1) ?? '';
    await page.getByTestId('bundle-status').getByText('Read', { exact: true }).waitFor({ timeout: 30_000 });
    // The Documents page lists the bundle (GET /documents/{org_id}); its row leads back to it.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Documents' }).click();
    const bundleRow = page
      .getByRole('table', { name: 'Document bundles' })
      .getByRole('row')
      .filter({ hasText: 'passport-form.pdf, address.csv' });
    // The list replaces the bundle's page once the hash route changes: wait for its row, not the click.
    await bundleRow.waitFor();
    expect((await bundleRow.getByRole('cell').allTextContents()).slice(1)).toEqual([
      'Read',
      'passport-form.pdf, address.csv',
    ]);
    await bundleRow.getByRole('link').click();
    await expect.poll(() => page.url()).toMatch(new RegExp(`#/documents/${bundleId}$`));
    await page.getByTestId('bundle-status').getByText('Read', { exact: true }).waitFor();
    const docs = page.getByRole('table', { name: 'Documents in the bundle' });
    const pdfRow = docs.getByRole('row').filter({ hasText: 'passport-form.pdf' });
    expect(await pdfRow.getByRole('cell').allTextContents()).toEqual([
      'passport-form.pdf',
      'application/pdf',
      expect.stringMatching(/KB$/),
      '1',
      expect.stringMatching(/^\d+$/),
      '',
    ]);
    const csvRow = docs.getByRole('row').filter({ hasText: 'address.csv' });
    expect(await csvRow.getByRole('cell').allTextContents()).toEqual([
      'address.csv',
      'text/csv',
      `${Buffer.byteLength(csv)} B`,
      expect.any(String),
      expect.stringMatching(/^\d+$/),
      '',
    ]);
    await snap(page, 'documents-bundle');

    // The preview: what a job on this portal would get, each value beside its source; the phone is in both documents, differently.
    await page.getByRole('form', { name: 'Preview the extraction' }).getByLabel('Portal').selectOption(endpoint);
    await page.getByRole('button', { name: 'Preview extraction' }).click();
    const preview = page.getByRole('region', { name: `What a job on ${endpoint} would get` });
    const values = preview.getByRole('table', { name: 'Values read from the documents' });
    const nameRow = values.getByRole('row').filter({ hasText: 'full_name' });
    expect(await nameRow.getByRole('cell').nth(1).textContent()).toBe('Ada Lovelace');
    expect(await nameRow.getByRole('cell').nth(2).textContent()).toMatch(/^passport-form\.pdf, page 1.*Ada Lovelace/);
    const cityRow = values.getByRole('row').filter({ hasText: 'city' });
    expect(await cityRow.getByRole('cell').nth(1).textContent()).toBe('Leeds');
    expect(await cityRow.getByRole('cell').nth(2).textContent()).toMatch(/^address\.csv.*Leeds/);
    expect(await values.getByRole('row').filter({ hasText: 'phone' }).count()).toBe(0);
    const missing = preview.getByRole('list', { name: 'Missing values' });
    expect(await missing.getByRole('listitem').allTextContents()).toEqual([expect.stringMatching(/^phone: .+/)]);
    const api = await world.api.call('previewDocumentExtraction', {
      params: { org_id: 'default', document_bundle_id: bundleId },
      query: { endpoint_name: endpoint },
    });
    expect(api.form_data).toEqual({
      full_name: 'Ada Lovelace',
      passport_number: '502135326',
      city: 'Leeds',
      pin: '4321',
    });
    expect(await missing.getByRole('listitem').first().textContent()).toBe(`phone: ${api.reasons.phone}`);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await snap(page, 'documents-preview');

    // Without asking, the unsettled optional phone is left out; the job fills and submits the form from the bundle alone.
    await preview.getByLabel('Ask me for values the documents do not settle').uncheck();
    await preview.getByRole('button', { name: 'Start job from this bundle' }).click();
    await expect.poll(() => page.url()).toMatch(new RegExp(`#/jobs/${endpoint}/[0-9a-f-]{36}$`));
    const jobId = page.url().split('/').at(-1) ?? '';
    const final = async () => {
      const job = await world.api.call('getJobStatus', {
        params: { org_id: 'default', endpoint_name: endpoint },
        query: { job_id: jobId },
      });
      return `${job.status}${job.error !== null ? `: ${job.error}` : ''}`;
    };
    await expect.poll(final, { timeout: 90_000 }).toMatch(/^(completed|failed|cancelled)/);
    expect(await final()).toBe('completed');
    await page.locator('h1 .status').getByText('Completed', { exact: true }).waitFor();
    expect(forms.postsTo('/submit/apply').map((p) => p.fields)).toEqual([
      { full_name: 'Ada Lovelace', passport_number: '502135326', city: 'Leeds', phone: '', pin: '4321' },
    ]);
    const read = page.getByRole('region', { name: 'Read from documents' });
    const jobValues = read.getByRole('table', { name: 'Values read from the documents' });
    const jobName = jobValues.getByRole('row').filter({ hasText: 'full_name' });
    expect(await jobName.getByRole('cell').nth(1).textContent()).toBe('Ada Lovelace');
    expect(await jobName.getByRole('cell').nth(2).textContent()).toMatch(/^passport-form\.pdf, page 1.*Ada Lovelace/);
    const jobCity = jobValues.getByRole('row').filter({ hasText: 'city' });
    expect(await jobCity.getByRole('cell').nth(2).textContent()).toMatch(/^address\.csv.*Leeds/);
    // A passport number is personal data, shown with its source like a name.
    const passportRow = jobValues.getByRole('row').filter({ hasText: 'passport_number' });
    expect(await passportRow.getByRole('cell').nth(1).textContent()).toBe('502135326');
    // A PIN is a secret: the job's events keep neither it nor its quoted text, and the page says so.
    const pinRow = jobValues.getByRole('row').filter({ hasText: 'pin' });
    expect(await pinRow.getByRole('cell').nth(1).textContent()).toBe('hidden (secret)');
    expect(await pinRow.textContent()).not.toContain('4321');
    expect(
      await read.getByRole('list', { name: 'Not settled by the documents' }).getByRole('listitem').allTextContents(),
    ).toEqual([`phone: ${api.reasons.phone}`]);
    await snap(page, 'documents-job');

    // Delete: the bundle and its files go; its address then says it is not found.
    await read.getByRole('link', { name: 'Open the document bundle' }).click();
    await expect.poll(() => page.url()).toMatch(new RegExp(`#/documents/${bundleId}$`));
    await page.getByRole('button', { name: 'Delete bundle' }).click();
    await page.getByRole('button', { name: 'Yes, delete the bundle and its files' }).click();
    await expect.poll(() => page.url()).toMatch(/#\/documents$/);
    await page.getByRole('region', { name: 'Document bundles' }).getByText('No bundles yet.').waitFor();
    await expect
      .poll(
        async () =>
          (
            await fetch(`${world.svc.url}/documents/default/${bundleId}`, {
              headers: { 'x-console-token': world.svc.consoleToken },
            })
          ).status,
      )
      .toBe(404);
    await page.evaluate((hash) => {
      window.location.hash = hash;
    }, `#/documents/${bundleId}`);
    await page.getByText('Document bundle not found').waitFor();
  }, 180_000);

  it('shows why a bundle could not be read', async () => {
    const broken = join(world.scratch, 'broken.pdf');
    writeFileSync(broken, '%PDF-1.7\nthis is not really a PDF\n');
    const page = await world.openConsole({ hash: '#/documents' });
    const upload = page.getByRole('form', { name: 'Upload documents' });
    await upload.getByLabel(/^Files/).setInputFiles(broken);
    await upload.getByRole('button', { name: 'Upload' }).click();
    await page
      .getByTestId('bundle-status')
      .getByText('Could not be read', { exact: true })
      .waitFor({ timeout: 30_000 });
    await page
      .getByRole('alert')
      .filter({ hasText: 'The bundle could not be read.' })
      .getByText(/broken\.pdf: /)
      .waitFor();
    expect(await page.getByRole('button', { name: 'Preview extraction' }).count()).toBe(0);
  });

  it('shows a hostile file name as characters, never as markup', async () => {
    const page = await world.openConsole({ hash: '#/documents' });
    const upload = page.getByRole('form', { name: 'Upload documents' });
    // No slash (the service keeps only a name's last path segment) and no quote (browsers send it as %22).
    const name = '<img src=x onerror=document.title=1><b>bold.csv';
    await upload
      .getByLabel(/^Files/)
      .setInputFiles({ name, mimeType: 'text/csv', buffer: Buffer.from('City\nLeeds\n') });
    await upload.getByRole('button', { name: 'Upload' }).click();
    await page.getByTestId('bundle-status').getByText('Read', { exact: true }).waitFor({ timeout: 30_000 });
    const docs = page.getByRole('table', { name: 'Documents in the bundle' });
    expect(await docs.getByRole('cell').first().textContent()).toBe(name);
    expect(await docs.locator('img, b').count()).toBe(0);
    expect(await page.title()).not.toBe('1');
  });
});
