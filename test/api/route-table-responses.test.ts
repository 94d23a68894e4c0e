// tier: unit
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLogger } from '../../src-main/base/logger.ts';
import { installErrorHandler } from '../../src-main/api/errorHandler.ts';
import { buildOpenApi } from '../../src-main/api/openapi.ts';
import { RouteTable } from '../../src-main/api/routeTable.ts';
import { checkingResponses } from '../../src-main/api/validation.ts';
import { deepFreeze, isDeepFrozen } from '../../src-main/base/deepFreeze.ts';
import { openStore, type Store } from '../../src-main/store/store.ts';

const Thing = z.object({ id: z.string(), name: z.string(), tags: z.array(z.object({ label: z.string() })) });
type ThingInput = z.input<typeof Thing>;

/** What a store row looks like next to its public shape: an internal column the contract does not name. */
const row = { id: 't1', name: 'first', secret_hash: 'do-not-send', tags: [{ label: 'a', internal_rank: 3 }] };

/**
 * Type-level specification, checked by `tsc` (npm test type-checks the tests), never run: a JSON
 * handler returns its response schema's input; 204 and handler-written routes return nothing.
 */
// biome-ignore lint/suspicious/noExportsInTest: a type-level spec that tsc checks and nothing runs; the export marks it as deliberately uncalled
export function routeTypeErrors(routes: RouteTable): void {
  const route = { method: 'GET', path: '/typed', tag: 't', summary: 's', auth: 'none' } as const;
  // @ts-expect-error name is required by the response schema
  routes.add({ ...route, response: Thing, handler: () => ({ id: 'x', tags: [] }) });
  // @ts-expect-error name must be a string
  routes.add({ ...route, response: Thing, handler: async () => ({ id: 'x', name: 1, tags: [] }) });
  // @ts-expect-error a route without a response schema cannot return a body
  routes.add({ ...route, status: 204, handler: () => ({ deleted: true }) });
  // @ts-expect-error a handler-written body returns nothing (not the reply)
  routes.add({ ...route, produces: { type: 'text/plain' }, handler: ({ reply }) => reply.send('x') });
  routes.add({ ...route, response: Thing, handler: async () => ({ id: 'x', name: 'n', tags: [] }) });
}

