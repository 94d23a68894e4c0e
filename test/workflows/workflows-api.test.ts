import Database from 'better-sqlite3';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.ts';
import { FakeClock } from '../helpers/fakeClock.ts';
import { memorySecrets } from '../helpers/memorySecrets.ts';
import {
  startModelServer,
  type ModelServer,
  type RecordedRequest,
  type ScriptedReply,
} from '../helpers/modelServer.ts';
import { elementIndex } from '../helpers/modelTurns.ts';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { scriptedRegistry } from '../helpers/scriptedAgents.ts';
import { jsonOf, startService, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';

const PASSWORD = 'Workflow-Secret-Pass-77';

const signIn = `<!doctype html><title>Sign in</title>
<form method="post" action="/signed-in">
<label for="user">Username</label><input id="user" name="user">
<label for="pw">Password</label><input id="pw" name="pw" type="password">
<button type="submit">Sign in</button>
</form>
<footer><button type="button" onclick="this.textContent = 'Cookies accepted'">Accept all cookies</button></footer>`;

const app = `<!doctype html><title>App</title><main><h1>App</h1>
<button type="button" onclick="localStorage.setItem('remember', 'by-workflow'); this.textContent = 'Remembered'">Remember me</button></main>`;

interface Execution {
  id: string;
  name: string;
  workflow_id: string;
  status: string;
  created_at: string;
  completed_at: string | null;
  session_id: string | null;
  error: string | null;
}
interface Step {
  index: number;
  action: string;
  success: boolean | null;
  result: string | null;
  error: string | null;
  used_cache: boolean;
  started_at: string | null;
  completed_at: string | null;
  job_id: string | null;
  screenshot_url: string | null;
}

describe('workflows (real service, real session browsers, scripted model server and job agents)', () => {
  let svc: TestService;
  let pages: PageServer;
  let model: ModelServer;
  const clock = new FakeClock();
  const posted: string[] = [];

  const api = async (path: string, init: { method?: string; json?: unknown; key?: string } = {}) =>
    jsonOf(
      await svc.api(path, {
        ...(init.method && { method: init.method }),
        key: init.key ?? svc.accountKey,
        ...(init.json !== undefined && { json: init.json }),
      }),
    );
  const create = async (json: unknown, key?: string) =>
    api('/public/workflows', { method: 'POST', json, ...(key && { key }) });
  const createOk = async (json: unknown): Promise<{ id: string }> => {
    const made = await create(json);
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    return made.body as { id: string };
  };
  const run = async (workflowId: string, json: unknown = {}) =>
    api(`/public/workflows/${workflowId}/run`, { method: 'POST', json });
  const detail = async (workflowId: string, executionId: string) =>
    api(`/public/workflows/${workflowId}/executions/${executionId}`);
  const settled = async (workflowId: string, executionId: string): Promise<Execution & { steps: Step[] }> =>
    until(
      async () => {
        const { body } = await detail(workflowId, executionId);
        const execution = body as Execution & { steps: Step[] };
        return execution.status !== 'running' ? execution : undefined;
      },
      `execution ${executionId} to end`,
      60_000,
    );
  const sessionStatus = async (sessionId: string) =>
    ((await api(`/public/sessions/${sessionId}`)).body as { status: string }).status;

  beforeAll(async () => {
    model = await startModelServer();
    pages = await startPageServer({
      '/sign-in': signIn,
      '/signed-in': (_req, body) => {
        posted.push(body);
        return {
          body: '<!doctype html><title>Welcome</title><h1>Welcome back</h1><p>Account number <strong aria-label="Account number">AC-7781</strong></p>',
        };
      },
      '/app': app,
    });
    process.env.PORTICO_ANTHROPIC_BASE_URL = model.anthropicBaseUrl;
    svc = await startService(undefined, {
      agents: scriptedRegistry,
      sessionPoolSize: 0,
      clock: clock,
      secrets: memorySecrets({ 'provider/anthropic': 'sk-ant-test' }),
      llmRetry: { maxRetries: 0, timeoutMs: 10_000 },
    });
    for (const [endpoint_name, task] of [
      ['stored', 'script:storage'],
      ['visit', 'script:visit'],
      ['refuses', 'script:fail'],
    ] as const) {
      expect(
        (
          await svc.request('createPortal', {
            params: { org_id: 'default' },
            body: { endpoint_name, start_url: `${pages.url}/app`, task },
          })
        ).status,
      ).toBe(200);
    }
  });
  afterAll(async () => {
    delete process.env.PORTICO_ANTHROPIC_BASE_URL;
    await svc?.dispose();
    await pages?.close();
    await model?.close();
  });

  it('a run without a session signs in step by step in a session it creates and ends; the second run replays every step from the cache with no model call', async () => {
    model.reset(
      (request: RecordedRequest): ScriptedReply => ({
        toolCalls: [{ name: 'click', input: { index: elementIndex(request, 'Accept all cookies') } }],
      }),
    );
    const steps = [
      { action: `go to ${pages.url}/sign-in` },
      { action: 'get rid of the cookie banner' },
      { action: 'type {{user}} into Username' },
      { action: 'type {{password}} into Password' },
      { action: 'click Sign in' },
      { action: 'extract the text of Account number' },
    ];
    const made = await create({
      name: 'Sign in and read the account',
      steps,
      parameters: { user: 'ada', password: null },
    });
    expect(made.status).toBe(200);
    const workflow = made.body as {
      id: string;
      name: string;
      workspace_id: string;
      steps: unknown[];
      created_at: string;
    };
    expect(workflow).toMatchObject({
      name: 'Sign in and read the account',
      workspace_id: 'default',
      steps,
      created_at: clock.now().toISOString(),
    });
    expect((await api('/public/workflows')).body).toMatchObject({ workflows: [{ id: workflow.id }] });

    const started = await run(workflow.id, { variables: { password: PASSWORD } });
    expect(started.status).toBe(200);
    const first = started.body as Execution;
    expect(first).toMatchObject({
      name: workflow.name,
      workflow_id: workflow.id,
      status: 'running',
      completed_at: null,
      created_at: clock.now().toISOString(),
    });
    expect(first.session_id).toEqual(expect.any(String));
    const done = await settled(workflow.id, first.id);
    expect(done.status, JSON.stringify(done)).toBe('completed');
    expect(done.completed_at).toBe(clock.now().toISOString());
    expect(done.steps.map((s) => [s.index, s.success, s.used_cache])).toEqual(steps.map((_, i) => [i, true, false]));
    expect(done.steps.map((s) => s.action)).toEqual(steps.map((s) => s.action));
    expect(done.steps.at(-1)?.result).toBe('AC-7781');
    // Steps are timed with the service's clock (here the test's, standing still).
    for (const step of done.steps)
      expect([step.started_at, step.completed_at]).toEqual([clock.now().toISOString(), clock.now().toISOString()]);
    expect(posted.at(-1)).toBe(`user=ada&pw=${PASSWORD}`);
    expect(JSON.stringify(done)).not.toContain(PASSWORD);
    expect(model.requests).toHaveLength(1);
    // The session the run made is terminated at the end.
    await until(
      async () => (await sessionStatus(String(first.session_id))) === 'terminated',
      "the run's session to be terminated",
    );

    // Each step has a screenshot of the page after it, for the console's timeline.
    const shot = await svc.api(new URL(String(done.steps[5]?.screenshot_url)).pathname, { key: svc.accountKey });
    expect(shot.status).toBe(200);
    expect(shot.headers.get('content-type')).toBe('image/png');
    expect([...new Uint8Array(await shot.arrayBuffer()).subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);

    clock.advance(60_000);
    const again = (await run(workflow.id, { variables: { user: 'grace', password: PASSWORD } })).body as Execution;
    const replayed = await settled(workflow.id, again.id);
    expect(replayed.status).toBe('completed');
    expect(replayed.steps.map((s) => [s.success, s.used_cache])).toEqual(steps.map(() => [true, true]));
    expect(model.requests).toHaveLength(1);
    expect(posted.at(-1)).toBe(`user=grace&pw=${PASSWORD}`);

    // Executions, most recent first.
    const listed = await api(`/public/workflows/${workflow.id}`);
    expect(listed.status).toBe(200);
    expect((listed.body as { executions: Execution[] }).executions.map((e) => [e.id, e.status])).toEqual([
      [again.id, 'completed'],
      [first.id, 'completed'],
    ]);
  });

  it("portal steps run jobs inside the workflow's session, seeing what the steps before them did; a failed portal job fails the run", async () => {
    const session = (await api('/public/sessions', { method: 'POST', json: {} })).body as { session_id: string };
    const workflow = await createOk({
      name: 'Remember, then hand over',
      steps: [
        { action: `go to ${pages.url}/app` },
        { action: 'click Remember me' },
        { portal: 'stored', form_data: {} },
        { portal: 'visit', form_data: { who: '{{who}}', greeting: 'hello {{who}}', count: '{{count}}' } },
      ],
    });
    const started = (await run(workflow.id, { session_id: session.session_id, variables: { who: 'ada', count: 3 } }))
      .body as Execution;
    const done = await settled(workflow.id, started.id);
    expect(done.status, JSON.stringify(done)).toBe('completed');
    expect(JSON.parse(String(done.steps[2]?.result))).toEqual({ cookie: '', remember: 'by-workflow' });
    expect(JSON.parse(String(done.steps[3]?.result))).toMatchObject({
      echo: { who: 'ada', greeting: 'hello ada', count: 3 },
    });
    expect(done.steps[3]?.action).toBe('run portal visit');
    const jobId = String(done.steps[2]?.job_id);
    expect(
      (
        await svc.send('getJobStatus', {
          params: { org_id: 'default', endpoint_name: 'stored' },
          query: { job_id: jobId },
        })
      ).body,
    ).toMatchObject({ status: 'completed' });
    // A session the caller gave outlives the run.
    expect(await sessionStatus(session.session_id)).toBe('active');

    const failing = await createOk({
      name: 'Refused',
      steps: [{ portal: 'refuses', form_data: {} }, { action: 'click Remember me' }],
    });
    const failed = await settled(
      failing.id,
      ((await run(failing.id, { session_id: session.session_id })).body as Execution).id,
    );
    expect(failed).toMatchObject({ status: 'failed', completed_at: null });
    expect(failed.error).toContain('passport_number');
    expect(failed.steps[0]).toMatchObject({ success: false, job_id: expect.any(String) });
    expect(failed.steps[1]).toMatchObject({ success: null, started_at: null });
    await svc.request('terminateSession', { params: { session_id: session.session_id } }, { key: svc.accountKey });
  });

  it('resume re-runs from the failed step in the same live session; 409 once completed, or when the session has gone', async () => {
    const session = (await api('/public/sessions', { method: 'POST', json: {} })).body as {
      session_id: string;
      cdp_url: string;
    };
    const workflow = await createOk({
      name: 'Needs a hand',
      steps: [{ action: `go to ${pages.url}/app` }, { action: 'click Continue' }, { action: 'click Remember me' }],
    });
    const started = (await run(workflow.id, { session_id: session.session_id })).body as Execution;
    const failed = await settled(workflow.id, started.id);
    expect(failed.status).toBe('failed');
    expect(failed.steps.map((s) => s.success)).toEqual([true, false, null]);
    expect(failed.steps[1]?.error).toContain('Continue');
    expect(failed.error).toContain('Step 1 (click Continue) failed');
    const opened = pages.hits.filter((hit) => hit === 'GET /app').length;

    // Someone fixes the page in the session's browser (over its CDP URL), then resumes.
    const client = await chromium.connectOverCDP(session.cdp_url);
    await client
      .contexts()[0]!
      .pages()[0]!
      .evaluate(() => {
        const button = document.createElement('button');
        button.textContent = 'Continue';
        document.body.append(button);
      });
    await client.close();
    clock.advance(5_000);
    const resumed = await api(`/public/workflows/${workflow.id}/executions/${started.id}/resume`, { method: 'POST' });
    expect(resumed).toMatchObject({
      status: 200,
      body: { id: started.id, status: 'running', completed_at: null, session_id: session.session_id },
    });
    const done = await settled(workflow.id, started.id);
    expect(done.status, JSON.stringify(done)).toBe('completed');
    expect(done.steps.map((s) => s.success)).toEqual([true, true, true]);
    // Step 0 was not run again: same time, the page was not opened again.
    expect(done.steps[0]?.started_at).toBe(failed.steps[0]?.started_at);
    expect(done.steps[1]?.started_at).toBe(clock.now().toISOString());
    expect(pages.hits.filter((hit) => hit === 'GET /app').length).toBe(opened);

    expect(await api(`/public/workflows/${workflow.id}/executions/${started.id}/resume`, { method: 'POST' })).toEqual({
      status: 409,
      body: { detail: 'Only a failed execution can be resumed (status: completed)' },
    });
    await svc.request('terminateSession', { params: { session_id: session.session_id } }, { key: svc.accountKey });

    // A run without a session keeps the one it made for the resume window after failing, then ends it.
    const own = (await run(workflow.id)).body as Execution;
    const ownFailed = await settled(workflow.id, own.id);
    expect(ownFailed.status).toBe('failed');
    expect(await sessionStatus(String(own.session_id))).toBe('active');
    clock.advance(10 * 60_000);
    await until(
      async () => (await sessionStatus(String(own.session_id))) === 'terminated',
      "the failed run's session to end after the resume window",
    );
    expect(await api(`/public/workflows/${workflow.id}/executions/${own.id}/resume`, { method: 'POST' })).toEqual({
      status: 409,
      body: { detail: 'The session of this execution has ended (terminated or expired); start a new run instead' },
    });
  });

  it('workflows and executions belong to the workspace: others get 404, executions listing 403 naming the user; every member sees every run', async () => {
    const workflow = await createOk({ name: 'Shared', steps: [{ action: `go to ${pages.url}/app` }] });
    const mine = (await run(workflow.id)).body as Execution;
    await settled(workflow.id, mine.id);

    const eve = String((await cli(svc.dataDir, ['user', 'create', 'eve', '--workspace', 'elsewhere'])).json.api_key);
    expect(await api('/public/workflows', { key: eve })).toEqual({ status: 200, body: { workflows: [] } });
    expect(await api(`/public/workflows/${workflow.id}/run`, { method: 'POST', json: {}, key: eve })).toEqual({
      status: 404,
      body: { detail: 'Workflow not found' },
    });
    expect(await api(`/public/workflows/${workflow.id}/executions/${mine.id}`, { key: eve })).toEqual({
      status: 404,
      body: { detail: 'Workflow not found' },
    });
    expect(
      await api(`/public/workflows/${workflow.id}/executions/${mine.id}/resume`, { method: 'POST', key: eve }),
    ).toEqual({ status: 404, body: { detail: 'Workflow not found' } });
    expect(await api(`/public/workflows/${workflow.id}`, { key: eve })).toEqual({
      status: 403,
      body: { detail: "User eve is not a member of the workflow's workspace" },
    });
    expect(
      (
        await svc.request(
          'getWorkflowStepScreenshot',
          { params: { workflow_id: workflow.id, execution_id: mine.id, index: '0' } },
          { key: eve },
        )
      ).status,
    ).toBe(404);

    const bob = String((await cli(svc.dataDir, ['user', 'create', 'bob', '--workspace', 'default'])).json.api_key);
    const bobs = (await api(`/public/workflows/${workflow.id}/run`, { method: 'POST', json: {}, key: bob }))
      .body as Execution;
    await settled(workflow.id, bobs.id);
    const seen = await api(`/public/workflows/${workflow.id}`);
    expect((seen.body as { executions: Execution[] }).executions.map((e) => e.id)).toEqual([bobs.id, mine.id]);
    expect((await api(`/public/workflows/${workflow.id}`, { key: bob })).body).toEqual(seen.body);
    // Membership is read on every request: once removed, bob gets the interface's 403 here, the plain one elsewhere.
    expect((await cli(svc.dataDir, ['workspace', 'remove-member', 'default', 'bob'])).code).toBe(0);
    expect(await api(`/public/workflows/${workflow.id}`, { key: bob })).toEqual({
      status: 403,
      body: { detail: "User bob is not a member of the workflow's workspace" },
    });
    expect(await api('/public/workflows', { key: bob })).toEqual({
      status: 403,
      body: { detail: 'Not a member of this workspace' },
    });
    expect(await api(`/public/workflows/${workflow.id}/executions/${bobs.id}`, { key: bob })).toEqual({
      status: 403,
      body: { detail: 'Not a member of this workspace' },
    });

    expect(await api('/public/workflows/00000000-0000-4000-8000-000000000000')).toEqual({
      status: 404,
      body: { detail: 'Workflow not found' },
    });
    expect(await api(`/public/workflows/${workflow.id}/executions/00000000-0000-4000-8000-000000000000`)).toEqual({
      status: 404,
      body: { detail: 'Execution not found' },
    });

    // A store that cannot answer: the interface's message, with the reason.
    const db = new Database(join(svc.dataDir, 'portico.db'));
    try {
      db.exec('ALTER TABLE workflow_executions RENAME TO workflow_executions_away');
      expect(await api(`/public/workflows/${workflow.id}`)).toEqual({
        status: 500,
        body: { detail: 'Error getting workflow executions: no such table: workflow_executions' },
      });
    } finally {
      db.exec('ALTER TABLE workflow_executions_away RENAME TO workflow_executions');
      db.close();
    }
    expect((await api(`/public/workflows/${workflow.id}`)).status).toBe(200);
  });

  it('hostile and wrong input is a 422 naming the field, and writes nothing', async () => {
    const count = async () => ((await api('/public/workflows')).body as { workflows: unknown[] }).workflows.length;
    const before = await count();
    const detailOf = async (json: unknown) => {
      const answer = await create(json);
      expect(answer.status, JSON.stringify(answer.body)).toBe(422);
      return String((answer.body as { detail: string }).detail);
    };
    expect(
      await detailOf({ name: 'Too long', steps: Array.from({ length: 51 }, () => ({ action: 'press Enter' })) }),
    ).toContain('steps');
    expect(await detailOf({ name: 'None', steps: [] })).toContain('steps');
    expect(await detailOf({ name: 'Huge', steps: [{ action: `click ${'x'.repeat(5000)}` }] })).toContain('steps');
    // 20 levels: within what any JSON body may nest (64), past a workflow step's form_data limit (16).
    expect(
      await detailOf({
        name: 'Deep',
        steps: [{ portal: 'visit', form_data: JSON.parse(`${'{"d":'.repeat(20)}1${'}'.repeat(20)}`) }],
      }),
    ).toContain('must nest at most 16 levels');
    // 100 000 levels, sent as text (serializing it here would exhaust the test's own stack): refused by the body parser.
    const deep = `{"name":"Deep","steps":[{"portal":"visit","form_data":${'{"d":'.repeat(100_000)}1${'}'.repeat(100_000)}}]}`;
    const deepAnswer = await jsonOf(
      await svc.api('/public/workflows', {
        method: 'POST',
        key: svc.accountKey,
        headers: { 'content-type': 'application/json' },
        body: deep,
      }),
    );
    expect(deepAnswer.status).toBe(422);
    expect(String((deepAnswer.body as { detail: string }).detail)).toBe(
      'body: must not nest objects or arrays deeper than 64 levels',
    );
    expect(
      await detailOf({ name: 'Big', steps: [{ portal: 'visit', form_data: { blob: 'x'.repeat(70_000) } }] }),
    ).toContain('bytes');
    expect(await detailOf({ name: 'Nowhere', steps: [{ portal: 'no-such-portal', form_data: {} }] })).toBe(
      "body.steps[0].portal: no portal 'no-such-portal' in organization 'default'",
    );
    expect(
      await detailOf({
        name: 'Undeclared',
        steps: [{ action: 'type {{email}} into Email' }],
        parameters: { name: null },
      }),
    ).toBe("body.steps[0]: variable 'email' is not declared in parameters");
    expect(
      await detailOf({ name: 'Broken', steps: [{ action: 'press Enter' }, { action: 'type {{ email into Email' }] }),
    ).toMatch(/^body\.steps\[1\]\.action: unreadable variable reference/);
    expect(await detailOf({ name: 'Extra', steps: [{ action: 'press Enter', selector: '#x' }] })).toBe(
      "body.steps[0]: unknown field 'selector'",
    );
    expect(await detailOf({ name: 'Both', steps: [{ action: 'press Enter', portal: 'visit', form_data: {} }] })).toBe(
      'body.steps[0]: must be either {action, variables?} or {portal, form_data}',
    );
    expect(await detailOf({ name: ' ', steps: [{ action: 'press Enter' }] })).toContain('name');
    expect(await count()).toBe(before);

    const workflow = await createOk({
      name: 'Typed',
      steps: [
        { action: 'type {{email}} into Email' },
        { action: 'type {{code}} into Code', variables: { code: '123456' } },
      ],
    });
    const executions = async () =>
      ((await api(`/public/workflows/${workflow.id}`)).body as { executions: unknown[] }).executions.length;
    expect(await run(workflow.id, { variables: { email: 'a@example.com', nope: 'x' } })).toEqual({
      status: 422,
      body: { detail: "body.variables.nope: unknown variable; this workflow uses 'email'" },
    });
    expect(await run(workflow.id, { variables: {} })).toEqual({
      status: 422,
      body: { detail: 'body.variables.email: required by step 0 and has no default' },
    });
    expect((await run(workflow.id, { variables: { email: 'x'.repeat(10_001) } })).status).toBe(422);
    expect(
      (await run(workflow.id, { variables: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`v${i}`, 'x'])) }))
        .status,
    ).toBe(422);
    expect(
      await run(workflow.id, {
        session_id: '00000000-0000-4000-8000-000000000000',
        variables: { email: 'a@example.com' },
      }),
    ).toEqual({ status: 404, body: { detail: 'Session not found' } });
    expect((await run('not-a-uuid')).status).toBe(422);
    expect(await executions()).toBe(0);
    expect(
      (
        await svc.api('/public/workflows', {
          method: 'POST',
          key: svc.accountKey,
          headers: { 'content-type': 'application/json' },
          body: '{"name": "x", "steps": [',
        })
      ).status,
    ).toBe(400);
    // An org key is not an account key.
    expect(await api('/public/workflows', { key: svc.orgKey })).toEqual({
      status: 403,
      body: { detail: 'This endpoint requires an account API key' },
    });
  });
});
