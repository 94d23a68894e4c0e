import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startModelServer,
  type ModelServer,
  type RecordedRequest,
  type ScriptedReply,
} from '../helpers/modelServer.ts';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { startService, waitForJob, type TestService } from '../helpers/service.ts';
import { memorySecrets } from '../helpers/memorySecrets.ts';
import { setEnv } from '../helpers/env.ts';

const PASSWORD = 'hunter2-Secret-Value';
const MODEL = 'anthropic:claude-sonnet-4-6';

let submitLabel = 'Submit';
const formPage = (): string => `<!doctype html><title>Sign up</title><form id="f">
  <label>Email <input name="email" type="email"></label>
  <label>Password <input name="password" type="password"></label>
  <label>Country <select name="country"><option>Choose</option><option>France</option><option>Spain</option></select></label>
  <button type="submit">${submitLabel}</button></form>
  <script>document.getElementById('f').onsubmit = (e) => { e.preventDefault();
    const ok = document.querySelector('[name=password]').value === ${JSON.stringify(PASSWORD)} && document.querySelector('[name=country]').value === 'France';
    location.href = ok ? '/done' : '/wrong'; };</script>`;

/** The [index] the latest turn listed for an element named `name`. */
function indexOf(request: RecordedRequest, name: string): number {
  const last = request.body.messages.at(-1);
  const text = last.content
    .filter((b: { type: string }) => b.type === 'text')
    .map((b: { text: string }) => b.text)
    .join('\n');
  const found = text.match(new RegExp(`\\[(\\d+)\\] [a-z]+(?: type=\\w+)? "${name}"`));
  if (!found) throw new Error(`no element "${name}" in:\n${text}`);
  return Number(found[1]);
}

/** A model that fills the form in one turn (several calls), then reports done. */
function formFiller(request: RecordedRequest): ScriptedReply {
  const text = JSON.stringify(request.body.messages.at(-1));
  if (text.includes('Reference ABC-123'))
    return { toolCalls: [{ name: 'done', input: { result: { reference: 'ABC-123' } } }] };
  return {
    text: 'Filling the form.',
    toolCalls: [
      { name: 'type', input: { index: indexOf(request, 'Email'), text: 'ada@example.com' } },
      { name: 'type', input: { index: indexOf(request, 'Password'), text: '{{form_data.password}}' } },
      { name: 'select', input: { index: indexOf(request, 'Country'), option: 'France' } },
      { name: 'click', input: { index: indexOf(request, submitLabel) } },
    ],
  };
}

