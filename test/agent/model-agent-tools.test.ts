import { generateSync } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startModelServer,
  type ModelServer,
  type RecordedRequest,
  type ScriptedReply,
} from '../helpers/modelServer.ts';
import { elementIndex, lastTurnText, toolResults } from '../helpers/modelTurns.ts';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { buildRawZip } from '../helpers/rawZip.ts';
import { cli } from '../helpers/cli.ts';
import { FakeClock } from '../helpers/fakeClock.ts';
import { jsonOf, startService, waitForJob, type TestService } from '../helpers/service.ts';
import { memorySecrets } from '../helpers/memorySecrets.ts';
import { setEnv } from '../helpers/env.ts';

const MODEL = 'anthropic:claude-sonnet-4-6';
const PASSWORD = 'Correct-Horse-Battery-9';
const TOTP_SEED = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const OTHER_PASSWORD = 'Not-Yours-Pass-42';
const FOREIGN_PASSWORD = 'Other-Workspace-Pass-77';
// The credential service's clock: 10 s into a TOTP step, decades from the wall clock, so a code from Date.now() cannot match.
const CLOCK_START = Date.parse('2031-03-04T05:06:10.000Z');

const loginPage = `<!doctype html><title>Bank login</title><form method="post" action="/login">
  <label>Username <input name="username"></label>
  <label>Password <input name="password" type="password"></label>
  <label>One-time code <input name="otp" inputmode="numeric"></label>
  <button type="submit">Sign in</button></form>`;

// A button drawn on a canvas: no element, no accessible name; only the pixels say where it is.
const canvasPage = `<!doctype html><title>Confirm</title><style>body{margin:0}</style>
  <canvas id="c" width="400" height="200"></canvas>
  <script>const c = document.getElementById('c'); const g = c.getContext('2d');
    g.fillStyle = '#2e7d32'; g.fillRect(100, 60, 160, 60); g.fillStyle = '#fff'; g.font = '20px sans-serif'; g.fillText('Confirm', 140, 97);
    c.addEventListener('click', (e) => { if (e.offsetX >= 100 && e.offsetX <= 260 && e.offsetY >= 60 && e.offsetY <= 120) location.href = '/confirmed'; });</script>`;

const signupPage = `<!doctype html><title>Sign up</title><form method="post" action="/signed-up">
  <label>Email <input name="email" type="email"></label>
  <label>Country <select name="country"><option>Choose</option><option>France</option><option>Spain</option></select></label>
  <button type="submit">Create account</button></form>`;

// A payment form in a same-origin iframe and an address widget in an open shadow root, on one page.
const embeddedPage = `<!doctype html><title>Checkout</title><h1>Checkout</h1>
  <iframe id="pay" src="/card-frame" style="width:400px;height:120px"></iframe>
  <address-box></address-box>
  <script>customElements.define('address-box', class extends HTMLElement {
    connectedCallback() {
      const root = this.attachShadow({ mode: 'open' });
      root.innerHTML = '<label>Street <input id="street"></label> <button id="save">Place order</button>';
      root.getElementById('save').onclick = () => {
        const card = document.getElementById('pay').contentDocument.querySelector('input').value;
        location.href = '/placed?street=' + encodeURIComponent(root.getElementById('street').value) + '&card=' + encodeURIComponent(card);
      };
    }
  });</script>`;
const cardFrame = '<!doctype html><label>Card number <input name="card"></label>';

