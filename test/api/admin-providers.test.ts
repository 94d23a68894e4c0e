import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.ts';
import { startModelServer, type ModelServer } from '../helpers/modelServer.ts';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { jsonOf, startService, waitForJob, type TestService } from '../helpers/service.ts';
import { memorySecrets } from '../helpers/memorySecrets.ts';
import { readConfig } from '../../src-main/base/config.ts';

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('provider "Test connection" (real SDKs against the scripted model server)', () => {
  let svc: TestService;
  let model: ModelServer;
  let compatible: Server;
  const saved = { ...process.env };
  const asConsole = (): { key: null; headers: Record<string, string> } => ({
    key: null,
    headers: { 'x-console-token': svc.consoleToken },
  });
  const setKey = async (provider: string, key: string) =>
    expect(
      (await svc.api(`/admin/providers/${provider}`, { ...asConsole(), method: 'PUT', json: { api_key: key } })).status,
    ).toBe(200);
  const test = async (provider: string) =>
    jsonOf(await svc.api(`/admin/providers/${provider}/test`, { ...asConsole(), method: 'POST' }));

  beforeAll(async () => {
    model = await startModelServer();
    // An OpenAI-compatible server (llama.cpp, LM Studio…) is checked through its model list.
    compatible = createServer((req, res) => {
      if (req.url === '/v1/models' && req.headers.authorization === 'Bearer local-key') {
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ object: 'list', data: [{ id: 'qwen', object: 'model', created: 0, owned_by: 'me' }] }));
      } else
        res
          .writeHead(401, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: 'bad key for local server' } }));
    });
    await new Promise<void>((resolve) => compatible.listen(0, '127.0.0.1', resolve));
    process.env.PORTICO_ANTHROPIC_BASE_URL = model.anthropicBaseUrl;
    process.env.PORTICO_OPENAI_BASE_URL = model.openaiBaseUrl;
    process.env.PORTICO_OPENAI_COMPATIBLE_BASE_URL = `http://127.0.0.1:${(compatible.address() as AddressInfo).port}/v1`;
    svc = await startService(undefined, { secrets: memorySecrets() });
  });
  afterAll(async () => {
    await svc?.dispose();
    await model?.close();
    await new Promise<void>((resolve) => (compatible ? compatible.close(() => resolve()) : resolve()));
    for (const name of [
      'PORTICO_ANTHROPIC_BASE_URL',
      'PORTICO_OPENAI_BASE_URL',
      'PORTICO_OPENAI_COMPATIBLE_BASE_URL',
    ]) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  it('a working Anthropic key: one single-token call with the stored key, reported as ok', async () => {
    await setKey('anthropic', 'sk-ant-good');
    model.reset([{ text: 'OK', usage: { input: 5, output: 1 } }]);
    expect(await test('anthropic')).toEqual({
      status: 200,
      body: {
        provider: 'anthropic',
        status: 'ok',
        detail: `Anthropic accepted the key at ${model.anthropicBaseUrl} (anthropic:claude-haiku-4-5 answered)`,
      },
    });
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]?.raw).not.toContain('sk-ant-good');
    expect(JSON.stringify(model.requests[0]?.headers)).toContain('sk-ant-good');
    expect(model.requests[0]?.body.max_tokens).toBe(1);
  });

  it("a wrong key: the provider's 401 message in plain words, asked once (no retries)", async () => {
    await setKey('anthropic', 'sk-ant-wrong');
    model.reset([
      { status: 401, error: 'invalid x-api-key' },
      { status: 401, error: 'retried' },
    ]);
    expect(await test('anthropic')).toEqual({
      status: 200,
      body: {
        provider: 'anthropic',
        status: 'failed',
        detail: 'Anthropic rejected the key (HTTP 401): invalid x-api-key',
      },
    });
    expect(model.requests).toHaveLength(1);

    await setKey('openai', 'sk-openai-wrong');
    model.reset([{ status: 401, error: 'Incorrect API key provided' }]);
    expect((await test('openai')).body).toEqual({
      provider: 'openai',
      status: 'failed',
      detail: 'OpenAI rejected the key (HTTP 401): Incorrect API key provided',
    });
    expect(model.requests[0]?.headers.authorization).toBe('Bearer sk-openai-wrong');
  });

  it('OpenAI ok, and an unreachable base URL says which URL could not be reached', async () => {
    await setKey('openai', 'sk-openai-good');
    model.reset([{ text: 'OK' }]);
    expect((await test('openai')).body).toMatchObject({ provider: 'openai', status: 'ok' });
    // The environment is read once at start: a service started with a dead base URL.
    const dead = `http://127.0.0.1:${await closedPort()}/v1`;
    const deadSvc = await startService(undefined, {
      secrets: memorySecrets(),
      config: readConfig({ ...process.env, PORTICO_OPENAI_BASE_URL: dead }),
    });
    try {
      const headers = { 'x-console-token': deadSvc.consoleToken };
      expect(
        (
          await deadSvc.api('/admin/providers/openai', {
            key: null,
            headers,
            method: 'PUT',
            json: { api_key: 'sk-openai-good' },
          })
        ).status,
      ).toBe(200);
      const body = (
        await jsonOf(await deadSvc.api('/admin/providers/openai/test', { key: null, headers, method: 'POST' }))
      ).body as { status: string; detail: string };
      expect(body.status).toBe('failed');
      expect(body.detail).toMatch(new RegExp(`^Could not reach ${dead.replace(/[.]/g, '\\.')}: .*ECONNREFUSED`));
    } finally {
      await deadSvc.dispose();
    }
  });

  it('an OpenAI-compatible server is checked through its model list', async () => {
    await setKey('openai-compatible', 'local-key');
    expect((await test('openai-compatible')).body).toEqual({
      provider: 'openai-compatible',
      status: 'ok',
      detail: `${process.env.PORTICO_OPENAI_COMPATIBLE_BASE_URL} answered and lists 1 model`,
    });
    await setKey('openai-compatible', 'nope');
    expect((await test('openai-compatible')).body).toMatchObject({
      status: 'failed',
      detail: 'The OpenAI-compatible server rejected the key (HTTP 401): bad key for local server',
    });
  });

  it('no stored key: says so without calling anyone', async () => {
    model.reset([]);
    expect((await test('moonshot')).body).toEqual({
      provider: 'moonshot',
      status: 'failed',
      detail: 'No key is stored for this provider',
    });
    expect(model.requests).toHaveLength(0);
  });
});