describe('the model-driven agent (real SDK, scripted model server, real Chromium)', () => {
  let svc: TestService;
  let model: ModelServer;
  let pages: PageServer;
  const formData = { email: 'ada@example.com', password: PASSWORD, country: 'France' };

  const createPortal = async (name: string, extra: Record<string, unknown> = {}) => {
    const res = await svc.request('createPortal', {
      params: { org_id: 'default' },
      body: {
        endpoint_name: name,
        start_url: `${pages.url}/form`,
        task: 'Sign up with the given data',
        form_schema: {
          type: 'object',
          properties: { email: { type: 'string' }, password: { type: 'string' }, country: { type: 'string' } },
        },
        ...extra,
      },
    });
    expect(res.status).toBe(200);
  };
  const start = async (name: string, body: Record<string, unknown> = {}) =>
    await svc.send('startJob', {
      params: { org_id: 'default', endpoint_name: name },
      body: { form_data: formData, orchestrator_model: MODEL, ...body },
    });
  const modeOf = (status: Record<string, unknown>) =>
    (status.events as Array<{ type: string; data: { mode?: string } }>).find((e) => e.type === 'agent_mode')?.data.mode;

  let restoreEnv: (() => void) | undefined;
  beforeAll(async () => {
    model = await startModelServer();
    pages = await startPageServer({
      '/form': () => ({ body: formPage() }),
      '/done': '<!doctype html><title>Thanks</title><h1>Thank you</h1><p>Reference ABC-123</p>',
      '/wrong': '<title>Wrong</title>wrong',
    });
    restoreEnv = setEnv({ PORTICO_ANTHROPIC_BASE_URL: model.anthropicBaseUrl });
    svc = await startService(undefined, {
      secrets: memorySecrets({ 'provider/anthropic': 'sk-ant-test' }),
      llmRetry: { maxRetries: 2, timeoutMs: 10_000 },
      jobConcurrency: 1,
    });
  });
  afterAll(async () => {
    await svc?.dispose();
    await model?.close();
    await pages?.close();
    restoreEnv?.();
  });

  it('fresh run: sends tools, screenshot, schema and placeholders (never the password), retries a 429, records cost', async () => {
    await createPortal('signup');
    model.reset((request, n) => (n === 0 ? { status: 429 } : formFiller(request)));
    const { status, body } = await start('signup');
    expect(status).toBe(200);
    const job = await waitForJob(svc, 'signup', (body as { job_id: string }).job_id, ['completed', 'failed']);
    expect(job).toMatchObject({ status: 'completed', result: { reference: 'ABC-123' }, orchestrator_model: MODEL });
    expect(modeOf(job)).toBe('fresh');
    // 1 rate-limited + 2 answered calls; each answered call is 1000 in / 100 out at $3 / $15 per million.
    expect(model.requests).toHaveLength(3);
    expect(job.session_cost_usd).toBeCloseTo((2 * (1000 * 3 + 100 * 15)) / 1e6, 9);
    const first = model.requests[1]!.body;
    expect(first.tools.map((t: { name: string }) => t.name)).toEqual(
      expect.arrayContaining([
        'click',
        'type',
        'select',
        'check',
        'press_key',
        'scroll',
        'navigate',
        'wait',
        'upload_file',
        'use_credential',
        'totp_code',
        'ask_human',
        'extract',
        'done',
        'fail',
        'locate_visually',
        'read_skill',
      ]),
    );
    expect(first.system).toContain('form_schema: {"type":"object"');
    expect(first.system).toContain('"password":"{{form_data.password}}"');
    expect(
      first.messages[0].content.some(
        (b: { type: string; source?: { media_type: string } }) =>
          b.type === 'image' && b.source?.media_type === 'image/jpeg',
      ),
    ).toBe(true);
    for (const request of model.requests) expect(request.raw).not.toContain(PASSWORD);
    const logs = await (
      await svc.request('streamJobLogs', {
        params: { org_id: 'default', endpoint_name: 'signup' },
        query: { job_id: job.job_id as string },
      })
    ).text();
    expect(logs).not.toContain(PASSWORD);
    expect(JSON.stringify(job)).not.toContain(PASSWORD);
    // The job page shows what the job started with, minus the secret, which it names so a re-run asks for it.
    const queued = (job.events as Array<{ type: string; data: Record<string, unknown> }>).find(
      (e) => e.type === 'queued',
    );
    expect(queued?.data).toMatchObject({
      form_data: { email: 'ada@example.com', country: 'France' },
      hidden_keys: ['password'],
    });
  });

  it('replay: the next job on the portal makes zero model calls', async () => {
    model.reset([]);
    const { body } = await start('signup');
    const job = await waitForJob(svc, 'signup', (body as { job_id: string }).job_id, ['completed', 'failed']);
    expect(modeOf(job)).toBe('replayed');
    expect(model.requests).toHaveLength(0);
    expect(job.session_cost_usd).toBe(0);
    expect(job.status).toBe('completed');
    expect(modeOf(job)).toBe('replayed');
    expect(model.requests).toHaveLength(0);
    expect(job.session_cost_usd).toBe(0);
  });

  it('a changed page heals: replay stops at the renamed button, the model finishes, the trace is rewritten', async () => {
    submitLabel = 'Send';
    model.reset((request) => formFiller(request));
    const healed = await waitForJob(svc, 'signup', ((await start('signup')).body as { job_id: string }).job_id, [
      'completed',
      'failed',
    ]);
    expect(healed.status).toBe('completed');
    expect(modeOf(healed)).toBe('healed');
    expect(model.requests.length).toBeGreaterThan(0);
    model.reset([]);
    const again = await waitForJob(svc, 'signup', ((await start('signup')).body as { job_id: string }).job_id, [
      'completed',
      'failed',
    ]);
    expect(modeOf(again)).toBe('replayed');
    expect(model.requests).toHaveLength(0);
    submitLabel = 'Submit';
  });

  it('replay: false runs fresh even with a trace', async () => {
    model.reset((request) => formFiller(request));
    const job = await waitForJob(
      svc,
      'signup',
      ((await start('signup', { replay: false })).body as { job_id: string }).job_id,
      ['completed', 'failed'],
    );
    expect(modeOf(job)).toBe('fresh');
    expect(model.requests.length).toBe(2);
  });

  it("portal replay_enabled: false runs fresh; a job's replay: true overrides it", async () => {
    expect(
      (
        await svc.request('updatePortal', {
          params: { org_id: 'default', endpoint_name: 'signup' },
          body: { replay_enabled: false },
        })
      ).status,
    ).toBe(200);
    model.reset((request) => formFiller(request));
    const fresh = await waitForJob(svc, 'signup', ((await start('signup')).body as { job_id: string }).job_id, [
      'completed',
      'failed',
    ]);
    expect(modeOf(fresh)).toBe('fresh');
    expect(model.requests.length).toBe(2);
    model.reset([]);
    const replayed = await waitForJob(
      svc,
      'signup',
      ((await start('signup', { replay: true })).body as { job_id: string }).job_id,
      ['completed', 'failed'],
    );
    expect(modeOf(replayed)).toBe('replayed');
    expect(model.requests).toHaveLength(0);
    expect(
      (
        await svc.request('updatePortal', {
          params: { org_id: 'default', endpoint_name: 'signup' },
          body: { replay_enabled: true },
        })
      ).status,
    ).toBe(200);
  });

  it('ask_human becomes a question event; the answer goes back to the model', async () => {
    await createPortal('hitl');
    model.reset((request, n) =>
      n === 0
        ? { toolCalls: [{ name: 'ask_human', input: { question: 'Which plan?', options: ['Basic', 'Pro'] } }] }
        : {
            toolCalls: [
              {
                name: 'done',
                input: { result: { plan: JSON.stringify(request.body.messages.at(-1).content[0].content) } },
              },
            ],
          },
    );
    const id = ((await start('hitl', { human_in_the_loop: true, replay: false })).body as { job_id: string }).job_id;
    const waiting = await waitForJob(svc, 'hitl', id, ['waiting_for_input', 'failed']);
    const question = (waiting.events as Array<{ type: string; data: { question_id: string; options: string[] } }>).find(
      (e) => e.type === 'question',
    )!;
    expect(question.data.options).toEqual(['Basic', 'Pro']);
    await svc.request('answerJob', {
      params: { org_id: 'default', endpoint_name: 'hitl' },
      query: { job_id: id },
      body: { question_id: question.data.question_id, answer: 'Pro' },
    });
    const done = await waitForJob(svc, 'hitl', id, ['completed', 'failed']);
    expect(done.result).toEqual({ plan: '"the human answered: Pro"' });
  });

  it('loop guard: the same failing action three times fails the job', async () => {
    await createPortal('stuck');
    model.reset(() => ({ toolCalls: [{ name: 'click', input: { index: 999 } }] }));
    const job = await waitForJob(
      svc,
      'stuck',
      ((await start('stuck', { replay: false })).body as { job_id: string }).job_id,
      ['completed', 'failed'],
    );
    expect(job.status).toBe('failed');
    expect(job.error).toMatch(/the same action failed 3 times: click \{"index":999\}/);
  });

  it('job start answers 422 naming the model and what is missing', async () => {
    await createPortal('local');
    const res = await start('local', { orchestrator_model: 'openai-compatible:llama-3.2' });
    expect(res.status).toBe(422);
    expect((res.body as { detail: string }).detail).toMatch(
      /^body\.orchestrator_model: model 'openai-compatible:llama-3\.2' is not configured: no base URL; run `portico provider set-base-url openai-compatible <url>`/,
    );
  });

  it('a model job naming a vision model whose provider has no key is 422 naming it; a builtin job ignores vision_model', async () => {
    const res = await start('local', { vision_model: 'openai:gpt-5.4' });
    expect(res).toEqual({
      status: 422,
      body: {
        detail:
          "body.vision_model: model 'openai:gpt-5.4' is not configured: no API key; run `portico provider set-key openai` or set OPENAI_API_KEY",
      },
    });
    const builtin = await start('local', { vision_model: 'openai:gpt-5.4', orchestrator_model: 'builtin:autofill' });
    expect(builtin.status).toBe(200);
    await svc.request('cancelJob', {
      params: { org_id: 'default', endpoint_name: 'local' },
      query: { job_id: (builtin.body as { job_id: string }).job_id },
    });
  });
});
