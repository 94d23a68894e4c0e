import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, expect } from 'vitest';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { startService, type TestService } from '../helpers/service.ts';

/** A real signup form (name, email, colour) whose submissions the page server keeps, and a page for single actions. */
export async function startSignupPages(): Promise<PageServer & { submitted: string[] }> {
  const submitted: string[] = [];
  const pages = await startPageServer({
    '/form': `<!doctype html><title>Sign up</title>
<form method="post" action="/submitted">
<label for="name">Full name</label><input id="name" name="name">
<label for="email">Email</label><input id="email" name="email" type="email">
<label for="colour">Favourite colour</label>
<select id="colour" name="colour" required><option value="">Choose…</option><option value="red">Red</option><option value="green">Green</option><option value="blue">Blue</option></select>
<button type="submit">Submit</button>
</form>`,
    '/submitted': (_req, body) => {
      submitted.push(body);
      return { body: '<!doctype html><title>Thanks</title><h1>Thank you for signing up</h1>' };
    },
    '/search':
      '<!doctype html><title>Search</title><label for="q">Search terms</label><input id="q" name="q"><button>Go</button>',
  });
  return Object.assign(pages, { submitted });
}

/** Creates the `signup` portal of org `default` on the signup form (the page, not the schema, requires colour). */
export async function createSignupPortal(svc: TestService, pages: PageServer): Promise<void> {
  const res = await svc.api('/portals/default', {
    method: 'POST',
    json: {
      endpoint_name: 'signup',
      start_url: `${pages.url}/form`,
      task: 'Fill the signup form and submit it',
      form_schema: {
        type: 'object',
        properties: { name: { type: 'string' }, email: { type: 'string' }, colour: { type: 'string' } },
      },
    },
  });
  expect(res.status).toBe(200);
}

/** What an MCP test file runs on: the signup pages, a headless service with the `signup` portal, and the MCP clients its tests opened. */
export interface McpService {
  readonly svc: TestService;
  readonly pages: Awaited<ReturnType<typeof startSignupPages>>;
  /** Keeps a connected client, to be closed after the file's tests. */
  keep(client: Client): Client;
}

/**
 * Registers, in the calling describe, the beforeAll that starts the signup pages and a service (PORTICO_HEADLESS=1:
 * no visible login windows) with the `signup` portal, and the afterAll that closes the kept clients, the service and
 * the pages and gives PORTICO_HEADLESS its previous value back.
 */
export function useMcpService(): McpService {
  const clients: Client[] = [];
  let svc: TestService | undefined;
  let pages: Awaited<ReturnType<typeof startSignupPages>> | undefined;
  let previousHeadless: string | undefined;
  beforeAll(async () => {
    previousHeadless = process.env.PORTICO_HEADLESS;
    process.env.PORTICO_HEADLESS = '1';
    pages = await startSignupPages();
    svc = await startService();
    await createSignupPortal(svc, pages);
  });
  afterAll(async () => {
    for (const client of clients) await client.close();
    await svc?.dispose();
    await pages?.close();
    if (previousHeadless === undefined) delete process.env.PORTICO_HEADLESS;
    else process.env.PORTICO_HEADLESS = previousHeadless;
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the MCP service is not started yet (use it inside a test)');
    return value;
  };
  return {
    get svc() {
      return started(svc);
    },
    get pages() {
      return started(pages);
    },
    keep: (client) => {
      clients.push(client);
      return client;
    },
  };
}

/** The JSON a tool answered in its first text content. */
export function toolJson(result: unknown): Record<string, unknown> {
  const { content, isError } = result as { content: { type: string; text?: string }[]; isError?: boolean };
  const text = content.find((part) => part.type === 'text')?.text;
  if (text === undefined || isError) throw new Error(`the tool failed or answered no text: ${JSON.stringify(result)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

export const ORG_TOOLS = ['answer_question', 'cancel_job', 'get_job', 'list_portals', 'run_job'];
export const ACCOUNT_TOOLS = ['create_session', 'list_credentials', 'run_action', 'terminate_session'];