describe('responses are serialized through their schema', () => {
  let app: FastifyInstance;
  let store: Store;
  const logged: string[] = [];
  // What a service keeps and serves again (deep-frozen), and a value merely frozen on top.
  let kept: ThingInput = deepFreeze({ id: 'k1', name: 'kept', tags: [{ label: 'one' }] });
  const shallowTags = [{ label: 'before' }];
  const shallow: ThingInput = Object.freeze({ id: 's1', name: 'shallow', tags: shallowTags });

  beforeAll(async () => {
    store = openStore(':memory:');
    app = Fastify();
    installErrorHandler(
      app,
      createLogger('error', (line) => logged.push(line)),
    );
    const routes = new RouteTable();
    routes.add({
      method: 'GET',
      path: '/extra',
      tag: 't',
      summary: 'extra fields',
      auth: 'none',
      response: Thing,
      handler: () => row,
    });
    routes.add({
      method: 'GET',
      path: '/missing/:id',
      tag: 't',
      summary: 'a required field missing',
      auth: 'none',
      params: z.object({ id: z.string() }),
      response: Thing,
      // Bypasses the type on purpose, the way a bad row or a mapper that drifted from the contract would.
      handler: () => ({ id: 't2', tags: [] }) as unknown as ThingInput,
    });
    routes.add({
      method: 'GET',
      path: '/kept',
      tag: 't',
      summary: 'a deep-frozen answer served again',
      auth: 'none',
      response: Thing,
      handler: () => kept,
    });
    routes.add({
      method: 'GET',
      path: '/shallow',
      tag: 't',
      summary: 'a shallow-frozen answer whose insides change',
      auth: 'none',
      response: Thing,
      handler: () => shallow,
    });
    routes.add({
      method: 'GET',
      path: '/list',
      tag: 't',
      summary: 'array',
      auth: 'none',
      response: z.array(Thing),
      handler: () => [row, row],
    });
    routes.add({
      method: 'DELETE',
      path: '/gone',
      tag: 't',
      summary: 'no body',
      auth: 'none',
      status: 204,
      handler: () => undefined,
    });
    routes.add({
      method: 'GET',
      path: '/raw',
      tag: 't',
      summary: 'handler-written body',
      auth: 'none',
      produces: { type: 'text/plain', schema: z.string() },
      handler: ({ reply }) => {
        reply.type('text/plain').send('written by the handler');
      },
    });
    routes.register(app, store.apiKeys);
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    store.close();
  });

  it('a handler returning an extra field (also nested) does not leak it', async () => {
    const res = await app.inject({ method: 'GET', path: '/extra' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: 't1', name: 'first', tags: [{ label: 'a' }] });
    expect(res.body).not.toContain('do-not-send');
  });

  it('arrays are serialized item by item', async () => {
    const res = await app.inject({ method: 'GET', path: '/list' });
    expect(res.json()).toEqual([
      { id: 't1', name: 'first', tags: [{ label: 'a' }] },
      { id: 't1', name: 'first', tags: [{ label: 'a' }] },
    ]);
  });

  it('a handler missing a required field is a 500 {detail}, logged with the route and the zod issue, nothing half-valid sent', async () => {
    logged.length = 0;
    const res = await app.inject({ method: 'GET', path: '/missing/t2' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ detail: 'Internal server error' });
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain('"route":"GET /missing/:id"');
    expect(logged[0]).toContain('the response of GET /missing/:id breaks its schema: response.name: is required');
  });

  describe('as a served build writes them (the compiled serializer alone, no zod parse)', () => {
    const saved = process.env.NODE_ENV;
    beforeAll(() => {
      process.env.NODE_ENV = 'production';
      expect(checkingResponses()).toBe(false);
    });
    afterAll(() => {
      process.env.NODE_ENV = saved;
    });

    it('an extra field (also nested, also in arrays) cannot leak', async () => {
      const res = await app.inject({ method: 'GET', url: '/extra' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.body).toBe('{"id":"t1","name":"first","tags":[{"label":"a"}]}');
      const list = await app.inject({ method: 'GET', url: '/list' });
      expect(list.json()).toEqual([
        { id: 't1', name: 'first', tags: [{ label: 'a' }] },
        { id: 't1', name: 'first', tags: [{ label: 'a' }] },
      ]);
      expect(list.body).not.toContain('internal_rank');
    });

    it("a deep-frozen answer's text is kept with it; a new answer is written anew; a merely frozen one is written every time", async () => {
      expect(isDeepFrozen(kept)).toBe(true);
      expect(isDeepFrozen(shallow)).toBe(false);
      const first = await app.inject({ method: 'GET', url: '/kept' });
      expect(first.body).toBe('{"id":"k1","name":"kept","tags":[{"label":"one"}]}');
      expect((await app.inject({ method: 'GET', url: '/kept' })).body).toBe(first.body);
      kept = deepFreeze({ id: 'k1', name: 'changed', tags: [] });
      expect((await app.inject({ method: 'GET', url: '/kept' })).body).toBe('{"id":"k1","name":"changed","tags":[]}');
      expect((await app.inject({ method: 'GET', url: '/shallow' })).json().tags).toEqual([{ label: 'before' }]);
      shallowTags.push({ label: 'after' });
      expect((await app.inject({ method: 'GET', url: '/shallow' })).json().tags).toEqual([
        { label: 'before' },
        { label: 'after' },
      ]);
    });

    it('a required field missing is a 500 {detail} naming it in the log, never a body without it', async () => {
      logged.length = 0;
      const res = await app.inject({ method: 'GET', url: '/missing/t2' });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({ detail: 'Internal server error' });
      expect(logged).toHaveLength(1);
      expect(logged[0]).toContain('the response of GET /missing/:id breaks its schema: \\"name\\" is required');
    });
  });

  it('every response schema of the real API compiles to a serializer, or is one that computes its output and keeps zod', async () => {
    const { responseJsonSchema, isPlainSchema } = await import('../../src-main/api/responseSerializer.ts');
    const { operations } = await import('../../src-main/contract/operations.ts');
    const schemas = Object.values(operations as Record<string, { response?: z.ZodType }>).flatMap((op) =>
      op.response ? [op.response] : [],
    );
    expect(schemas.length).toBeGreaterThan(20);
    const fast = schemas.filter((schema) => responseJsonSchema(schema) !== null);
    // Nearly all are plain (output = input): those are written by fast-json-stringify.
    expect(fast.length).toBeGreaterThan(schemas.length * 0.8);
    for (const schema of schemas) expect(responseJsonSchema(schema) !== null).toBe(isPlainSchema(schema));
    const serializer = Fastify();
    for (const [i, schema] of fast.entries())
      serializer.get(
        `/s${i}`,
        { schema: { response: { 200: responseJsonSchema(schema) as object } } },
        async () => ({}),
      );
    await serializer.ready();
    await serializer.close();
  });

  it('a discriminated union is written branch by branch: each branch keeps only its own fields', async () => {
    const Event = z.discriminatedUnion('type', [
      z.object({ type: z.literal('step'), data: z.object({ step: z.int() }) }),
      z.object({ type: z.literal('note'), data: z.object({ text: z.string(), at: z.string().nullable() }) }),
    ]);
    const Body = z.object({ events: z.array(Event), result: z.record(z.string(), z.unknown()).nullable() });
    const { responseJsonSchema } = await import('../../src-main/api/responseSerializer.ts');
    const server = Fastify();
    const body = {
      events: [
        { type: 'step', data: { step: 1, leak: 'x' } },
        { type: 'note', data: { text: 'hi', at: null, step: 9 }, extra: true },
      ],
      result: { anything: { nested: [1, 'two'] } },
    };
    server.get('/u', { schema: { response: { 200: responseJsonSchema(Body) as object } } }, async () => body);
    const res = await server.inject({ method: 'GET', url: '/u' });
    await server.close();
    expect(res.body).toBe(JSON.stringify(Body.parse(body)));
    expect(res.json()).toEqual({
      events: [
        { type: 'step', data: { step: 1 } },
        { type: 'note', data: { text: 'hi', at: null } },
      ],
      result: { anything: { nested: [1, 'two'] } },
    });
  });

  it("a job's events are written branch by branch through registered branch tests, a submission's fields exactly (served build and checked)", async () => {
    const { JobStatusResponse } = await import('../../src-main/contract/job.ts');
    const at = '2026-11-28T04:00:00Z';
    const event = (type: string, data: Record<string, unknown>) => ({ type, timestamp: at, data, leak: 'event' });
    const status = {
      job_id: '00000000-0000-4000-8000-000000000000',
      portal_id: 'default/permit',
      status: 'completed',
      result: { confirmation: 'A-1', nested: [1, 'two', null] },
      error: null,
      created_at: at,
      updated_at: at,
      started_at: at,
      completed_at: at,
      browser_url: null,
      has_screenshots: false,
      steps: 1,
      credits: 0,
      session_cost_usd: 0,
      orchestrator_model: 'builtin:autofill',
      vision_model: 'builtin:autofill',
      downloads_link: null,
      video_recording_url: null,
      log_url: '/task/default/permit/logs?job_id=x',
      internal_row: 'do-not-send',
      events: [
        event('step', { step: 1, description: 'Filled first_name', leak: 'step' }),
        event('submission', {
          method: 'POST',
          url: 'https://permits.example.gov/apply',
          fields: { first_name: 'Ada', 'tags[]': ['a', 'b,c'], none: [], quote: 'say "hi"\n' },
          body_sha256: null,
          response_status: 200,
          verified: ['first_name'],
          unverified: [],
          leak: 'submission',
        }),
        event('answer', { question_id: '00000000-0000-4000-8000-000000000001', answer: 'yes' }),
      ],
    };
    const expected = JSON.stringify(JobStatusResponse.parse(status));
    const routes = new RouteTable();
    routes.add({
      method: 'GET',
      path: '/status',
      tag: 't',
      summary: 'a job status',
      auth: 'none',
      response: JobStatusResponse,
      handler: () => status as unknown as z.input<typeof JobStatusResponse>,
    });
    const server = Fastify();
    routes.register(server, store.apiKeys);
    // Each branch test is its own external schema; the compiled serializer refers to it.
    expect(server.getSchema('portico-is-type-submission')).toEqual({
      $id: 'portico-is-type-submission',
      type: 'object',
      properties: { type: { const: 'submission' } },
      required: ['type'],
    });
    await server.ready();
    const saved = process.env.NODE_ENV;
    try {
      // Checked: zod's value and the compiled serializer's agree (else a 500).
      const checked = await server.inject({ method: 'GET', url: '/status' });
      expect(checked.statusCode, checked.body).toBe(200);
      expect(checked.json()).toEqual(JSON.parse(expected));
      process.env.NODE_ENV = 'production';
      const served = await server.inject({ method: 'GET', url: '/status' });
      expect(served.statusCode, served.body).toBe(200);
      expect(served.json()).toEqual(JSON.parse(expected));
      expect(served.body).not.toContain('leak');
      expect(served.body).not.toContain('do-not-send');
      expect(served.json().events[1].data.fields).toEqual({
        first_name: 'Ada',
        'tags[]': ['a', 'b,c'],
        none: [],
        quote: 'say "hi"\n',
      });
    } finally {
      process.env.NODE_ENV = saved;
      await server.close();
    }
  });

  it("the real API's serializers pick union branches without compiling a whole response schema", async () => {
    const { discriminatorTestSchemas, responseJsonSchema } = await import('../../src-main/api/responseSerializer.ts');
    const { operations } = await import('../../src-main/contract/operations.ts');
    const schemas = Object.values(operations as Record<string, { response?: z.ZodType }>).flatMap((op) =>
      op.response ? [op.response] : [],
    );
    const tests = discriminatorTestSchemas(schemas);
    const inline: string[] = [];
    const scalarUnions: string[] = [];
    const walk = (node: unknown, path: string): void => {
      if (Array.isArray(node)) for (const [i, child] of node.entries()) walk(child, `${path}/${i}`);
      if (typeof node !== 'object' || node === null || Array.isArray(node)) return;
      const schema = node as Record<string, unknown>;
      // An `if` given inline makes Ajv compile the route's whole schema at the first body.
      if ('if' in schema && !('$ref' in (schema.if as object))) inline.push(`${path}/if`);
      for (const combinator of ['anyOf', 'oneOf'])
        if (
          Array.isArray(schema[combinator]) &&
          (schema[combinator] as Record<string, unknown>[]).every(
            (branch) => typeof branch.type === 'string' && branch.type !== 'object',
          )
        )
          scalarUnions.push(`${path}/${combinator}`);
      for (const [key, child] of Object.entries(schema)) walk(child, `${path}/${key}`);
    };
    for (const schema of schemas) walk(responseJsonSchema(schema, new Set(tests.keys())), '');
    expect(inline).toEqual([]);
    expect(scalarUnions).toEqual([]);
    expect([...tests.keys()]).toContain('portico-is-type-submission');
  });

  it('a 204 sends no body and a handler-written body is left as the handler wrote it', async () => {
    const gone = await app.inject({ method: 'DELETE', path: '/gone' });
    expect(gone.statusCode).toBe(204);
    expect(gone.body).toBe('');
    const raw = await app.inject({ method: 'GET', path: '/raw' });
    expect(raw.headers['content-type']).toMatch(/^text\/plain/);
    expect(raw.body).toBe('written by the handler');
  });

  it('a route must declare exactly one kind of body', () => {
    const routes = new RouteTable();
    expect(() =>
      routes.add({ method: 'GET', path: '/nothing', tag: 't', summary: 's', auth: 'none', handler: () => undefined }),
    ).toThrow('GET /nothing: declare exactly one of response (JSON), status 204 or produces');
    expect(() =>
      routes.add({
        method: 'GET',
        path: '/both',
        tag: 't',
        summary: 's',
        auth: 'none',
        status: 204,
        response: Thing,
        handler: () => row,
      }),
    ).toThrow('GET /both: declare exactly one');
  });

  it('OpenAPI publishes the response schema of JSON routes and the content type of handler-written ones', () => {
    const routes = new RouteTable();
    routes.add({
      method: 'GET',
      path: '/thing',
      tag: 't',
      summary: 's',
      auth: 'none',
      response: Thing,
      handler: () => row,
    });
    routes.add({
      method: 'GET',
      path: '/file',
      tag: 't',
      summary: 's',
      auth: 'none',
      produces: { type: 'application/zip' },
      handler: () => undefined,
    });
    const doc = buildOpenApi(routes.routes, '0') as {
      paths: Record<
        string,
        { get: { responses: Record<string, { content: Record<string, { schema: Record<string, unknown> }> }> } }
      >;
    };
    expect(doc.paths['/thing']?.get.responses['200']?.content['application/json']?.schema).toMatchObject({
      type: 'object',
      required: ['id', 'name', 'tags'],
    });
    expect(doc.paths['/file']?.get.responses['200']?.content['application/zip']?.schema).toEqual({
      type: 'string',
      format: 'binary',
    });
  });
});