describe('provider base URL from the console (PUT /admin/providers/{provider} base_url)', () => {
  let svc: TestService;
  let model: ModelServer;
  let pages: PageServer;
  const ENV_NAMES = [
    'PORTICO_ANTHROPIC_BASE_URL',
    'PORTICO_OPENAI_BASE_URL',
    'PORTICO_MOONSHOT_BASE_URL',
    'PORTICO_OPENAI_COMPATIBLE_BASE_URL',
  ];
  const saved = Object.fromEntries(ENV_NAMES.map((name) => [name, process.env[name]]));
  const asConsole = (): { key: null; headers: Record<string, string> } => ({
    key: null,
    headers: { 'x-console-token': svc.consoleToken },
  });
  const put = async (provider: string, json: unknown) =>
    jsonOf(await svc.api(`/admin/providers/${provider}`, { ...asConsole(), method: 'PUT', json }));
  const statusOf = async (provider: string) =>
    (
      (await jsonOf(await svc.api('/admin/providers', asConsole()))).body as { providers: { provider: string }[] }
    ).providers.find((p) => p.provider === provider);
  const startJob = async () =>
    await svc.send('startJob', {
      params: { org_id: 'default', endpoint_name: 'local-model' },
      body: { form_data: {}, orchestrator_model: 'openai-compatible:qwen' },
    });

  beforeAll(async () => {
    // Only the console route may supply base URLs here.
    for (const name of ENV_NAMES) delete process.env[name];
    model = await startModelServer();
    pages = await startPageServer({ '/form': '<!doctype html><title>Local form</title><h1>Hello</h1>' });
    svc = await startService(undefined, {
      secrets: memorySecrets(),
      llmRetry: { maxRetries: 0, timeoutMs: 10_000 },
      jobConcurrency: 1,
    });
    expect(
      (
        await svc.send('createPortal', {
          params: { org_id: 'default' },
          body: { endpoint_name: 'local-model', start_url: `${pages.url}/form`, task: 'Read the heading' },
        })
      ).status,
    ).toBe(200);
  });
  afterAll(async () => {
    await svc?.dispose();
    await model?.close();
    await pages?.close();
    for (const name of ENV_NAMES) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  it("the status shows each provider's base URL and where it comes from", async () => {
    expect(await statusOf('anthropic')).toEqual({
      provider: 'anthropic',
      configured: false,
      base_url: 'https://api.anthropic.com',
      base_url_source: 'default',
    });
    expect(await statusOf('moonshot')).toMatchObject({
      base_url: 'https://api.moonshot.ai/v1',
      base_url_source: 'default',
    });
    expect(await statusOf('openai-compatible')).toEqual({
      provider: 'openai-compatible',
      configured: false,
      base_url: null,
      base_url_source: null,
    });
    const withEnv = await startService(undefined, {
      secrets: memorySecrets(),
      config: readConfig({ ...process.env, PORTICO_OPENAI_BASE_URL: 'http://env.test/v1' }),
    });
    try {
      const listed = (
        await jsonOf(
          await withEnv.api('/admin/providers', { key: null, headers: { 'x-console-token': withEnv.consoleToken } }),
        )
      ).body as { providers: { provider: string }[] };
      expect(listed.providers.find((p) => p.provider === 'openai')).toMatchObject({
        base_url: 'http://env.test/v1',
        base_url_source: 'env',
      });
    } finally {
      await withEnv.dispose();
    }
  });

  it("the SDKs' own ANTHROPIC_BASE_URL / OPENAI_BASE_URL are honoured below PORTICO_* and a stored one: a gateway key goes to the gateway", async () => {
    const env = {
      ...process.env,
      ANTHROPIC_BASE_URL: model.anthropicBaseUrl,
      OPENAI_BASE_URL: 'http://sdk-env.test/v1',
    };
    const gateway = await startService(undefined, { secrets: memorySecrets(), config: readConfig(env) });
    try {
      const console = { key: null, headers: { 'x-console-token': gateway.consoleToken } };
      const listed = (await jsonOf(await gateway.api('/admin/providers', console))).body as {
        providers: { provider: string }[];
      };
      expect(listed.providers.find((p) => p.provider === 'anthropic')).toMatchObject({
        base_url: model.anthropicBaseUrl,
        base_url_source: 'sdk_env',
      });
      expect(listed.providers.find((p) => p.provider === 'openai')).toMatchObject({
        base_url: 'http://sdk-env.test/v1',
        base_url_source: 'sdk_env',
      });
      // The key meant for the gateway is sent to the gateway, not to api.anthropic.com.
      expect(
        (
          await gateway.api('/admin/providers/anthropic', {
            ...console,
            method: 'PUT',
            json: { api_key: 'sk-gateway' },
          })
        ).status,
      ).toBe(200);
      model.reset([{ text: 'OK', usage: { input: 5, output: 1 } }]);
      const tested = await jsonOf(await gateway.api('/admin/providers/anthropic/test', { ...console, method: 'POST' }));
      expect(tested.body).toMatchObject({ status: 'ok' });
      expect(JSON.stringify(model.requests[0]?.headers)).toContain('sk-gateway');
      // A stored base URL is an explicit choice: it wins over the SDK's variable.
      expect(
        (
          await gateway.api('/admin/providers/openai', {
            ...console,
            method: 'PUT',
            json: { base_url: 'http://stored.test/v1' },
          })
        ).status,
      ).toBe(200);
      const after = (await jsonOf(await gateway.api('/admin/providers', console))).body as {
        providers: { provider: string }[];
      };
      expect(after.providers.find((p) => p.provider === 'openai')).toMatchObject({
        base_url: 'http://stored.test/v1',
        base_url_source: 'stored',
      });
    } finally {
      await gateway.dispose();
    }
    // Portico's own variable wins over the SDK's; a malformed SDK variable stops start-up naming it.
    expect(
      readConfig({ ANTHROPIC_BASE_URL: 'http://sdk.test', PORTICO_ANTHROPIC_BASE_URL: 'http://portico.test' }).providers
        .anthropic,
    ).toMatchObject({ baseUrl: 'http://portico.test', sdkBaseUrl: 'http://sdk.test' });
    expect(() => readConfig({ OPENAI_BASE_URL: 'not a url' })).toThrow(/OPENAI_BASE_URL/);
  });

  it('refuses a base URL that is not http(s), and a body with nothing to store', async () => {
    expect(await put('openai-compatible', { base_url: 'ftp://127.0.0.1/v1' })).toEqual({
      status: 422,
      body: { detail: 'body.base_url: must be an absolute http(s) URL' },
    });
    expect(await put('openai-compatible', { base_url: 'localhost:11434' })).toEqual({
      status: 422,
      body: { detail: 'body.base_url: must be an absolute http(s) URL' },
    });
    expect(await put('openai-compatible', {})).toEqual({
      status: 422,
      body: { detail: 'body: give api_key, base_url or both' },
    });
    expect(await statusOf('openai-compatible')).toMatchObject({ base_url: null });
  });

  it('a job on an OpenAI-compatible model calls the base URL stored through the console (no key needed); null clears it', async () => {
    const before = await startJob();
    expect(before.status).toBe(422);
    expect((before.body as { detail: string }).detail).toMatch(
      /^body\.orchestrator_model: model 'openai-compatible:qwen' is not configured: no base URL/,
    );

    expect(await put('openai-compatible', { base_url: ` ${model.openaiBaseUrl} ` })).toEqual({
      status: 200,
      body: {
        provider: 'openai-compatible',
        configured: false,
        base_url: model.openaiBaseUrl,
        base_url_source: 'stored',
      },
    });
    model.reset([{ toolCalls: [{ name: 'done', input: { result: { heading: 'Hello' } } }] }]);
    const started = await startJob();
    expect(started.status).toBe(200);
    const job = await waitForJob(svc, 'local-model', (started.body as { job_id: string }).job_id, [
      'completed',
      'failed',
    ]);
    expect(job).toMatchObject({
      status: 'completed',
      result: { heading: 'Hello' },
      orchestrator_model: 'openai-compatible:qwen',
    });
    expect(model.requests.length).toBeGreaterThan(0);
    expect(model.requests[0]).toMatchObject({ api: 'openai', path: '/v1/chat/completions', body: { model: 'qwen' } });

    // The environment still wins over the stored URL, and says so (a service started with it, on the same data dir).
    const withEnv = await startService(svc.dataDir, {
      secrets: memorySecrets(),
      config: readConfig({ ...process.env, PORTICO_OPENAI_COMPATIBLE_BASE_URL: 'http://env.test/v1' }),
    });
    try {
      const listed = (
        await jsonOf(
          await withEnv.api('/admin/providers', { key: null, headers: { 'x-console-token': withEnv.consoleToken } }),
        )
      ).body as { providers: { provider: string }[] };
      expect(listed.providers.find((p) => p.provider === 'openai-compatible')).toMatchObject({
        base_url: 'http://env.test/v1',
        base_url_source: 'env',
      });
    } finally {
      await withEnv.stop();
    }
    expect(await statusOf('openai-compatible')).toMatchObject({
      base_url: model.openaiBaseUrl,
      base_url_source: 'stored',
    });

    expect((await put('openai-compatible', { base_url: null })).body).toMatchObject({
      base_url: null,
      base_url_source: null,
    });
    expect((await startJob()).status).toBe(422);
  });

  it('shares the store with `portico provider set-base-url`; a key and a base URL save together and Test connection uses both', async () => {
    expect((await cli(svc.dataDir, ['provider', 'set-base-url', 'moonshot', model.openaiBaseUrl])).json).toEqual({
      provider: 'moonshot',
      base_url: model.openaiBaseUrl,
    });
    expect(await statusOf('moonshot')).toMatchObject({ base_url: model.openaiBaseUrl, base_url_source: 'stored' });
    expect((await put('moonshot', { base_url: null })).body).toMatchObject({
      base_url: 'https://api.moonshot.ai/v1',
      base_url_source: 'default',
    });

    expect(await put('moonshot', { api_key: 'sk-moon', base_url: model.openaiBaseUrl })).toEqual({
      status: 200,
      body: { provider: 'moonshot', configured: true, base_url: model.openaiBaseUrl, base_url_source: 'stored' },
    });
    model.reset([{ text: 'OK' }]);
    const test = await jsonOf(await svc.api('/admin/providers/moonshot/test', { ...asConsole(), method: 'POST' }));
    expect(test.body).toEqual({
      provider: 'moonshot',
      status: 'ok',
      detail: `Moonshot accepted the key at ${model.openaiBaseUrl} (moonshot:kimi-k2.5 answered)`,
    });
    expect(model.requests[0]?.headers.authorization).toBe('Bearer sk-moon');
    // Removing the key leaves the base URL.
    expect((await svc.api('/admin/providers/moonshot', { ...asConsole(), method: 'DELETE' })).status).toBe(204);
    expect(await statusOf('moonshot')).toMatchObject({
      configured: false,
      base_url: model.openaiBaseUrl,
      base_url_source: 'stored',
    });
  });
});
