import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { routeName, type AnyRouteSpec } from '../../src-main/api/routeTable.ts';
import { buildRawZip } from '../helpers/rawZip.ts';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { scriptedRegistry } from '../helpers/scriptedAgents.ts';
import { jsonOf, startService, waitForJob, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';

const previousHeadless = process.env.PORTICO_HEADLESS;
process.env.PORTICO_HEADLESS = '1';

/** One request to a route; what a fixture leaves out is filled in from the route and the ids made in setup. */
interface Call {
  path?: string;
  json?: unknown;
  form?: FormData;
}

type JsonRoute = AnyRouteSpec & { response: z.ZodType };

const isJsonRoute = (route: AnyRouteSpec): route is JsonRoute => route.response !== undefined;

function skillForm(): FormData {
  const zip = buildRawZip([
    { name: 'SKILL.md', data: Buffer.from('---\nname: walk\ndescription: A skill for the route walk\n---\n# walk\n') },
  ]);
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(zip)], { type: 'application/zip' }), 'walk.zip');
  return form;
}

describe('every JSON route answers exactly its declared response schema (walked from the route table)', () => {
  let svc: TestService;
  let pages: PageServer;
  let created = 0;
  const fresh = (prefix: string): string => `${prefix}-${++created}`;
  /** Path and query values by parameter name, made once in setup. */
  const ids: Record<string, string> = { org_id: 'default', provider: 'anthropic' };

  const startJob = async (endpoint: string, body: Record<string, unknown>): Promise<string> => {
    const started = await jsonOf(await svc.api(`/jobs/default/${endpoint}/start`, { method: 'POST', json: body }));
    expect(started.status).toBe(200);
    return String((started.body as { job_id: string }).job_id);
  };
  const openSession = async (): Promise<{ profile_id: string; session_id: string; live_url: string }> => {
    const opened = await jsonOf(
      await svc.api('/profiles/default', { method: 'POST', json: { start_url: `${pages.url}/form` } }),
    );
    expect(opened.status).toBe(200);
    return opened.body as { profile_id: string; session_id: string; live_url: string };
  };

  const publicSession = async (): Promise<string> => {
    const made = await jsonOf(await svc.api('/public/sessions', { method: 'POST', key: svc.accountKey, json: {} }));
    expect(made.status).toBe(200);
    return String((made.body as { session_id: string }).session_id);
  };

  // A document bundle of one text file, for the document routes.
  const documentForm = (): FormData => {
    const form = new FormData();
    form.append('files', new Blob(['Name: Walker\n'], { type: 'text/plain' }), 'walk.txt');
    return form;
  };
  const documentBundle = async (): Promise<string> => {
    const made = await jsonOf(await svc.api('/documents/default', { method: 'POST', body: documentForm() }));
    return String((made.body as { document_bundle_id: string }).document_bundle_id);
  };

  /**
   * Routes a generic call cannot exercise: a body that `{}` does not satisfy, an upload, or state the
   * call consumes (a pending question, a running job, an open session, a key to revoke). Every other
   * JSON route is called with the ids below, so a new one is covered without an entry here.
   */
  const fixtures: Record<string, () => Call | Promise<Call>> = {
    'POST /documents/:org_id': () => ({ form: documentForm() }),
    'GET /documents/:org_id/:document_bundle_id': async () => ({
      path: `/documents/default/${await documentBundle()}`,
    }),
    'POST /documents/:org_id/:document_bundle_id/extract': async () => {
      const id = await documentBundle();
      await until(
        async () =>
          ((await (await svc.api(`/documents/default/${id}`)).json()) as { status: string }).status === 'completed',
        'the walk bundle to be read',
      );
      return { path: `/documents/default/${id}/extract?endpoint_name=${ids.endpoint_name}` };
    },
    'POST /portals/:org_id': () => ({
      json: { endpoint_name: fresh('made'), start_url: `${pages.url}/form`, task: 'script:visit' },
    }),
    'PATCH /portals/:org_id/:endpoint_name': () => ({ json: { task: 'script:visit' } }),
    'POST /skills/:org_id': () => ({ path: `/skills/default?folder=${fresh('folder')}`, form: skillForm() }),
    'POST /jobs/:org_id/:endpoint_name/start': () => ({ json: { form_data: { colour: 'red' } } }),
    'POST /jobs/:org_id/:endpoint_name/answer': async () => {
      const jobId = await startJob('asks', { form_data: {}, human_in_the_loop: true });
      const waiting = await waitForJob(svc, 'asks', jobId, ['waiting_for_input']);
      const question = (waiting.events as { type: string; data: { question_id: string } }[]).find(
        (event) => event.type === 'question',
      );
      return {
        path: `/jobs/default/asks/answer?job_id=${jobId}`,
        json: { question_id: question?.data.question_id, answer: 'red' },
      };
    },
    'POST /jobs/:org_id/:endpoint_name/cancel': async () => ({
      path: `/jobs/default/hangs/cancel?job_id=${await startJob('hangs', { form_data: {} })}`,
    }),
    'POST /profiles/:org_id/sessions/:session_id/close': async () => ({
      path: `/profiles/default/sessions/${(await openSession()).session_id}/close`,
    }),
    'DELETE /webhooks/:org_id/key': async () => {
      expect((await svc.api('/webhooks/default/key', { method: 'POST' })).status).toBe(200);
      return {};
    },
    'POST /admin/orgs': () => ({ json: { org_id: fresh('walk-org') } }),
    'PUT /admin/providers/:provider': () => ({ json: { base_url: 'http://127.0.0.1:9/v1' } }),
    'POST /live/:token/input': () => ({ json: { kind: 'mouse', type: 'mouseMoved', x: 10, y: 10 } }),
    // `session_id` above is a profile login's; public sessions are another resource.
    'GET /public/sessions/:session_id': async () => ({ path: `/public/sessions/${await publicSession()}` }),
    'POST /public/sessions/:session_id/terminate': async () => ({
      path: `/public/sessions/${await publicSession()}/terminate`,
    }),
    'POST /public/single-actions/run-action': async () => ({
      json: { session_id: await publicSession(), action: `go to ${pages.url}/form` },
    }),
    'POST /admin/oauth-apps': () => ({
      json: {
        id: fresh('walk-app'),
        authorize_url: 'https://id.example.test/authorize',
        token_url: 'https://id.example.test/token',
        client_id: 'walk',
      },
    }),
    // A browser host nothing answers on (port 9): added all the same, its check saying so; settings.json only.
    'POST /admin/hosts': () => ({
      json: { name: fresh('walk-host'), kind: 'cdp', url: 'http://127.0.0.1:9', max_browsers: 1 },
    }),
    'DELETE /admin/hosts/:host_name': async () => {
      const name = fresh('walk-gone');
      const added = await svc.api('/admin/hosts', {
        method: 'POST',
        key: null,
        headers: { 'x-console-token': svc.consoleToken },
        json: { name, kind: 'cdp', url: 'http://127.0.0.1:9', max_browsers: 1 },
      });
      expect(added.status).toBe(201);
      return { path: `/admin/hosts/${name}` };
    },
    'POST /public/connected-accounts': async () => {
      const app = await jsonOf(
        await svc.api('/admin/oauth-apps', {
          method: 'POST',
          key: null,
          headers: { 'x-console-token': svc.consoleToken },
          json: {
            id: fresh('walk-connect'),
            authorize_url: 'https://id.example.test/authorize',
            token_url: 'https://id.example.test/token',
            client_id: 'walk',
          },
        }),
      );
      return { json: { oauth_app_id: (app.body as { id: string }).id } };
    },
    'POST /public/credentials': () => ({
      json: { service_name: fresh('walk-site'), username_or_email: 'walker@example.test', password: 'walk-secret-1' },
    }),
    'GET /public/credentials/:credential_id': async () => {
      const made = await jsonOf(
        await svc.api('/public/credentials', {
          method: 'POST',
          key: svc.accountKey,
          json: { service_name: fresh('walk-get'), username_or_email: 'walker@example.test' },
        }),
      );
      return { path: `/public/credentials/${(made.body as { id: string }).id}` };
    },
    // A reference exists once the sample site accepted an application.
    'GET /sample-portals/:org_id/submissions/:reference': async () => {
      const sent = await fetch(`${svc.url}/samples/library-card/submit`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ full_name: 'Walker', email: 'walker@example.test', branch: 'central' }).toString(),
      });
      return {
        path: `/sample-portals/default/submissions/${new URL(sent.headers.get('location') ?? '', svc.url).searchParams.get('ref') ?? ''}`,
      };
    },
    'POST /public/phone-numbers': () => ({ json: { phone_number: '+15551234567', label: 'walk' } }),
    'POST /public/verification-codes': () => ({ json: { email: 'walker@example.test', code: '123456' } }),
    'POST /public/workflows': () => ({
      json: { name: fresh('walk-workflow'), steps: [{ action: `go to ${pages.url}/form` }] },
    }),
    // Only a failed execution whose session still lives can be resumed.
    'POST /public/workflows/:workflow_id/executions/:execution_id/resume': async () => {
      const made = await jsonOf(
        await svc.api('/public/workflows', {
          method: 'POST',
          key: svc.accountKey,
          json: { name: fresh('walk-fails'), steps: [{ action: 'click No such button' }] },
        }),
      );
      const workflowId = String((made.body as { id: string }).id);
      const started = await jsonOf(
        await svc.api(`/public/workflows/${workflowId}/run`, {
          method: 'POST',
          key: svc.accountKey,
          json: { session_id: await publicSession() },
        }),
      );
      const executionId = String((started.body as { id: string }).id);
      await until(
        async () =>
          (
            (await (
              await svc.api(`/public/workflows/${workflowId}/executions/${executionId}`, { key: svc.accountKey })
            ).json()) as { status: string }
          ).status === 'failed',
        'the walk workflow to fail',
      );
      return { path: `/public/workflows/${workflowId}/executions/${executionId}/resume`, json: {} };
    },
  };

  beforeAll(async () => {
    pages = await startPageServer({
      '/form': '<!doctype html><title>Walk</title><input id="colour">',
      '/hook': () => ({ type: 'application/json', body: '{}' }),
    });
    svc = await startService(undefined, { agents: scriptedRegistry });
    expect((await svc.api('/webhooks/default/key', { method: 'POST' })).status).toBe(200);
    const portal = (endpoint_name: string, task: string, webhook_url: string | null = null) =>
      svc.api('/portals/default', {
        method: 'POST',
        json: { endpoint_name, start_url: `${pages.url}/form`, task, webhook_url },
      });
    for (const made of [
      await portal('walk', 'script:visit', `${pages.url}/hook`),
      await portal('asks', 'script:ask'),
      await portal('hangs', 'script:hang'),
    ]) {
      expect(made.status).toBe(200);
    }
    ids.endpoint_name = 'walk';
    ids.job_id = await startJob('walk', { form_data: { colour: 'red' } });
    await waitForJob(svc, 'walk', ids.job_id, ['completed']);
    const delivery = await until(async () => {
      const { deliveries } = (await (await svc.api(`/webhooks/default/deliveries?job_id=${ids.job_id}`)).json()) as {
        deliveries: { id: string; status: string }[];
      };
      return deliveries.find((d) => d.status === 'succeeded');
    }, "the walk job's webhook to be delivered");
    ids.delivery_id = delivery.id;
    const skill = await jsonOf(await svc.api('/skills/default?folder=walk', { method: 'POST', body: skillForm() }));
    ids.skill_id = String((skill.body as { id: string }).id);
    const session = await openSession();
    ids.profile_id = session.profile_id;
    ids.session_id = session.session_id;
    ids.token = new URL(session.live_url).pathname.split('/').pop() ?? '';
    const key = await jsonOf(
      await svc.api('/admin/orgs/default/keys', {
        method: 'POST',
        key: null,
        headers: { 'x-console-token': svc.consoleToken },
      }),
    );
    ids.key_id = String((key.body as { id: string }).id);
    const workflow = await jsonOf(
      await svc.api('/public/workflows', {
        method: 'POST',
        key: svc.accountKey,
        json: { name: 'walk', steps: [{ action: `go to ${pages.url}/form` }] },
      }),
    );
    ids.workflow_id = String((workflow.body as { id: string }).id);
    const execution = await jsonOf(
      await svc.api(`/public/workflows/${ids.workflow_id}/run`, { method: 'POST', key: svc.accountKey, json: {} }),
    );
    ids.execution_id = String((execution.body as { id: string }).id);
    await until(
      async () =>
        (
          (await (
            await svc.api(`/public/workflows/${ids.workflow_id}/executions/${ids.execution_id}`, {
              key: svc.accountKey,
            })
          ).json()) as { status: string }
        ).status === 'completed',
      'the walk workflow to complete',
    );
  });
  afterAll(async () => {
    await svc?.dispose();
    await pages?.close();
    if (previousHeadless === undefined) delete process.env.PORTICO_HEADLESS;
    else process.env.PORTICO_HEADLESS = previousHeadless;
  });

  /** The request a route gets: its fixture's parts, the rest from the route's own schemas and `ids`; a string names what is missing. */
  async function callFor(route: JsonRoute): Promise<(Required<Pick<Call, 'path'>> & Call) | string> {
    const fixture = await fixtures[routeName(route)]?.();
    const missing: string[] = [];
    let path = fixture?.path;
    if (path === undefined) {
      path = route.path.replace(/:(\w+)/g, (_, name: string) => {
        const id = ids[name];
        if (id !== undefined) return id;
        missing.push(`path parameter '${name}'`);
        return name;
      });
      const names = route.query instanceof z.ZodObject ? Object.keys(route.query.shape) : [];
      const query = Object.fromEntries(names.flatMap((name) => (ids[name] === undefined ? [] : [[name, ids[name]]])));
      if (route.query && !route.query.safeParse(query).success) missing.push('a query');
      if (Object.keys(query).length > 0) path += `?${new URLSearchParams(query)}`;
    }
    let json = fixture?.json;
    if (route.body && json === undefined) {
      if (route.body.safeParse({}).success) json = {};
      else missing.push('a body');
    }
    if (route.multipart && !fixture?.form) missing.push('an upload');
    if (missing.length > 0) return `${routeName(route)} needs ${missing.join(', ')}: give it an entry in fixtures`;
    return { path, json, form: fixture?.form };
  }

  const credentials = (route: AnyRouteSpec): { key?: string | null; headers?: Record<string, string> } => {
    if (route.auth === 'console') return { key: null, headers: { 'x-console-token': svc.consoleToken } };
    if (route.auth === 'account') return { key: svc.accountKey };
    if (route.auth === 'none') return { key: null };
    return {};
  };

  it("each 2xx body parses with the route's schema and carries no field the schema does not name", async () => {
    const routes = svc.app.routes.filter(isJsonRoute);
    expect(routes.length).toBeGreaterThan(30);
    expect(
      Object.keys(fixtures).filter((name) => !routes.some((route) => routeName(route) === name)),
      'fixtures of routes that no longer exist',
    ).toEqual([]);
    const problems: string[] = [];
    for (const route of routes) {
      const call = await callFor(route);
      if (typeof call === 'string') {
        problems.push(call);
        continue;
      }
      const response = await svc.api(call.path, {
        method: route.method,
        ...credentials(route),
        ...(call.form ? { body: call.form } : call.json !== undefined ? { json: call.json } : {}),
      });
      const { status, body } = await jsonOf(response);
      const where = `${route.method} ${call.path}`;
      if (status !== (route.status ?? 200)) {
        problems.push(`${where}: ${status} ${JSON.stringify(body)}`);
        continue;
      }
      const parsed = route.response.safeParse(body);
      if (!parsed.success) problems.push(`${where}: ${z.prettifyError(parsed.error)}`);
      else if (!isDeepStrictEqual(parsed.data, body))
        problems.push(`${where}: fields beyond the schema in ${JSON.stringify(body)}`);
    }
    expect(problems).toEqual([]);
  });
});
