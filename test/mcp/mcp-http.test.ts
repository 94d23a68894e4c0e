import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonOf, startService, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';
import { ACCOUNT_TOOLS, ORG_TOOLS, toolJson, useMcpService } from './mcpFixtures.ts';

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const MCP_ACCEPT = 'application/json, text/event-stream';

describe('POST /mcp: the MCP tools over Streamable HTTP (SDK client, real service, real Chromium)', () => {
  const mcp = useMcpService();

  const connect = async (headers: Record<string, string>): Promise<Client> => {
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${mcp.svc.url}/mcp`), { requestInit: { headers } }),
    );
    return mcp.keep(client);
  };
  const rawPost = (headers: Record<string, string>, body: string = JSON.stringify(INITIALIZE)) =>
    fetch(`${mcp.svc.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: MCP_ACCEPT, ...headers },
      body,
    });

  it('an org key gets the portal and job tools, an account key (as Bearer) the session, action and credential tools', async () => {
    const org = await connect({ 'x-api-key': mcp.svc.orgKey });
    expect((await org.listTools()).tools.map((tool) => tool.name).sort()).toEqual(ORG_TOOLS);
    const account = await connect({ authorization: `Bearer ${mcp.svc.accountKey}` });
    const accountTools = (await account.listTools()).tools;
    expect(accountTools.map((tool) => tool.name).sort()).toEqual(ACCOUNT_TOOLS);
    // Schemas use the HTTP API's field names.
    const runAction = accountTools.find((tool) => tool.name === 'run_action');
    expect(Object.keys(runAction?.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['session_id', 'action', 'variables']),
    );
  });

  it('run_job fills the real form to completion, with a progress note per step; get_job adds the last screenshot', async () => {
    const client = await connect({ 'x-api-key': mcp.svc.orgKey });
    const portals = toolJson(await client.callTool({ name: 'list_portals', arguments: {} }));
    expect(portals.portals).toEqual([
      expect.objectContaining({ endpoint_name: 'signup', start_url: `${mcp.pages.url}/form` }),
    ]);

    const notes: string[] = [];
    const result = await client.callTool(
      {
        name: 'run_job',
        arguments: {
          endpoint_name: 'signup',
          form_data: { name: 'Ada Lovelace', email: 'ada@example.com', colour: 'blue' },
        },
      },
      undefined,
      { onprogress: (progress) => notes.push(String(progress.message)) },
    );
    expect(result.isError).toBeFalsy();
    const outcome = toolJson(result);
    expect(outcome).toMatchObject({ endpoint_name: 'signup', status: 'completed', error: null });
    expect(mcp.pages.submitted.at(-1)).toBe('name=Ada+Lovelace&email=ada%40example.com&colour=blue');
    expect(notes[0]).toMatch(/^Job [0-9a-f-]{36} started$/);
    expect(notes.filter((note) => note.startsWith('Step '))).toHaveLength(Number(outcome.steps));
    expect(notes.at(-1)).toBe('Status: completed');

    const job = await client.callTool({
      name: 'get_job',
      arguments: { endpoint_name: 'signup', job_id: String(outcome.job_id), include_screenshot: true },
    });
    expect(toolJson(job)).toMatchObject({ status: 'completed', last_steps: expect.any(Array) });
    const image = (job.content as { type: string; data?: string; mimeType?: string }[]).find(
      (part) => part.type === 'image',
    );
    expect(image?.mimeType).toBe('image/png');
    expect(Buffer.from(String(image?.data), 'base64').subarray(1, 4).toString()).toBe('PNG');
  });

  it('a job that asks returns the question and its job_id; answer_question resumes it to completion', async () => {
    const client = await connect({ 'x-api-key': mcp.svc.orgKey });
    const asked = toolJson(
      await client.callTool({
        name: 'run_job',
        arguments: { endpoint_name: 'signup', form_data: { name: 'Grace', email: 'grace@example.com' } },
      }),
    );
    expect(asked).toMatchObject({
      status: 'waiting_for_input',
      question: {
        question: "What should be entered for 'Favourite colour'?",
        options: ['Red', 'Green', 'Blue'],
        message: "The page requires 'Favourite colour' and no form_data key matches it.",
      },
    });
    const notes: string[] = [];
    const answered = toolJson(
      await client.callTool(
        {
          name: 'answer_question',
          arguments: { endpoint_name: 'signup', job_id: String(asked.job_id), answer: 'Green' },
        },
        undefined,
        { onprogress: (progress) => notes.push(String(progress.message)) },
      ),
    );
    expect(answered).toMatchObject({ job_id: asked.job_id, status: 'completed' });
    expect(mcp.pages.submitted.at(-1)).toBe('name=Grace&email=grace%40example.com&colour=green');
    expect(notes).toContain('Status: completed');

    const again = await client.callTool({
      name: 'answer_question',
      arguments: { endpoint_name: 'signup', job_id: String(asked.job_id), answer: 'red' },
    });
    expect(again.isError).toBe(true);
    expect(again.content).toEqual([
      { type: 'text', text: `Job ${String(asked.job_id)} is not waiting for an answer (status: completed)` },
    ]);
  });

  it('a service refusal is a tool error with its detail, never a crash', async () => {
    const client = await connect({ 'x-api-key': mcp.svc.orgKey });
    const missing = await client.callTool({ name: 'run_job', arguments: { endpoint_name: 'nope', form_data: {} } });
    expect(missing).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'Portico answered 404: Portal not found' }],
    });
    const invalid = await client.callTool({
      name: 'get_job',
      arguments: { endpoint_name: 'signup', job_id: 'not-a-uuid' },
    });
    expect(invalid.isError).toBe(true);
    expect(JSON.stringify(invalid.content)).toContain('job_id');
    // A path in a name never becomes a path: the schema refuses it before any request.
    const traversal = await client.callTool({
      name: 'run_job',
      arguments: { endpoint_name: '../../admin/orgs', form_data: {} },
    });
    expect(traversal.isError).toBe(true);
    expect(JSON.stringify(traversal.content)).toContain('endpoint_name');
    const huge = await client.callTool({
      name: 'answer_question',
      arguments: {
        endpoint_name: 'signup',
        job_id: '00000000-0000-4000-8000-000000000000',
        answer: 'x'.repeat(100_001),
      },
    });
    expect(huge.isError).toBe(true);
  });

  it('a caller that gives up on run_job leaves the job running; cancel_job then cancels it', async () => {
    // A start page that never answers keeps the job running until it is cancelled.
    const silent: Server = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const created = await mcp.svc.request('createPortal', {
        params: { org_id: 'default' },
        body: {
          endpoint_name: 'silent',
          start_url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/`,
          task: 'Wait',
        },
      });
      expect(created.status).toBe(200);
      const client = await connect({ 'x-api-key': mcp.svc.orgKey });
      const giveUp = new AbortController();
      let jobId = '';
      const call = client.callTool(
        { name: 'run_job', arguments: { endpoint_name: 'silent', form_data: {} } },
        undefined,
        {
          signal: giveUp.signal,
          onprogress: (progress) => {
            const started = /^Job (\S+) started$/.exec(String(progress.message));
            if (started?.[1]) jobId = started[1];
            if (progress.message === 'Status: running') giveUp.abort();
          },
        },
      );
      await expect(call).rejects.toThrow(/abort/i);
      expect(
        toolJson(await client.callTool({ name: 'get_job', arguments: { endpoint_name: 'silent', job_id: jobId } })),
      ).toMatchObject({ status: 'running' });
      expect(
        toolJson(await client.callTool({ name: 'cancel_job', arguments: { endpoint_name: 'silent', job_id: jobId } })),
      ).toEqual({ success: true, message: 'Job cancellation requested', job_id: jobId });
      const getJob = async () =>
        toolJson(await client.callTool({ name: 'get_job', arguments: { endpoint_name: 'silent', job_id: jobId } }));
      await until(async () => (await getJob()).status === 'cancelled', 'the job to be cancelled');
      const again = await client.callTool({
        name: 'cancel_job',
        arguments: { endpoint_name: 'silent', job_id: jobId },
      });
      expect(again).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: 'Portico answered 409: Job has already ended (status: cancelled)' }],
      });
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('an action run twice in a session replays the cached step the second time', async () => {
    const client = await connect({ 'x-api-key': mcp.svc.accountKey });
    const session = toolJson(await client.callTool({ name: 'create_session', arguments: {} }));
    expect(session).toMatchObject({
      session_id: expect.any(String),
      status: 'active',
      live_url: expect.stringContaining('/live/'),
    });
    const run = async (action: string, variables: Record<string, string> = {}) =>
      toolJson(
        await client.callTool({ name: 'run_action', arguments: { session_id: session.session_id, action, variables } }),
      );
    expect(await run(`go to ${mcp.pages.url}/search`)).toMatchObject({ success: true });
    expect(await run('type {{terms}} into Search terms', { terms: 'first' })).toMatchObject({
      success: true,
      used_cache: false,
      set_cache: true,
    });
    expect(await run('type {{terms}} into Search terms', { terms: 'second' })).toMatchObject({
      success: true,
      used_cache: true,
      set_cache: false,
    });
    expect(toolJson(await client.callTool({ name: 'list_credentials', arguments: {} }))).toEqual({ credentials: [] });
    expect(
      toolJson(await client.callTool({ name: 'terminate_session', arguments: { session_id: session.session_id } })),
    ).toEqual({ session_id: session.session_id, status: 'terminated' });
  });

  it('without a key, or with an unknown one, /mcp is 401 {detail}; the SDK client cannot connect', async () => {
    expect(await jsonOf(await rawPost({}))).toEqual({ status: 401, body: { detail: 'Invalid API key' } });
    expect(await jsonOf(await rawPost({ authorization: 'Bearer pk_org_nope' }))).toEqual({
      status: 401,
      body: { detail: 'Invalid API key' },
    });
    await expect(connect({})).rejects.toThrow(/401|Invalid API key/);
  });

  it('a foreign Origin is 403 even with a key; a loopback origin is served', async () => {
    const foreign = await jsonOf(await rawPost({ 'x-api-key': mcp.svc.orgKey, origin: 'https://evil.example' }));
    expect(foreign).toEqual({
      status: 403,
      body: { detail: "Origin 'https://evil.example' is not allowed to use the MCP endpoint" },
    });
    expect((await jsonOf(await rawPost({ origin: 'null' }))).status).toBe(403);
    const local = await rawPost({
      'x-api-key': mcp.svc.orgKey,
      origin: `http://localhost:${new URL(mcp.svc.url).port}`,
    });
    expect(local.status).toBe(200);
    await local.body?.cancel();
  });

  it('GET and DELETE are 405 {detail} (stateless endpoint); a malformed body is 400 {detail}', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(`${mcp.svc.url}/mcp`, {
        method,
        headers: { 'x-api-key': mcp.svc.orgKey, accept: MCP_ACCEPT },
      });
      expect(response.headers.get('allow')).toBe('POST');
      const res = await jsonOf(response);
      expect(res).toEqual({
        status: 405,
        body: {
          detail:
            'This MCP endpoint is stateless: POST each JSON-RPC message to /mcp (no GET stream, no session to delete)',
        },
      });
    }
    const malformed = await jsonOf(await rawPost({ 'x-api-key': mcp.svc.orgKey }, '{"jsonrpc": '));
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ detail: expect.any(String) });
    const oversized = await jsonOf(
      await rawPost(
        { 'x-api-key': mcp.svc.orgKey },
        JSON.stringify({ ...INITIALIZE, padding: 'x'.repeat(11 * 1024 * 1024) }),
      ),
    );
    expect(oversized.status).toBe(413);
    expect(oversized.body).toEqual({ detail: expect.any(String) });
  });
});

const lanAddress = Object.values(networkInterfaces())
  .flat()
  .find((info) => info !== undefined && !info.internal && info.family === 'IPv4')?.address;

describe.skipIf(lanAddress === undefined)('POST /mcp from another machine', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startService(undefined, { host: '0.0.0.0', allowedHosts: [String(lanAddress)] });
  });
  afterAll(async () => {
    await svc?.dispose();
  });

  it('is 403 {detail} for a non-loopback peer even with a valid key, while the rest of the API answers there', async () => {
    const lanUrl = `http://${String(lanAddress)}:${new URL(svc.url).port}`;
    expect((await fetch(`${lanUrl}/health`)).status).toBe(200);
    const res = await jsonOf(
      await fetch(`${lanUrl}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: MCP_ACCEPT, 'x-api-key': svc.orgKey },
        body: JSON.stringify(INITIALIZE),
      }),
    );
    expect(res).toEqual({ status: 403, body: { detail: 'The MCP endpoint answers only on this machine (loopback)' } });
  });
});
