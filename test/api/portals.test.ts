import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.ts';
import { jsonOf, startService, type TestService } from '../helpers/service.ts';

const PORTAL_FIELDS = [
  'id',
  'org_id',
  'endpoint_name',
  'start_url',
  'task',
  'form_schema',
  'output_schema',
  'profile_id',
  'humanized_urls',
  'webhook_url',
  'replay_enabled',
  'assist_model',
  'record_video',
  'browser_session_id',
  'credential_id',
  'browser_host_labels',
  'skills',
  'created_at',
  'updated_at',
].sort();

const formSchema = {
  type: 'object',
  properties: { first_name: { type: 'string', title: 'First name' }, email: { type: 'string', format: 'email' } },
  required: ['first_name'],
};

describe('portals (§4.1)', () => {
  let svc: TestService;
  let otherOrgKey: string;

  beforeAll(async () => {
    svc = await startService();
    otherOrgKey = String((await cli(svc.dataDir, ['org', 'create', 'other'])).json.api_key);
  });
  afterAll(() => svc.dispose());

  /** Portal `endpoint_name` of org `default`, as path parameters. */
  const named = (endpoint_name: string) => ({ org_id: 'default', endpoint_name });
  const create = (json: Record<string, unknown>, key?: string) =>
    svc.send('createPortal', { params: { org_id: 'default' }, body: json }, key ? { key } : {});

  it('create returns every field of §2.1, webhook_url included', async () => {
    const { status, body } = await create({
      endpoint_name: 'signup',
      start_url: 'https://example.test/form',
      task: 'Fill the signup form',
      form_schema: formSchema,
      output_schema: { type: 'object', properties: { ref: { type: 'string' } } },
      humanized_urls: ['https://example.test/*'],
      webhook_url: 'http://127.0.0.1:9/hook',
    });
    expect(status).toBe(200);
    const portal = body as Record<string, unknown>;
    expect(Object.keys(portal).sort()).toEqual(PORTAL_FIELDS);
    expect(portal).toMatchObject({
      org_id: 'default',
      endpoint_name: 'signup',
      start_url: 'https://example.test/form',
      task: 'Fill the signup form',
      form_schema: formSchema,
      output_schema: { type: 'object', properties: { ref: { type: 'string' } } },
      profile_id: null,
      humanized_urls: ['https://example.test/*'],
      webhook_url: 'http://127.0.0.1:9/hook',
      skills: [],
    });
    expect(portal.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Date(String(portal.created_at)).toISOString()).toBe(portal.created_at);
    expect(portal.updated_at).toBe(portal.created_at);
  });

  it('get and list return the same portal with webhook_url', async () => {
    const got = await svc.send('getPortal', { params: named('signup') });
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ endpoint_name: 'signup', webhook_url: 'http://127.0.0.1:9/hook' });
    const list = await svc.send('listPortals', { params: { org_id: 'default' } });
    expect(list.status).toBe(200);
    expect((list.body as { endpoint_name: string }[]).map((p) => p.endpoint_name)).toEqual(['signup']);
    expect((list.body as Record<string, unknown>[])[0]).toEqual(got.body);
  });

  it('create with only the required fields defaults the rest', async () => {
    const { status, body } = await create({ endpoint_name: 'minimal', start_url: 'http://localhost:3000/', task: 't' });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      form_schema: {},
      output_schema: null,
      profile_id: null,
      humanized_urls: null,
      webhook_url: null,
      replay_enabled: true,
      assist_model: null,
      record_video: null,
      browser_session_id: null,
      credential_id: null,
      skills: [],
    });
  });

  it('a draft-04 form_schema (id, boolean exclusiveMaximum) is accepted and returned as sent', async () => {
    const draft04 = {
      $schema: 'http://json-schema.org/draft-04/schema#',
      id: 'http://forms.example.test/old.json#',
      type: 'object',
      properties: { guests: { type: 'integer', minimum: 0, maximum: 10, exclusiveMaximum: true } },
      required: ['guests'],
    };
    const { status, body } = await create({
      endpoint_name: 'draft04',
      start_url: 'https://a.test',
      task: 't',
      form_schema: draft04,
    });
    expect(status).toBe(200);
    expect((body as { form_schema: unknown }).form_schema).toEqual(draft04);
    const refused = await create({
      endpoint_name: 'draft04-bad',
      start_url: 'https://a.test',
      task: 't',
      form_schema: { ...draft04, properties: { guests: { exclusiveMaximum: 3 } } },
    });
    expect(refused.status).toBe(422);
    expect((refused.body as { detail: string }).detail).toMatch(/^body\.form_schema: not a valid JSON Schema/);
  });

  it('replay_enabled (Portico addition) is set at create, changed by PATCH and kept when a PATCH omits it', async () => {
    const created = await create({
      endpoint_name: 'no-replay',
      start_url: 'http://localhost:3000/',
      task: 't',
      replay_enabled: false,
    });
    expect(created.body).toMatchObject({ replay_enabled: false });
    const patched = await svc.send('updatePortal', { params: named('no-replay'), body: { replay_enabled: true } });
    expect(patched.body).toMatchObject({ replay_enabled: true });
    const untouched = await svc.send('updatePortal', { params: named('no-replay'), body: { task: 'u' } });
    expect(untouched.body).toMatchObject({ replay_enabled: true, task: 'u' });
    const invalid = await svc.send('updatePortal', { params: named('no-replay'), body: { replay_enabled: 'no' } });
    expect(invalid.status).toBe(422);
    expect((invalid.body as { detail: string }).detail).toMatch(/replay_enabled/);
  });

  it('a taken endpoint_name is 409 with the interface message', async () => {
    const { status, body } = await create({ endpoint_name: 'signup', start_url: 'https://a.test', task: 't' });
    expect(status).toBe(409);
    expect(body).toEqual({ detail: "Portal with endpoint_name 'signup' already exists" });
  });

  it('the same endpoint_name is free in another organization', async () => {
    const res = await svc.send(
      'createPortal',
      { params: { org_id: 'other' }, body: { endpoint_name: 'signup', start_url: 'https://a.test', task: 't' } },
      { key: otherOrgKey },
    );
    expect(res.status).toBe(200);
  });

  it('PATCH changes only the fields given and bumps updated_at', async () => {
    const before = (await svc.send('getPortal', { params: named('signup') })).body as Record<string, unknown>;
    await new Promise((r) => setTimeout(r, 5));
    const { status, body } = await svc.send('updatePortal', { params: named('signup'), body: { task: 'New task' } });
    expect(status).toBe(200);
    const after = body as Record<string, unknown>;
    expect(after.task).toBe('New task');
    for (const field of [
      'id',
      'start_url',
      'form_schema',
      'output_schema',
      'humanized_urls',
      'webhook_url',
      'created_at',
    ]) {
      expect(after[field], field).toEqual(before[field]);
    }
    expect(Date.parse(String(after.updated_at))).toBeGreaterThan(Date.parse(String(before.updated_at)));
  });

  it('PATCH webhook_url null disables webhooks, and null clears output_schema', async () => {
    const { body } = await svc.send('updatePortal', {
      params: named('signup'),
      body: { webhook_url: null, output_schema: null },
    });
    expect(body).toMatchObject({ webhook_url: null, output_schema: null });
    const got = (await svc.send('getPortal', { params: named('signup') })).body;
    expect(got).toMatchObject({ webhook_url: null, output_schema: null });
  });

  it('GET, PATCH and DELETE of a missing portal are 404 Portal not found', async () => {
    for (const method of ['GET', 'PATCH', 'DELETE']) {
      const res = await svc.api('/portals/default/nope', {
        method,
        ...(method === 'PATCH' ? { json: { task: 'x' } } : {}),
      });
      expect(await jsonOf(res), method).toEqual({ status: 404, body: { detail: 'Portal not found' } });
    }
  });

  it('DELETE removes the portal permanently', async () => {
    await create({ endpoint_name: 'doomed', start_url: 'https://a.test', task: 't' });
    const del = await svc.send('deletePortal', { params: named('doomed') });
    expect(del.status).toBe(204);
    expect(del.body).toBeUndefined();
    expect((await svc.send('getPortal', { params: named('doomed') })).status).toBe(404);
    expect((await create({ endpoint_name: 'doomed', start_url: 'https://a.test', task: 't' })).status).toBe(200);
  });

  describe('validation (422 naming the field and the rule)', () => {
    const cases: [string, Record<string, unknown>, RegExp][] = [
      [
        'endpoint_name not a slug',
        { endpoint_name: 'has space', start_url: 'https://a.test', task: 't' },
        /^body\.endpoint_name: must be a URL-safe slug/,
      ],
      [
        'endpoint_name with a slash',
        { endpoint_name: 'a/b', start_url: 'https://a.test', task: 't' },
        /^body\.endpoint_name/,
      ],
      [
        'start_url not http(s)',
        { endpoint_name: 'x1', start_url: 'ftp://a.test', task: 't' },
        /^body\.start_url: must be an absolute http\(s\) URL$/,
      ],
      ['start_url missing', { endpoint_name: 'x1', task: 't' }, /^body\.start_url: is required$/],
      [
        'task of the wrong type',
        { endpoint_name: 'x1', start_url: 'https://a.test', task: 5 },
        /^body\.task: must be of type string$/,
      ],
      [
        'form_schema not a JSON Schema',
        { endpoint_name: 'x1', start_url: 'https://a.test', task: 't', form_schema: { type: 'strnig' } },
        /^body\.form_schema: not a valid JSON Schema: .*type/,
      ],
      [
        'form_schema not an object schema',
        { endpoint_name: 'x1', start_url: 'https://a.test', task: 't', form_schema: { type: 'array' } },
        /^body\.form_schema: must describe an object/,
      ],
      [
        'form_schema not an object',
        { endpoint_name: 'x1', start_url: 'https://a.test', task: 't', form_schema: 'x' },
        /^body\.form_schema: must be an object$/,
      ],
      [
        'output_schema not a JSON Schema',
        { endpoint_name: 'x1', start_url: 'https://a.test', task: 't', output_schema: { properties: 3 } },
        /^body\.output_schema: not a valid JSON Schema/,
      ],
      [
        'webhook_url not a URL',
        { endpoint_name: 'x1', start_url: 'https://a.test', task: 't', webhook_url: 'nope' },
        /^body\.webhook_url: must be an absolute http\(s\) URL$/,
      ],
      [
        'unknown profile_id',
        {
          endpoint_name: 'x1',
          start_url: 'https://a.test',
          task: 't',
          profile_id: '00000000-0000-4000-8000-000000000000',
        },
        /^body\.profile_id: no browser profile/,
      ],
      [
        'profile_id not a UUID',
        { endpoint_name: 'x1', start_url: 'https://a.test', task: 't', profile_id: 'abc' },
        /^body\.profile_id/,
      ],
      [
        'unknown skill id',
        {
          endpoint_name: 'x1',
          start_url: 'https://a.test',
          task: 't',
          skill_ids: ['00000000-0000-4000-8000-000000000000'],
        },
        /^body\.skill_ids: no skill/,
      ],
      [
        'an unknown field',
        { endpoint_name: 'x1', start_url: 'https://a.test', task: 't', webhookUrl: 'https://a.test' },
        /^body: unknown field 'webhookUrl'$/,
      ],
    ];
    it.each(cases)('%s', async (_name, json, detail) => {
      const { status, body } = await create(json);
      expect(status).toBe(422);
      expect((body as { detail: string }).detail).toMatch(detail);
      expect((await svc.send('getPortal', { params: named('x1') })).status).toBe(404);
    });

    it('several failing fields are all named', async () => {
      const { status, body } = await create({ endpoint_name: '', start_url: 'x' });
      expect(status).toBe(422);
      const detail = (body as { detail: string }).detail;
      expect(detail).toContain('body.endpoint_name');
      expect(detail).toContain('body.start_url');
      expect(detail).toContain('body.task: is required');
    });

    it('PATCH validates like create and leaves the portal unchanged on failure', async () => {
      const before = (await svc.send('getPortal', { params: named('signup') })).body;
      const res = await svc.send('updatePortal', {
        params: named('signup'),
        body: { task: 'changed', form_schema: { type: 7 } },
      });
      expect(res.status).toBe(422);
      expect((await svc.send('getPortal', { params: named('signup') })).body).toEqual(before);
    });

    it('PATCH refuses a changed endpoint_name (it identifies the portal) or any other read-only field, and unknown names', async () => {
      const res = await svc.send('updatePortal', { params: named('signup'), body: { endpoint_name: 'renamed' } });
      expect(res).toEqual({
        status: 422,
        body: { detail: 'body.endpoint_name: is read-only (a PATCH may repeat the stored value, not change it)' },
      });
      const before = (await svc.send('getPortal', { params: named('signup') })).body as Record<string, unknown>;
      const twice = await svc.send('updatePortal', {
        params: named('signup'),
        body: {
          ...before,
          task: 'changed',
          id: '00000000-0000-4000-8000-000000000000',
          created_at: '2020-01-01T00:00:00.000Z',
        },
      });
      expect(twice).toEqual({
        status: 422,
        body: {
          detail:
            'body.id: is read-only (a PATCH may repeat the stored value, not change it); body.created_at: is read-only (a PATCH may repeat the stored value, not change it)',
        },
      });
      expect(
        (await svc.send('updatePortal', { params: named('signup'), body: { ...before, colour: 'red' } })).body,
      ).toEqual({ detail: "body: unknown field 'colour'" });
      expect((await svc.send('getPortal', { params: named('signup') })).body).toEqual(before);
    });

    it('PATCH takes back the whole object a GET returned, edited: read-only fields equal to the stored ones are ignored', async () => {
      const got = (await svc.send('getPortal', { params: named('signup') })).body as Record<string, unknown>;
      const res = await svc.send('updatePortal', {
        params: named('signup'),
        body: { ...got, task: 'Fill the signup form, edited' },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        id: got.id,
        endpoint_name: 'signup',
        task: 'Fill the signup form, edited',
        created_at: got.created_at,
      });
    });
  });

  describe('malformed requests', () => {
    it('malformed JSON is 400 with a detail', async () => {
      const res = await svc.api('/portals/default', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"endpoint_name": ',
      });
      const { status, body } = await jsonOf(res);
      expect(status).toBe(400);
      expect((body as { detail: string }).detail).toMatch(/^Malformed JSON body/);
    });

    it('a JSON array body is 422', async () => {
      const { status, body } = await svc.send('createPortal', { params: { org_id: 'default' }, body: [1, 2] });
      expect(status).toBe(422);
      expect(typeof (body as { detail: unknown }).detail).toBe('string');
    });
  });
});
