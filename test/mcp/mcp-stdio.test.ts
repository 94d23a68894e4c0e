import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { ACCOUNT_TOOLS, ORG_TOOLS, toolJson, useMcpService } from './mcpFixtures.ts';

const CLI = fileURLToPath(new URL('../../src-main/cli/main.ts', import.meta.url));

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('portico mcp: the stdio MCP server is a client of the running service (SDK client over a real child process)', () => {
  const mcp = useMcpService();

  /** `node src-main/cli/main.ts mcp` with PORTICO_URL and PORTICO_API_KEY, and no data folder of its own. */
  const spawnMcp = async (env: Record<string, string>): Promise<Client> => {
    const client = new Client({ name: 'test', version: '1' });
    const inherited = Object.fromEntries(
      Object.entries(process.env).filter(
        (entry): entry is [string, string] => entry[1] !== undefined && !entry[0].startsWith('PORTICO_'),
      ),
    );
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'mcp'],
        env: { ...inherited, ...env },
        stderr: 'pipe',
      }),
    );
    return mcp.keep(client);
  };

  it('with the service down every tool is listed and each call is a tool error saying where it looked and how to start it', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const client = await spawnMcp({ PORTICO_URL: url, PORTICO_API_KEY: 'pk_org_whatever' });
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(
      [...ACCOUNT_TOOLS, ...ORG_TOOLS].sort(),
    );
    const result = await client.callTool({ name: 'list_portals', arguments: {} });
    expect(result.isError).toBe(true);
    const text = (result.content as { text: string }[])[0]?.text ?? '';
    expect(text).toContain(`The Portico service is not running at ${url}`);
    expect(text).toContain('npm run serve');
  });

  it('an org key: the org tools; run_job fills the real form with progress notes passed through; a question is answered through answer_question', async () => {
    const client = await spawnMcp({ PORTICO_URL: mcp.svc.url, PORTICO_API_KEY: mcp.svc.orgKey });
    expect(client.getServerVersion()?.name).toBe('portico');
    expect(client.getInstructions()).toContain('answer_question');
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(ORG_TOOLS);
    const notes: string[] = [];
    const outcome = toolJson(
      await client.callTool(
        {
          name: 'run_job',
          arguments: {
            endpoint_name: 'signup',
            form_data: { name: 'Stdio Sam', email: 'sam@example.com', colour: 'red' },
          },
        },
        undefined,
        { onprogress: (progress) => notes.push(String(progress.message)) },
      ),
    );
    expect(outcome).toMatchObject({ status: 'completed', endpoint_name: 'signup' });
    expect(mcp.pages.submitted.at(-1)).toBe('name=Stdio+Sam&email=sam%40example.com&colour=red');
    // The SDK's client hands a progress note to its callback a microtask late and drops the ones that arrive
    // in the same stdio chunk as the result, so only notes sent well before the end are asserted.
    expect(notes[0]).toMatch(/^Job [0-9a-f-]{36} started$/);
    expect(notes).toContain('Status: running');
    expect(notes.some((note) => note.startsWith('Step 1: '))).toBe(true);

    const asked = toolJson(
      await client.callTool({
        name: 'run_job',
        arguments: { endpoint_name: 'signup', form_data: { name: 'Stdio Sue', email: 'sue@example.com' } },
      }),
    );
    expect(asked).toMatchObject({ status: 'waiting_for_input', question: { options: ['Red', 'Green', 'Blue'] } });
    const answered = toolJson(
      await client.callTool({
        name: 'answer_question',
        arguments: { endpoint_name: 'signup', job_id: String(asked.job_id), answer: 'Blue' },
      }),
    );
    expect(answered).toMatchObject({ job_id: asked.job_id, status: 'completed' });
    expect(mcp.pages.submitted.at(-1)).toBe('name=Stdio+Sue&email=sue%40example.com&colour=blue');
  });

  it('an account key: the session tools, and a cached action replays in a session', async () => {
    const client = await spawnMcp({ PORTICO_URL: mcp.svc.url, PORTICO_API_KEY: mcp.svc.accountKey });
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(ACCOUNT_TOOLS);
    const session = toolJson(await client.callTool({ name: 'create_session', arguments: {} }));
    const run = async (action: string, variables: Record<string, string> = {}) =>
      toolJson(
        await client.callTool({
          name: 'run_action',
          arguments: { session_id: session.session_id, action, variables, id: 'search-terms' },
        }),
      );
    await run(`go to ${mcp.pages.url}/search`);
    expect(await run('type {{terms}} into Search terms', { terms: 'one' })).toMatchObject({
      success: true,
      used_cache: false,
    });
    expect(await run('type {{terms}} into Search terms', { terms: 'two' })).toMatchObject({
      success: true,
      used_cache: true,
    });
    expect(
      toolJson(await client.callTool({ name: 'terminate_session', arguments: { session_id: session.session_id } })),
    ).toMatchObject({ status: 'terminated' });
  });

  it("a wrong key is a tool error with the service's 401 detail", async () => {
    const client = await spawnMcp({ PORTICO_URL: mcp.svc.url, PORTICO_API_KEY: 'pk_org_not-a-key' });
    const result = await client.callTool({ name: 'list_portals', arguments: {} });
    expect(result.isError).toBe(true);
    expect((result.content as { text: string }[])[0]?.text).toContain('Invalid API key');
  });

  it('a PORTICO_URL that is not an http(s) address stops it at once, naming the variable', () => {
    const run = spawnSync(process.execPath, [CLI, 'mcp'], {
      env: { ...process.env, PORTICO_URL: 'ftp://example.com' },
      encoding: 'utf8',
      input: '',
    });
    expect(run.status).toBe(1);
    expect(JSON.parse(run.stderr)).toEqual({
      detail: "PORTICO_URL must be an http(s) address such as http://127.0.0.1:8787; got 'ftp://example.com'",
    });
  });
});
