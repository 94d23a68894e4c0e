import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORPUS, corpusHandlers, receivedFields } from '../fixtures/design-systems/corpus.ts';
import { startFormServer, type FormServer } from '../helpers/formServer.ts';
import { memorySecrets } from '../helpers/memorySecrets.ts';
import { startModelServer, type ModelServer, type ScriptedReply } from '../helpers/modelServer.ts';
import { jsonOf, startService, waitForJob, type TestService } from '../helpers/service.ts';

// A bundle whose values are only in prose (no labels, no fields): the portal's assist model reads them in
// one extract_values call (scripted model server, real Anthropic SDK), each with its quote (a value whose
// quote is not in the document is dropped: extract-model.test.ts). The job then fills the real GOV.UK form with them.

const HAIKU = 'anthropic:claude-haiku-4-5';
const FORM = CORPUS.find((f) => f.name === 'govuk-date-of-birth');
const LETTER =
  'To whom it may concern.\nThe applicant, born on 10 December 1990, holds passport 502135326, which was issued on 5 March 2021.\n';

describe("a job from a bundle with the portal's assist model", () => {
  let svc: TestService;
  let forms: FormServer;
  let model: ModelServer;
  beforeAll(async () => {
    model = await startModelServer();
    forms = await startFormServer(corpusHandlers());
    process.env.PORTICO_ANTHROPIC_BASE_URL = model.anthropicBaseUrl;
    svc = await startService(undefined, {
      secrets: memorySecrets({ 'provider/anthropic': 'sk-ant-test' }),
      llmRetry: { maxRetries: 0, timeoutMs: 10_000 },
      jobConcurrency: 1,
    });
  });
  afterAll(async () => {
    await svc?.dispose();
    await model?.close();
    await forms?.close();
    delete process.env.PORTICO_ANTHROPIC_BASE_URL;
  });

  it('reads prose with one extract_values call, each value located by its quote, and fills the form with them', async () => {
    if (!FORM) throw new Error('corpus form govuk-date-of-birth is missing');
    const extract: ScriptedReply = {
      toolCalls: [
        {
          name: 'extract_values',
          input: {
            values: [
              { key: 'passport_no', value: '502135326', document: 'letter.txt', quote: 'holds passport 502135326' },
              {
                key: 'applicant_dob',
                value: '10 December 1990',
                document: 'letter.txt',
                quote: 'born on 10 December 1990',
              },
              {
                key: 'passport_issue_date',
                value: '5 March 2021',
                document: 'letter.txt',
                quote: 'which was issued on 5 March 2021',
              },
            ],
          },
        },
      ],
    };
    // Only the extraction call is expected; any other call (a key mapping) gets an empty mapping.
    model.reset((request) =>
      request.body.tools?.some((t: { name: string }) => t.name === 'extract_values')
        ? extract
        : { toolCalls: [{ name: 'map_fields', input: { mappings: [] } }] },
    );
    const form = new FormData();
    form.append('files', new Blob([LETTER], { type: 'text/plain' }), 'letter.txt');
    const created = await jsonOf(await svc.api('/documents/default', { method: 'POST', body: form }));
    expect(created.status).toBe(200);
    const id = (created.body as { document_bundle_id: string }).document_bundle_id;
    const portal = await svc.send('createPortal', {
      params: { org_id: 'default' },
      body: {
        endpoint_name: 'passport-model',
        start_url: forms.url(FORM.startPath),
        task: 'Apply for a passport',
        form_schema: FORM.formSchema,
        assist_model: HAIKU,
      },
    });
    expect(portal.status).toBe(200);
    const started = await svc.send('startJob', {
      params: { org_id: 'default', endpoint_name: 'passport-model' },
      body: { document_bundle_id: id, orchestrator_model: 'builtin:autofill' },
    });
    expect(started.status).toBe(200);
    const job = await waitForJob(
      svc,
      'passport-model',
      (started.body as { job_id: string }).job_id,
      ['completed', 'failed'],
      90_000,
    );
    expect(job.error ?? null).toBeNull();
    expect(job.status).toBe('completed');
    const post = forms.posts.filter((p) => p.path === FORM.submitPath).at(-1);
    expect(post && receivedFields(post)).toEqual(FORM.expected);
    const extraction = (job.events as Array<{ type: string; data: Record<string, unknown> }>).find(
      (e) => e.type === 'extraction',
    )?.data;
    expect(extraction).toMatchObject({
      extractor: HAIKU,
      missing: [],
      form_data: { applicant_dob: '1990-12-10' },
      sources: { applicant_dob: { document: 'letter.txt', page: null, text: 'born on 10 December 1990' } },
    });
    const calls = model.requests.filter((r) =>
      r.body.tools?.some((t: { name: string }) => t.name === 'extract_values'),
    );
    expect(calls).toHaveLength(1);
    expect(calls[0]?.raw).toContain('born on 10 December 1990');
    // The model's usage is the job's cost.
    expect(Number(job.session_cost_usd)).toBeGreaterThan(0);
  }, 120_000);
});
