import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORPUS, corpusHandlers, receivedFields } from '../fixtures/design-systems/corpus.ts';
import { startFormServer, type FormServer } from '../helpers/formServer.ts';
import { filledFormPdf } from './builders.ts';
import { jsonOf, startService, waitForJob, type TestService } from '../helpers/service.ts';

// End to end: a filled AcroForm PDF (pdf-lib) and a CSV go up as a bundle; a job on a portal whose form is
// the GOV.UK date-of-birth form of the design-system corpus starts from the bundle alone, fills and submits
// the form with the values read, and its events say where each value came from.

const FORM = CORPUS.find((f) => f.name === 'govuk-date-of-birth');

function filesForm(files: Array<{ name: string; data: Buffer; type: string }>): FormData {
  const form = new FormData();
  for (const f of files) form.append('files', new Blob([new Uint8Array(f.data)], { type: f.type }), f.name);
  return form;
}

describe('a job started from a document bundle fills a real form with the values read', () => {
  let svc: TestService;
  let forms: FormServer;
  beforeAll(async () => {
    forms = await startFormServer(corpusHandlers());
    svc = await startService(undefined, { jobConcurrency: 1 });
  });
  afterAll(async () => {
    await svc?.dispose();
    await forms?.close();
  });

  async function bundle(files: Array<{ name: string; data: Buffer; type: string }>, org = 'default'): Promise<string> {
    const created = await jsonOf(await svc.api(`/documents/${org}`, { method: 'POST', body: filesForm(files) }));
    expect(created.status).toBe(200);
    return (created.body as { document_bundle_id: string }).document_bundle_id;
  }

  /** Polls GET until the bundle is read (real readers run off the request path). */
  async function settled(id: string): Promise<void> {
    for (let i = 0; i < 1200; i += 1) {
      const bundle = (await (
        await svc.request('getDocumentBundle', { params: { org_id: 'default', document_bundle_id: id } })
      ).json()) as { status: string; error: string | null };
      if (bundle.status === 'completed') return;
      if (bundle.status === 'failed') throw new Error(`bundle failed: ${bundle.error}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('bundle still processing');
  }

  it('AcroForm PDF + CSV → bundle → job → the form is submitted with the extracted values; sources are in the events', async () => {
    if (!FORM) throw new Error('corpus form govuk-date-of-birth is missing');
    const pdf = await filledFormPdf({ 'Passport number': '502135326', 'Date of birth': '10 December 1990' });
    const csv = Buffer.from('Passport issue date,Surname\n5 March 2021,Hamilton\n');
    const id = await bundle([
      { name: 'passport-form.pdf', data: pdf, type: 'application/pdf' },
      { name: 'issue.csv', data: csv, type: 'text/csv' },
    ]);
    const portal = await svc.send('createPortal', {
      params: { org_id: 'default' },
      body: {
        endpoint_name: 'passport',
        start_url: forms.url(FORM.startPath),
        task: 'Apply for a passport',
        form_schema: { ...FORM.formSchema, required: ['passport_no', 'applicant_dob', 'passport_issue_date'] },
      },
    });
    expect(portal.status).toBe(200);

    // A job may start while the bundle is processing (it waits); the preview needs it read.
    const early = await svc.send('previewDocumentExtraction', {
      params: { org_id: 'default', document_bundle_id: id },
      query: { endpoint_name: 'passport' },
    });
    expect([200, 409]).toContain(early.status);
    await settled(id);
    // The preview says what a job would get, with each value's source.
    const preview = await svc.send('previewDocumentExtraction', {
      params: { org_id: 'default', document_bundle_id: id },
      query: { endpoint_name: 'passport' },
    });
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({
      form_data: { passport_no: '502135326', applicant_dob: '1990-12-10', passport_issue_date: '2021-03-05' },
      sources: {
        passport_no: { document: 'passport-form.pdf', page: 1 },
        applicant_dob: { document: 'passport-form.pdf', page: 1 },
        passport_issue_date: { document: 'issue.csv' },
      },
      missing: [],
    });

    const started = await svc.send('startJob', {
      params: { org_id: 'default', endpoint_name: 'passport' },
      body: { document_bundle_id: id, orchestrator_model: 'builtin:autofill' },
    });
    expect(started.status).toBe(200);
    const job = await waitForJob(
      svc,
      'passport',
      (started.body as { job_id: string }).job_id,
      ['completed', 'failed'],
      90_000,
    );
    expect(job.error ?? null).toBeNull();
    expect(job.status).toBe('completed');
    const post = forms.posts.filter((p) => p.path === FORM.submitPath).at(-1);
    expect(post && receivedFields(post)).toEqual(FORM.expected);
    const events = job.events as Array<{ type: string; data: Record<string, unknown> }>;
    const extraction = events.find((e) => e.type === 'extraction');
    expect(extraction?.data).toMatchObject({
      document_bundle_id: id,
      extractor: 'builtin',
      missing: [],
      // A passport number is personal data, not a secret: shown with its source (secret keys are hidden: job-from-bundle-rules).
      form_data: { passport_no: '502135326', applicant_dob: '1990-12-10', passport_issue_date: '2021-03-05' },
      hidden_keys: [],
      sources: {
        passport_no: { document: 'passport-form.pdf', page: 1 },
        applicant_dob: { document: 'passport-form.pdf', page: 1 },
        passport_issue_date: { document: 'issue.csv' },
      },
    });
    const sources = (extraction?.data.sources ?? {}) as Record<string, { text: string }>;
    expect(String(sources.applicant_dob?.text)).toMatch(/10 December 1990/);
  }, 120_000);

  it("an unknown bundle, or another org's, is a 404 and starts nothing; a required value no document gives fails the job naming it", async () => {
    const other = await svc.send('startJob', {
      params: { org_id: 'default', endpoint_name: 'passport' },
      body: { document_bundle_id: '00000000-0000-4000-8000-000000000000' },
    });
    expect(other.status).toBe(404);
    expect(other.body).toEqual({ detail: expect.stringMatching(/not found/i) });
    const preview = await svc.send('previewDocumentExtraction', {
      params: { org_id: 'default', document_bundle_id: '00000000-0000-4000-8000-000000000000' },
      query: { endpoint_name: 'passport' },
    });
    expect(preview.status).toBe(404);
    const noPortal = await svc.send('previewDocumentExtraction', {
      params: {
        org_id: 'default',
        document_bundle_id: await bundle([
          { name: 'n.txt', data: Buffer.from('Passport number: 1'), type: 'text/plain' },
        ]),
      },
      query: { endpoint_name: 'nope' },
    });
    expect(noPortal.status).toBe(404);

    const id = await bundle([
      { name: 'note.txt', data: Buffer.from('Passport number: 502135326\n'), type: 'text/plain' },
    ]);
    // Bad queries are a 422 {detail}; another org cannot use (or preview) this org's bundle.
    const noEndpoint = await svc.send('previewDocumentExtraction', {
      params: { org_id: 'default', document_bundle_id: id },
    });
    expect(noEndpoint.status).toBe(422);
    expect(noEndpoint.body).toEqual({ detail: expect.stringContaining('endpoint_name') });
    const { cli } = await import('../helpers/cli.ts');
    const rival = String((await cli(svc.dataDir, ['org', 'create', 'rival-docs'])).json.api_key);
    const rivalPortal = await svc.send(
      'createPortal',
      {
        params: { org_id: 'rival-docs' },
        body: {
          endpoint_name: 'passport',
          start_url: forms.url(FORM?.startPath ?? '/'),
          task: 't',
          form_schema: FORM?.formSchema,
        },
      },
      { key: rival },
    );
    expect(rivalPortal.status).toBe(200);
    expect(
      await svc.send(
        'startJob',
        { params: { org_id: 'rival-docs', endpoint_name: 'passport' }, body: { document_bundle_id: id } },
        { key: rival },
      ),
    ).toEqual({ status: 404, body: { detail: 'Document bundle not found' } });
    expect(
      (
        await svc.request(
          'previewDocumentExtraction',
          { params: { org_id: 'rival-docs', document_bundle_id: id }, query: { endpoint_name: 'passport' } },
          { key: rival },
        )
      ).status,
    ).toBe(404);
    const started = await svc.send('startJob', {
      params: { org_id: 'default', endpoint_name: 'passport' },
      body: { document_bundle_id: id, orchestrator_model: 'builtin:autofill' },
    });
    expect(started.status).toBe(200);
    const job = await waitForJob(
      svc,
      'passport',
      (started.body as { job_id: string }).job_id,
      ['completed', 'failed'],
      60_000,
    );
    expect(job.status).toBe('failed');
    expect(job.error).toBe(
      "The documents do not settle 'applicant_dob', 'passport_issue_date', which the form requires; start the job with human_in_the_loop to answer, or with form_data",
    );
    // Nothing was submitted for the failed job: the one final POST is the first test's.
    expect(forms.posts.filter((p) => p.path === FORM?.submitPath)).toHaveLength(1);
  }, 120_000);
  it('with a human in the loop, a required value no document gives is asked for by name, and the answer fills the form', async () => {
    if (!FORM) throw new Error('corpus form govuk-date-of-birth is missing');
    const id = await bundle([
      {
        name: 'note.txt',
        data: Buffer.from('Passport number: 502135326\nDate of birth: 10 December 1990\n'),
        type: 'text/plain',
      },
    ]);
    const started = await svc.send('startJob', {
      params: { org_id: 'default', endpoint_name: 'passport' },
      body: { document_bundle_id: id, orchestrator_model: 'builtin:autofill', human_in_the_loop: true },
    });
    expect(started.status).toBe(200);
    const jobId = (started.body as { job_id: string }).job_id;
    const waiting = await waitForJob(svc, 'passport', jobId, ['waiting_for_input', 'failed', 'completed'], 60_000);
    expect(waiting.status).toBe('waiting_for_input');
    const question = (waiting.events as Array<{ type: string; data: Record<string, unknown> }>).find(
      (e) => e.type === 'question',
    )?.data;
    expect(question).toMatchObject({ question: 'What is Issue date of current passport?', options: [] });
    expect(String(question?.message)).toContain('passport_issue_date');
    const answered = await svc.send('answerJob', {
      params: { org_id: 'default', endpoint_name: 'passport' },
      query: { job_id: jobId },
      body: { question_id: question?.question_id, answer: '5 March 2021' },
    });
    expect(answered.status).toBe(200);
    const job = await waitForJob(svc, 'passport', jobId, ['completed', 'failed'], 90_000);
    expect(job.error ?? null).toBeNull();
    expect(job.status).toBe('completed');
    const post = forms.posts.filter((p) => p.path === FORM.submitPath).at(-1);
    expect(post && receivedFields(post)).toEqual(FORM.expected);
  }, 120_000);
});