describe('model agent tools end to end (real SDKs, scripted model server, real Chromium)', () => {
  let svc: TestService;
  let model: ModelServer;
  let pages: PageServer;
  const posted: Record<string, URLSearchParams> = {};
  /** Every secret name read from the app's secret store, in order. */
  const reads: string[] = [];
  /** The job's credential (Bank), another of the workspace, and one of another workspace. */
  let bank = '';
  let other = '';
  let foreign = '';

  const createPortal = async (name: string, path: string, extra: Record<string, unknown> = {}) => {
    const res = await svc.request('createPortal', {
      params: { org_id: 'default' },
      body: { endpoint_name: name, start_url: `${pages.url}${path}`, task: 'Do the task', ...extra },
    });
    expect(res.status).toBe(200);
  };
  const credential = async (json: Record<string, unknown>, key = svc.accountKey): Promise<string> => {
    const made = await svc.send('createCredential', { body: json }, { key });
    expect(made.status).toBe(200);
    return String((made.body as { id: string }).id);
  };
  const runJob = async (name: string, body: Record<string, unknown>) => {
    const started = await svc.send('startJob', {
      params: { org_id: 'default', endpoint_name: name },
      body: { orchestrator_model: MODEL, replay: false, form_data: {}, ...body },
    });
    expect(started.status).toBe(200);
    return waitForJob(svc, name, (started.body as { job_id: string }).job_id, ['completed', 'failed']);
  };

  let restoreEnv: (() => void) | undefined;
  beforeAll(async () => {
    model = await startModelServer();
    pages = await startPageServer({
      '/login': (req, body) => {
        if (req.method !== 'POST') return { body: loginPage };
        posted.login = new URLSearchParams(body);
        return { body: '<!doctype html><title>Accounts</title><h1>Welcome back</h1>' };
      },
      '/canvas': canvasPage,
      '/confirmed': '<!doctype html><title>Confirmed</title><p>Order confirmed</p>',
      '/signup': signupPage,
      '/embedded': embeddedPage,
      '/card-frame': cardFrame,
      '/placed': (req) => {
        posted.placed = new URL(req.url ?? '', 'http://x').searchParams;
        return { body: '<!doctype html><title>Placed</title><p>Order placed</p>' };
      },
      '/signed-up': (_req, body) => {
        posted.signup = new URLSearchParams(body);
        return { body: '<!doctype html><title>Welcome</title><p>Account ACC-77 created</p>' };
      },
    });
    restoreEnv = setEnv({
      PORTICO_ANTHROPIC_BASE_URL: model.anthropicBaseUrl,
      PORTICO_MOONSHOT_BASE_URL: model.openaiBaseUrl,
      PORTICO_OPENAI_COMPATIBLE_BASE_URL: model.openaiBaseUrl,
    });
    const store = memorySecrets({ 'provider/anthropic': 'sk-ant-test', 'provider/moonshot': 'sk-moon-test' });
    svc = await startService(undefined, {
      secrets: {
        ...store,
        get: (name) => {
          reads.push(name);
          return store.get(name);
        },
      },
      clock: new FakeClock(CLOCK_START),
      llmRetry: { maxRetries: 1, timeoutMs: 10_000 },
      jobConcurrency: 1,
    });
    bank = await credential({
      service_name: 'Bank',
      username_or_email: 'ada',
      password: PASSWORD,
      totp_secret: TOTP_SEED,
    });
    other = await credential({
      service_name: 'Other',
      username_or_email: 'eve',
      password: OTHER_PASSWORD,
      totp_secret: TOTP_SEED,
    });
    const eveKey = String((await cli(svc.dataDir, ['user', 'create', 'eve', '--workspace', 'elsewhere'])).json.api_key);
    foreign = await credential({ service_name: 'Foreign', password: FOREIGN_PASSWORD, totp_secret: TOTP_SEED }, eveKey);
  });
  afterAll(async () => {
    await svc?.dispose();
    await model?.close();
    await pages?.close();
    restoreEnv?.();
  });

  it('skills: the system prompt lists each attached skill; read_skill returns the SKILL.md body and a referenced file', async () => {
    const zip = buildRawZip([
      {
        name: 'SKILL.md',
        data: Buffer.from(
          "---\nname: bank-portal\ndescription: How to get past the bank portal's cookie wall\n---\n# Bank portal\nAlways dismiss the banner first. Steps are in reference/steps.md.\n",
        ),
      },
      { name: 'reference/steps.md', data: Buffer.from('1. Click "Reject all".\n2. Wait for the login form.\n') },
    ]);
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(zip)], { type: 'application/zip' }), 'bank-portal.zip');
    const uploaded = await jsonOf(await svc.api('/skills/default?folder=agent', { method: 'POST', body: form }));
    expect(uploaded.status).toBe(200);
    await createPortal('skilled', '/signup', { skill_ids: [(uploaded.body as { id: string }).id] });
    model.reset((_request, n) =>
      n === 0
        ? {
            toolCalls: [
              { name: 'read_skill', input: { skill: 'bank-portal' } },
              { name: 'read_skill', input: { skill: 'bank-portal', file: 'reference/steps.md' } },
            ],
          }
        : { toolCalls: [{ name: 'done', input: { result: { read: true } } }] },
    );
    const job = await runJob('skilled', {});
    expect(job).toMatchObject({ status: 'completed', result: { read: true } });
    expect(model.requests[0]!.body.system).toContain("- bank-portal: How to get past the bank portal's cookie wall");
    const results = toolResults(model.requests[1]!);
    expect(results[0]).toBe('# Bank portal\nAlways dismiss the banner first. Steps are in reference/steps.md.\n');
    expect(results[1]).toBe('1. Click "Reject all".\n2. Wait for the login form.\n');
  });

  it("use_credential and totp_code type the job's credential's password and a code on the service clock; no model request ever carries them", async () => {
    await createPortal('bank', '/login', { task: 'Sign in as ada with the stored credential (password and TOTP)' });
    model.reset((request: RecordedRequest): ScriptedReply => {
      if (lastTurnText(request).includes('Welcome back'))
        return { toolCalls: [{ name: 'done', input: { result: { signed_in: true } } }] };
      return {
        toolCalls: [
          { name: 'type', input: { index: elementIndex(request, 'Username'), text: 'ada' } },
          { name: 'use_credential', input: { index: elementIndex(request, 'Password'), credential_id: bank } },
          { name: 'totp_code', input: { index: elementIndex(request, 'One-time code'), credential_id: bank } },
          { name: 'click', input: { index: elementIndex(request, 'Sign in') } },
        ],
      };
    });
    const job = await runJob('bank', { credential_id: bank });
    expect(job).toMatchObject({ status: 'completed', result: { signed_in: true } });
    expect(String(model.requests[0]!.body.system)).toContain(`credential_id ${bank}, username ada`);
    const login = posted.login!;
    expect(login.get('username')).toBe('ada');
    expect(login.get('password')).toBe(PASSWORD);
    const code = login.get('otp') ?? '';
    // The code of the credential service's (fake) clock, not of the wall clock.
    expect(code).toBe(generateSync({ secret: TOTP_SEED, epoch: Math.floor(CLOCK_START / 1000) }));
    expect(model.requests).toHaveLength(2);
    expect(toolResults(model.requests[1]!)).toEqual(
      expect.arrayContaining([
        `typed {{credential:${bank}.password}} into [1]`,
        `typed {{credential:${bank}.totp}} into [2]`,
      ]),
    );
    const logs = await (
      await svc.request('streamJobLogs', {
        params: { org_id: 'default', endpoint_name: 'bank' },
        query: { job_id: String(job.job_id) },
      })
    ).text();
    for (const secret of [PASSWORD, TOTP_SEED, code]) {
      for (const request of model.requests) expect(request.raw).not.toContain(secret);
      expect(logs).not.toContain(secret);
      expect(JSON.stringify(job)).not.toContain(secret);
    }
  });

  describe('a job reads only its own credential: the model naming another id gets an error, and nothing is read', () => {
    /** The model tries every way to reach credential `target`, then fails the job with the tool answers it got. */
    const attack =
      (target: string) =>
      (request: RecordedRequest): ScriptedReply => {
        const answers = toolResults(request);
        if (answers.length > 0) return { toolCalls: [{ name: 'fail', input: { reason: answers.join(' | ') } }] };
        return {
          toolCalls: [
            { name: 'use_credential', input: { index: elementIndex(request, 'Password'), credential_id: target } },
            { name: 'totp_code', input: { index: elementIndex(request, 'One-time code'), credential_id: target } },
            {
              name: 'type',
              input: { index: elementIndex(request, 'Username'), text: `{{credential:${target}.password}}` },
            },
          ],
        };
      };
    const attempt = async (target: string, body: Record<string, unknown>) => {
      delete posted.login;
      const before = reads.length;
      model.reset(attack(target));
      const job = await runJob('bank', body);
      expect(job.status).toBe('failed');
      expect(posted.login).toBeUndefined();
      // Not one of the target's secrets was read from the store.
      expect(reads.slice(before).filter((name) => name.startsWith(`credential/${target}/`))).toEqual([]);
      for (const secret of [OTHER_PASSWORD, FOREIGN_PASSWORD, TOTP_SEED]) {
        for (const request of model.requests) expect(request.raw).not.toContain(secret);
        expect(JSON.stringify(job)).not.toContain(secret);
      }
      return String(job.error);
    };

    it('a job without a credential (none at start, none on its portal): every credential tool answers that the job has none', async () => {
      for (const target of [bank, foreign]) {
        const error = await attempt(target, {});
        const why = `this job has no credential: credential '${target}' cannot be used (start the job with credential_id, or give its portal one)`;
        expect(error).toBe([why, why, why].join(' | '));
      }
    });

    it("a job with its own credential cannot read another credential of its workspace, nor another workspace's", async () => {
      for (const target of [other, foreign]) {
        const error = await attempt(target, { credential_id: bank });
        const why = `credential '${target}' is not this job's credential: this job may use only credential_id ${bank}`;
        expect(error).toBe([why, why, why].join(' | '));
      }
    });

    it("the portal's credential is the job's when the start names none", async () => {
      await createPortal('bank-portal', '/login', { task: 'Sign in', credential_id: bank });
      delete posted.login;
      model.reset(
        (request: RecordedRequest): ScriptedReply =>
          lastTurnText(request).includes('Welcome back')
            ? { toolCalls: [{ name: 'done', input: { result: { signed_in: true } } }] }
            : {
                toolCalls: [
                  { name: 'use_credential', input: { index: elementIndex(request, 'Password'), credential_id: bank } },
                  { name: 'click', input: { index: elementIndex(request, 'Sign in') } },
                ],
              },
      );
      expect(await runJob('bank-portal', {})).toMatchObject({ status: 'completed', result: { signed_in: true } });
      const login: URLSearchParams | undefined = Reflect.get(posted, 'login');
      expect(login?.get('password')).toBe(PASSWORD);
    });
  });

  it('locate_visually asks the vision model (Moonshot, over Chat Completions) with the screenshot; click_at hits the canvas button', async () => {
    await createPortal('canvas', '/canvas', { task: 'Press the green Confirm button' });
    model.reset((request: RecordedRequest): ScriptedReply => {
      if (request.api === 'openai')
        return {
          text: '{"found": true, "x": 180, "y": 90, "description": "green Confirm button"}',
          usage: { input: 1500, output: 20 },
        };
      const text = lastTurnText(request);
      if (text.includes('Order confirmed'))
        return { toolCalls: [{ name: 'done', input: { result: { confirmed: true } } }] };
      const found = toolResults(request)
        .at(-1)
        ?.match(/found at x=(\d+), y=(\d+)/);
      if (found) return { toolCalls: [{ name: 'click_at', input: { x: Number(found[1]), y: Number(found[2]) } }] };
      return { toolCalls: [{ name: 'locate_visually', input: { description: 'the green Confirm button' } }] };
    });
    const job = await runJob('canvas', { vision_model: 'moonshot:kimi-k2.5' });
    expect(job).toMatchObject({ status: 'completed', result: { confirmed: true }, vision_model: 'moonshot:kimi-k2.5' });
    const vision = model.requests.filter((r) => r.api === 'openai');
    expect(vision).toHaveLength(1);
    expect(vision[0]!.path).toBe('/v1/chat/completions');
    expect(vision[0]!.headers.authorization).toBe('Bearer sk-moon-test');
    expect(vision[0]!.body.model).toBe('kimi-k2.5');
    const parts = vision[0]!.body.messages[1].content as Array<{
      type: string;
      image_url?: { url: string };
      text?: string;
    }>;
    expect(parts[0]!.image_url?.url).toMatch(/^data:image\/png;base64,iVBOR/);
    expect(parts[1]!.text).toContain('Find: the green Confirm button');
    expect(pages.hits).toContain('GET /confirmed');
    // Three orchestrator calls at Sonnet prices plus one vision call at Kimi's.
    expect(job.session_cost_usd).toBeCloseTo((3 * (1000 * 3 + 100 * 15)) / 1e6 + (1500 * 0.6 + 20 * 2.5) / 1e6, 9);
  });

  it('a full job through OpenAI Chat Completions (openai-compatible orchestrator at a local base URL)', async () => {
    await createPortal('local', '/signup', {
      task: 'Create an account',
      form_schema: { type: 'object', properties: { email: { type: 'string' }, country: { type: 'string' } } },
    });
    model.reset((request: RecordedRequest): ScriptedReply => {
      if (lastTurnText(request).includes('ACC-77'))
        return { toolCalls: [{ name: 'done', input: { result: { account: 'ACC-77' } } }] };
      return {
        toolCalls: [
          { name: 'type', input: { index: elementIndex(request, 'Email'), text: '{{form_data.email}}' } },
          { name: 'select', input: { index: elementIndex(request, 'Country'), option: 'Spain' } },
          { name: 'click', input: { index: elementIndex(request, 'Create account') } },
        ],
      };
    });
    const job = await runJob('local', {
      orchestrator_model: 'openai-compatible:qwen3-8b',
      form_data: { email: 'ada@example.com', country: 'Spain' },
    });
    expect(job).toMatchObject({
      status: 'completed',
      result: { account: 'ACC-77' },
      orchestrator_model: 'openai-compatible:qwen3-8b',
      session_cost_usd: 0,
    });
    expect(posted.signup?.get('email')).toBe('ada@example.com');
    expect(posted.signup?.get('country')).toBe('Spain');
    expect(model.requests.map((r) => r.path)).toEqual(['/v1/chat/completions', '/v1/chat/completions']);
    const [first, second] = [model.requests[0]!.body, model.requests[1]!.body];
    expect(first.model).toBe('qwen3-8b');
    expect(first.messages[0]).toMatchObject({ role: 'system' });
    expect(first.messages[0].content).toContain('Task: Create an account');
    expect(first.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(
      expect.arrayContaining(['click', 'type', 'done', 'use_credential']),
    );
    expect(first.messages[1].content.some((p: { type: string }) => p.type === 'image_url')).toBe(true);
    expect(second.messages.map((m: { role: string }) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'tool',
      'tool',
      'user',
    ]);
  });

  describe('done is checked against output_schema', () => {
    const outputSchema = {
      type: 'object',
      properties: { reference: { type: 'string', pattern: '^REF-' }, amount: { type: 'number' } },
      required: ['reference'],
    };

    it('an invalid result goes back to the model as a tool error naming the field; the corrected one completes the job', async () => {
      await createPortal('checked', '/confirmed', { output_schema: outputSchema });
      model.reset((_request, n) => ({
        toolCalls: [{ name: 'done', input: { result: n === 0 ? { amount: 12 } : { reference: 'REF-9', amount: 12 } } }],
      }));
      const job = await runJob('checked', {});
      expect(job).toMatchObject({ status: 'completed', result: { reference: 'REF-9', amount: 12 } });
      expect(model.requests).toHaveLength(2);
      const back = model.requests[1]!.body.messages.at(-1).content[0];
      expect(back).toMatchObject({ type: 'tool_result', is_error: true });
      expect(back.content).toBe(
        'the result does not match output_schema: result.reference is required. Call done again with a corrected result.',
      );
    });

    it('after two rejected results the third fails the job with a message naming the field', async () => {
      await createPortal('unfixable', '/confirmed', { output_schema: outputSchema });
      model.reset((_request, n) => ({ toolCalls: [{ name: 'done', input: { result: { reference: `X-${n}` } } }] }));
      const job = await runJob('unfixable', {});
      expect(job.status).toBe('failed');
      expect(job.error).toBe(
        `The model's result does not match output_schema after 3 attempts: result.reference must match pattern "^REF-"`,
      );
      expect(model.requests).toHaveLength(3);
    });
  });

  it('elements inside an iframe and an open shadow root are listed and acted on in their own frame; the trace replays there', async () => {
    await createPortal('embedded', '/embedded', {
      task: 'Place the order',
      form_schema: { type: 'object', properties: { street: { type: 'string' }, card: { type: 'string' } } },
    });
    const formData = { street: '1 Analytical Way', card: '4111111111111111' };
    model.reset((request: RecordedRequest): ScriptedReply => {
      if (lastTurnText(request).includes('Order placed'))
        return { toolCalls: [{ name: 'done', input: { result: { placed: true } } }] };
      return {
        toolCalls: [
          { name: 'type', input: { index: elementIndex(request, 'Street'), text: '{{form_data.street}}' } },
          { name: 'type', input: { index: elementIndex(request, 'Card number'), text: '{{form_data.card}}' } },
          { name: 'click', input: { index: elementIndex(request, 'Place order') } },
        ],
      };
    });
    const job = await runJob('embedded', { form_data: formData });
    expect(job).toMatchObject({ status: 'completed', result: { placed: true } });
    const listing = lastTurnText(model.requests[0]!);
    expect(listing).toMatch(/\[\d+\] textbox "Card number"/);
    expect(listing).toMatch(/\[\d+\] textbox "Street"/);
    expect(Object.fromEntries(posted.placed!)).toEqual(formData);

    delete posted.placed;
    model.reset([]);
    const replayed = await runJob('embedded', { form_data: formData, replay: true });
    expect(replayed.status).toBe('completed');
    expect(
      (replayed.events as Array<{ type: string; data: { mode?: string } }>).find((e) => e.type === 'agent_mode')?.data
        .mode,
    ).toBe('replayed');
    expect(model.requests).toHaveLength(0);
    expect(Object.fromEntries(posted.placed!)).toEqual(formData);
  });
});
