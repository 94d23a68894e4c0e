import { expect } from 'vitest';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import type { TestService } from '../helpers/service.ts';

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
    '/search': '<!doctype html><title>Search</title><label for="q">Search terms</label><input id="q" name="q"><button>Go</button>',
  });
  return Object.assign(pages, { submitted });
}

/** Creates the `signup` portal of org `default` on the signup form (the page, not the schema, requires colour). */
export async function createSignupPortal(svc: TestService, pages: PageServer): Promise<void> {
  const res = await svc.api('/portals/default', {
    method: 'POST',
    json: {
      endpoint_name: 'signup', start_url: `${pages.url}/form`, task: 'Fill the signup form and submit it',
      form_schema: { type: 'object', properties: { name: { type: 'string' }, email: { type: 'string' }, colour: { type: 'string' } } },
    },
  });
  expect(res.status).toBe(200);
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
