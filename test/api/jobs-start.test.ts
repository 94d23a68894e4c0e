import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptedRegistry } from '../helpers/scriptedAgents.ts';
import { startService, type TestService } from '../helpers/service.ts';

/** Start validates everything before anything is queued. */
describe('POST /jobs/{org_id}/{endpoint_name}/start validation', () => {
  let svc: TestService;
  const start = (json: unknown, endpoint = 'strict') =>
    svc.send('startJob', { params: { org_id: 'default', endpoint_name: endpoint }, body: json });
  const jobCount = async () =>
    ((await svc.send('listJobs', { params: { org_id: 'default' } })).body as { total: number }).total;

  beforeAll(async () => {
    svc = await startService(undefined, { agents: scriptedRegistry, jobConcurrency: 0 });
    await svc.send('createPortal', {
      params: { org_id: 'default' },
      body: {
        endpoint_name: 'strict',
        start_url: 'http://127.0.0.1:9/',
        task: 'script:visit',
        form_schema: {
          type: 'object',
          properties: { email: { type: 'string', format: 'email' }, age: { type: 'integer', minimum: 18 } },
          required: ['email'],
        },
      },
    });
  });
  afterAll(() => svc.dispose());

  const cases: [string, unknown, number, string | RegExp][] = [
    ['neither form_data nor document_bundle_id', {}, 422, 'body: send exactly one of form_data or document_bundle_id'],
    [
      'both form_data and document_bundle_id',
      { form_data: { email: 'a@b.co' }, document_bundle_id: '00000000-0000-4000-8000-000000000000' },
      422,
      'body: form_data and document_bundle_id are mutually exclusive; send exactly one',
    ],
    [
      'an unknown document bundle',
      { document_bundle_id: '00000000-0000-4000-8000-000000000000' },
      404,
      'Document bundle not found',
    ],
    ['form_data missing a required key', { form_data: { age: 30 } }, 422, 'body.form_data.email: is required'],
    [
      'form_data with several bad fields',
      { form_data: { email: 'nope', age: 12 } },
      422,
      /body\.form_data\.email: must match format "email"; body\.form_data\.age: must be >= 18/,
    ],
    [
      'an orchestrator model outside the allowed list',
      { form_data: { email: 'a@b.co' }, orchestrator_model: 'openai:gpt-2' },
      422,
      /^body\.orchestrator_model: 'openai:gpt-2' is not allowed/,
    ],
    [
      'a model id without a provider',
      { form_data: { email: 'a@b.co' }, orchestrator_model: 'gpt-2' },
      422,
      'body.orchestrator_model: must be a model id of the form provider:model',
    ],
    [
      'a vision model outside the allowed list',
      { form_data: { email: 'a@b.co' }, vision_model: 'anthropic:claude-opus' },
      422,
      /^body\.vision_model: 'anthropic:claude-opus' is not allowed/,
    ],
    [
      'a model-driven orchestrator (not in this build)',
      { form_data: { email: 'a@b.co' }, orchestrator_model: 'anthropic:claude-sonnet-4-6' },
      422,
      /needs the model-driven agent/,
    ],
    ['max_turns of 0', { form_data: { email: 'a@b.co' }, max_turns: 0 }, 422, /^body\.max_turns/],
    ['max_turns not an integer', { form_data: { email: 'a@b.co' }, max_turns: 2.5 }, 422, /^body\.max_turns/],
    [
      'timeout_minutes too large',
      { form_data: { email: 'a@b.co' }, timeout_minutes: 100000 },
      422,
      /^body\.timeout_minutes/,
    ],
    [
      'an unknown profile',
      { form_data: { email: 'a@b.co' }, profile_id: '00000000-0000-4000-8000-000000000000' },
      422,
      "body.profile_id: no browser profile '00000000-0000-4000-8000-000000000000' in this organization",
    ],
    [
      'a proxy without a server',
      { form_data: { email: 'a@b.co' }, proxy: { username: 'u' } },
      422,
      /^body\.proxy\.server: is required/,
    ],
    ['an unknown field', { form_data: { email: 'a@b.co' }, turbo: true }, 422, "body: unknown field 'turbo'"],
  ];
  it.each(cases)('%s', async (_name, body, status, detail) => {
    const before = await jobCount();
    const res = await start(body);
    expect(res.status).toBe(status);
    const text = (res.body as { detail: string }).detail;
    if (typeof detail === 'string') expect(text).toBe(detail);
    else expect(text).toMatch(detail);
    expect(await jobCount()).toBe(before);
  });

  it('an unknown portal is 404 Portal not found', async () => {
    expect(await start({ form_data: {} }, 'missing')).toEqual({ status: 404, body: { detail: 'Portal not found' } });
  });

  it('Content-Type must be application/json', async () => {
    const res = await svc.api('/jobs/default/strict/start', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '{}',
    });
    expect(res.status).toBe(415);
  });

  it('a valid start returns only {job_id} at once, queued with the defaults applied', async () => {
    const res = await start({ form_data: { email: 'a@b.co' }, orchestrator_model: 'autofill' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body as object)).toEqual(['job_id']);
    const jobId = (res.body as { job_id: string }).job_id;
    const status = (
      await svc.send('getJobStatus', {
        params: { org_id: 'default', endpoint_name: 'strict' },
        query: { job_id: jobId },
      })
    ).body;
    expect(status).toMatchObject({
      status: 'queued',
      orchestrator_model: 'builtin:autofill',
      vision_model: 'anthropic:claude-haiku-4-5-20251001',
      steps: 0,
      started_at: null,
      browser_url: null,
    });
    const { openStore } = await import('../../src-main/store/store.ts');
    const store = openStore(`${svc.dataDir}/portico.db`);
    expect(store.jobs.get(jobId)?.options).toMatchObject({
      max_turns: 200,
      timeout_minutes: 30,
      save_profile: true,
      human_in_the_loop: false,
    });
    store.close();
  });

  it('a proxy password is kept in memory only, never in the database', async () => {
    const res = await start({
      form_data: { email: 'a@b.co' },
      proxy: { server: 'http://127.0.0.1:3128', username: 'me', password: 'hunter2-secret' },
    });
    expect(res.status).toBe(200);
    const { readFile } = await import('node:fs/promises');
    const files = await Promise.all(
      ['portico.db', 'portico.db-wal'].map((f) => readFile(`${svc.dataDir}/${f}`).catch(() => Buffer.alloc(0))),
    );
    for (const file of files) expect(file.includes(Buffer.from('hunter2-secret'))).toBe(false);
  });

  it("another org cannot start, read or cancel this org's jobs", async () => {
    const { cli } = await import('../helpers/cli.ts');
    const rival = String((await cli(svc.dataDir, ['org', 'create', 'rival2'])).json.api_key);
    const jobId = ((await start({ form_data: { email: 'a@b.co' } })).body as { job_id: string }).job_id;
    expect(
      (
        await svc.send(
          'startJob',
          { params: { org_id: 'default', endpoint_name: 'strict' }, body: { form_data: {} } },
          { key: rival },
        )
      ).status,
    ).toBe(403);
    expect(
      (
        await svc.send(
          'getJobStatus',
          { params: { org_id: 'default', endpoint_name: 'strict' }, query: { job_id: jobId } },
          { key: rival },
        )
      ).status,
    ).toBe(403);
    expect(
      await svc.send(
        'getJobStatus',
        { params: { org_id: 'rival2', endpoint_name: 'strict' }, query: { job_id: jobId } },
        { key: rival },
      ),
    ).toEqual({ status: 404, body: { detail: 'Job not found' } });
  });
});
