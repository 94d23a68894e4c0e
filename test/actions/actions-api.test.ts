import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.ts';
import { memorySecrets } from '../helpers/memorySecrets.ts';
import {
  startModelServer,
  type ModelServer,
  type RecordedRequest,
  type ScriptedReply,
} from '../helpers/modelServer.ts';
import { elementIndex } from '../helpers/modelTurns.ts';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { startService, type TestService } from '../helpers/service.ts';

const PASSWORD = 'Very-Secret-Pass-42';

const signIn = `<!doctype html><title>Sign in</title>
<form method="post" action="/signed-in">
<label for="user">Username</label><input id="user" name="user">
<label for="pw">Password</label><input id="pw" name="pw" type="password">
<button type="submit">Sign in</button>
</form>
<footer><button type="button" onclick="document.body.dataset.cookies = 'ok'; this.textContent = 'Cookies accepted'">Accept all cookies</button></footer>`;

describe('POST /public/single-actions/run-action (real service, real session browser, scripted model server)', () => {
  let svc: TestService;
  let pages: PageServer;
  let model: ModelServer;
  let otherKey: string;
  let sessionId: string;
  const posted: string[] = [];

  const run = async (json: Record<string, unknown>, key?: string) =>
    await svc.send('runSingleAction', { body: { session_id: sessionId, ...json } }, { key: key ?? svc.accountKey });
  const cacheList = async (key?: string) => await svc.send('listActionCache', {}, { key: key ?? svc.accountKey });

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
    });
    process.env.PORTICO_ANTHROPIC_BASE_URL = model.anthropicBaseUrl;
    svc = await startService(undefined, {
      sessionPoolSize: 0,
      secrets: memorySecrets({ 'provider/anthropic': 'sk-ant-test' }),
      llmRetry: { maxRetries: 0, timeoutMs: 10_000 },
    });
    otherKey = String((await cli(svc.dataDir, ['user', 'create', 'eve', '--workspace', 'elsewhere'])).json.api_key);
    const created = await svc.send('createSession', { body: {} }, { key: svc.accountKey });
    expect(created.status).toBe(200);
    sessionId = String((created.body as { session_id: string }).session_id);
  });
  afterAll(async () => {
    delete process.env.PORTICO_ANTHROPIC_BASE_URL;
    await svc?.dispose();
    await pages?.close();
    await model?.close();
  });

  it('signs in with three actions; variables are typed, never echoed', async () => {
    expect(await run({ action: `go to ${pages.url}/sign-in` })).toMatchObject({
      status: 200,
      body: { success: true, credits: 1, used_cache: false, set_cache: true, cache_failed: false },
    });
    const typed = await run({ action: 'type {{user}} into Username', variables: { user: 'ada' } });
    expect(typed).toEqual({
      status: 200,
      body: {
        success: true,
        result: 'Filled textbox "Username"',
        credits: 1,
        used_cache: false,
        set_cache: true,
        cache_failed: false,
      },
    });
    const pw = await run({ action: 'type {{password}} into Password', variables: { password: PASSWORD } });
    expect(JSON.stringify(pw.body)).not.toContain(PASSWORD);
    expect(await run({ action: 'click Sign in' })).toMatchObject({ body: { success: true } });
    expect(posted.at(-1)).toBe(`user=ada&pw=${PASSWORD}`);
    expect(await run({ action: 'extract the text of Account number' })).toMatchObject({
      body: { success: true, result: 'AC-7781' },
    });
  });

  it('the second run of the same steps replays the cache; GET /public/single-actions/cache shows hits and misses', async () => {
    await run({ action: `go to ${pages.url}/sign-in` });
    expect(await run({ action: 'type {{user}} into Username', variables: { user: 'grace' } })).toMatchObject({
      body: { success: true, used_cache: true, set_cache: false },
    });
    const list = await cacheList();
    expect(list.status).toBe(200);
    const entry = (list.body as { entries: Array<Record<string, unknown>> }).entries.find(
      (e) => e.action === 'type {{user}} into Username',
    );
    expect(entry).toMatchObject({
      page: `${pages.url}/sign-in`,
      operation: 'fill',
      target: { role: 'textbox', name: 'Username' },
      hits: 1,
      misses: 1,
    });
    // Another workspace sees none of it.
    expect(await cacheList(otherKey)).toEqual({ status: 200, body: { entries: [], total: 0 } });
  });

  it('an action the interpreter cannot read goes to the model once (elements + screenshot → one tool call); the replay needs no model', async () => {
    await run({ action: `go to ${pages.url}/sign-in` });
    model.reset(
      (request: RecordedRequest): ScriptedReply => ({
        toolCalls: [{ name: 'click', input: { index: elementIndex(request, 'Accept all cookies') } }],
      }),
    );
    const action = 'get rid of the cookie banner';
    const first = await run({ action });
    expect(first).toMatchObject({ status: 200, body: { success: true, used_cache: false, set_cache: true } });
    // 1 for the action, 10 for one started minute of claude-sonnet-4-6 (docs/credits.md).
    expect((first.body as { credits: number }).credits).toBe(11);
    expect(model.requests).toHaveLength(1);
    const request = model.requests[0]!;
    const content = request.body.messages[0].content as Array<{ type: string }>;
    expect(content.map((b) => b.type).sort()).toEqual(['image', 'text']);
    expect((request.body.tools as Array<{ name: string }>).map((t) => t.name).sort()).toEqual([
      'check',
      'click',
      'extract',
      'fail',
      'navigate',
      'press_key',
      'scroll',
      'select',
      'type',
    ]);

    await run({ action: `go to ${pages.url}/sign-in` });
    expect(await run({ action })).toMatchObject({ body: { success: true, used_cache: true, credits: 1 } });
    expect(model.requests).toHaveLength(1);
  });

  it('a variable the model types reaches it only as a placeholder; the cached step keeps {{name}} and replays other values', async () => {
    await run({ action: `go to ${pages.url}/sign-in` });
    model.reset(
      (request: RecordedRequest): ScriptedReply => ({
        toolCalls: [{ name: 'type', input: { index: elementIndex(request, 'Username'), text: '{{form_data.login}}' } }],
      }),
    );
    const action = 'put {{login}} where the account name goes';
    expect(await run({ action, variables: { login: 'ada.lovelace@example.com' } })).toMatchObject({
      body: { success: true, set_cache: true },
    });
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]!.raw).not.toContain('ada.lovelace@example.com');
    expect(model.requests[0]!.raw).toContain('{{form_data.login}}');
    expect(await run({ action: 'extract the text of Username' })).toMatchObject({
      body: { result: 'ada.lovelace@example.com' },
    });
    // The page now shows the value in the Username field; the next model call still sees only the placeholder.
    model.reset(
      (request: RecordedRequest): ScriptedReply => ({
        toolCalls: [{ name: 'click', input: { index: elementIndex(request, 'Accept all cookies') } }],
      }),
    );
    expect(
      await run({
        action: 'dismiss the cookie notice for {{login}}',
        variables: { login: 'ada.lovelace@example.com' },
        set_cache: false,
      }),
    ).toMatchObject({ body: { success: true } });
    expect(model.requests[0]!.raw).not.toContain('ada.lovelace@example.com');
    expect(model.requests[0]!.raw).toContain('value=\\"{{form_data.login}}\\"');
    model.reset([]);
    expect(await run({ action, variables: { login: 'grace.hopper@example.com' } })).toMatchObject({
      body: { success: true, used_cache: true, credits: 1 },
    });
    expect(model.requests).toHaveLength(0);
    expect(await run({ action: 'extract the text of Username' })).toMatchObject({
      body: { result: 'grace.hopper@example.com' },
    });
    const entry = ((await cacheList()).body as { entries: Array<Record<string, unknown>> }).entries.find(
      (e) => e.action === action,
    );
    expect(entry).toMatchObject({ operation: 'fill', target: { role: 'textbox', name: 'Username' } });
  });

  it('the model saying the target is not there is success: false with its reason', async () => {
    await run({ action: `go to ${pages.url}/sign-in` });
    model.reset([{ toolCalls: [{ name: 'fail', input: { reason: 'There is no newsletter checkbox on this page' } }] }]);
    expect(await run({ action: 'make sure I do not get the newsletter', set_cache: false })).toMatchObject({
      status: 200,
      body: {
        success: false,
        error: 'There is no newsletter checkbox on this page',
        used_cache: false,
        set_cache: false,
      },
    });
  });

  it("a model provider that fails is this action's failure (success: false naming it), not a 500", async () => {
    await run({ action: `go to ${pages.url}/sign-in` });
    model.reset([{ status: 500, error: 'overloaded' }]);
    const outcome = await run({ action: 'do the thing the banner wants', set_cache: false });
    expect(outcome.status).toBe(200);
    expect(outcome.body).toMatchObject({ success: false, used_cache: false, set_cache: false });
    expect((outcome.body as { error: string }).error).toMatch(
      /^The model 'anthropic:claude-sonnet-4-6' could not be reached/,
    );
  });

  it('bad input is a 422 {detail}; an oversized action never reaches the browser', async () => {
    const long = await run({ action: `click ${'x'.repeat(100_000)}` });
    expect(long.status).toBe(422);
    expect((long.body as { detail: string }).detail).toMatch(/^body\.action: /);
    expect((await run({ action: '' })).status).toBe(422);
    expect((await run({ action: 'click OK', variables: { a: { nested: true } } })).status).toBe(422);
    expect((await run({ action: 'click OK', user_agent: 'bad\nagent' })).status).toBe(422);
    expect((await run({ action: 'click OK', extra: 1 })).status).toBe(422);
    const malformed = await svc.api('/public/single-actions/run-action', {
      method: 'POST',
      key: svc.accountKey,
      headers: { 'content-type': 'application/json' },
      body: '{"action": ',
    });
    expect(malformed.status).toBe(400);
  });

  it('a missing, foreign or terminated session is 404 Session not found; an org key is 403', async () => {
    expect(await run({ action: 'click OK', session_id: 'no-such-session' })).toEqual({
      status: 404,
      body: { detail: 'Session not found' },
    });
    expect(await run({ action: 'click OK' }, otherKey)).toEqual({ status: 404, body: { detail: 'Session not found' } });
    expect((await run({ action: 'click OK' }, svc.orgKey)).status).toBe(403);
    const other = await svc.send('createSession', { body: {} }, { key: svc.accountKey });
    const otherId = String((other.body as { session_id: string }).session_id);
    await svc.request('terminateSession', { params: { session_id: otherId } }, { key: svc.accountKey });
    expect(await run({ action: 'click OK', session_id: otherId })).toEqual({
      status: 404,
      body: { detail: 'Session not found' },
    });
  });

  it("an internal fault is a 500 with the interface's message and no internals", async () => {
    // A real fault: the cache table disappears under the running service.
    const db = new Database(join(svc.dataDir, 'portico.db'));
    db.exec('DROP TABLE action_cache');
    db.close();
    await run({ action: `go to ${pages.url}/sign-in`, set_cache: false }).catch(() => undefined);
    expect(await run({ action: 'click Sign in' })).toEqual({
      status: 500,
      body: { detail: 'Failed to run single action: internal error' },
    });
  });
});
