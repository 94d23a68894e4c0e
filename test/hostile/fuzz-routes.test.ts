import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { routeName, type AnyRouteSpec } from '../../src-main/api/routeTable.ts';
import { buildRawZip } from '../helpers/rawZip.ts';
import { jsonOf, startService, type TestService } from '../helpers/service.ts';

/**
 * The route table, fuzzed: every route's path parameters, documented query fields and body fields get
 * wrong types, huge and deeply nested values, NUL, bidi controls, traversal and bad encodings; uploads
 * get broken multipart. Whatever the input, the answer is never a 5xx, and every error body is exactly
 * `{"detail": string}`. No case may open a browser or reach past this machine: on the routes that
 * would, a case that passes the route's own schemas is not sent (it would be a success, not a fuzz).
 */

/** Routes whose valid call opens a browser, stores a secret in the keychain or calls out: only invalid cases are sent. */
const ONLY_INVALID = new Set([
  'POST /profiles/:org_id',
  'POST /public/sessions',
  'PUT /admin/providers/:provider',
  'DELETE /admin/providers/:provider',
  'POST /admin/providers/:provider/test',
  'POST /public/workflows/:workflow_id/run',
  'POST /public/single-actions/run-action',
  'PATCH /admin/settings',
]);

const PLACEHOLDER_UUID = '00000000-0000-4000-8000-000000000000';
/** Path values that pass each parameter's schema but name nothing, so the body and query are what gets judged. */
const PLACEHOLDERS: Record<string, string> = {
  org_id: 'default',
  provider: 'anthropic',
  endpoint_name: 'no-such-portal',
  index: '0',
  token: 'no-such-token',
};

const huge = 'x'.repeat(200_000);
const nested = (depth: number): unknown => {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
};
/** `{"a":{"a":…"leaf"…}}` as text: too deep for JSON.stringify to write. */
const nestedText = (depth: number): string => `${'{"a":'.repeat(depth)}"leaf"${'}'.repeat(depth)}`;

/** Values for one body field: each is sent as `{ [field]: value }`. */
const FIELD_VALUES: readonly unknown[] = [
  null,
  0,
  -1,
  1e308,
  1.5,
  true,
  '',
  huge,
  [],
  ['x'],
  {},
  nested(40),
  nested(200),
  'nul\u0000byte',
  'bidi\u202Eevil\u2066',
  'line\r\nbreak',
  '../../../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '%00%ff%fe',
  '\uD800',
  '😀'.repeat(1000),
  [[[[[[]]]]]],
];

/** Values for one query field or path parameter, before percent-encoding (raw ones are sent as they stand). */
const TEXT_VALUES: readonly string[] = [
  '',
  'x'.repeat(8_000),
  '-1',
  '1e309',
  'NaN',
  'true',
  '[object Object]',
  'nul\u0000',
  'bidi\u202Eevil',
  '../../../etc/passwd',
  '..',
  '😀',
  '\uFFFF',
];
const RAW_SEGMENTS: readonly string[] = [
  '%ff%fe',
  '%',
  '%zz',
  '%c0%af',
  '..%2f..%2fetc%2fpasswd',
  '%2e%2e',
  'x'.repeat(101),
  '%00',
];

/** A request body as sent: text, or raw bytes (invalid UTF-8). */
type RawBody = string | Uint8Array<ArrayBuffer>;

/** Whole bodies of JSON routes: not an object, not JSON, or not JSON at all. */
const WHOLE_BODIES: readonly { type?: string; body: RawBody }[] = [
  { type: 'application/json', body: 'null' },
  { type: 'application/json', body: '[]' },
  { type: 'application/json', body: '"text"' },
  { type: 'application/json', body: '42' },
  { type: 'application/json', body: '{' },
  { type: 'application/json', body: '' },
  { type: 'application/json', body: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]) },
  { type: 'application/json', body: '{"__proto__":{"polluted":true}}' },
  { type: 'application/json', body: '{"constructor":{"prototype":{"polluted":true}}}' },
  { type: 'application/json', body: `${'['.repeat(5_000)}${']'.repeat(5_000)}` },
  { type: 'application/json', body: `{"form_data":${nestedText(5_000)}}` },
  { type: 'application/json; charset=utf-16', body: '{}' },
  {
    type: 'multipart/form-data; boundary=x',
    body: '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--\r\n',
  },
  { type: 'multipart/form-data', body: 'garbage' },
  { type: 'text/plain', body: '{}' },
  { type: 'application/x-www-form-urlencoded', body: 'a=1' },
  { body: '{}' },
];

/** Broken uploads for the multipart routes. */
const MULTIPART_BODIES: readonly { type?: string; body: RawBody }[] = [
  { type: 'multipart/form-data', body: 'garbage' },
  { type: 'multipart/form-data; boundary=', body: 'garbage' },
  { type: `multipart/form-data; boundary=${'b'.repeat(300)}`, body: `--${'b'.repeat(300)}\r\n` },
  { type: 'multipart/form-data; boundary=x', body: 'garbage without any boundary' },
  {
    type: 'multipart/form-data; boundary=x',
    body: '--x\r\nContent-Disposition: form-data; name="file"; filename="a.zip"\r\n\r\nPK\u0003\u0004 truncated',
  },
  { type: 'multipart/form-data; boundary=x', body: '--x\r\nno colon header\r\n\r\nbody\r\n--x--\r\n' },
  { type: 'multipart/form-data; boundary=x', body: '--x--\r\n' },
  { type: 'multipart/form-data; boundary=x', body: '' },
  {
    type: 'multipart/form-data; boundary=x',
    body: '--x\r\nContent-Disposition: form-data; name="__proto__"\r\n\r\n1\r\n--x--\r\n',
  },
  { type: 'multipart/mixed; boundary=x', body: '--x--\r\n' },
  { type: 'application/json', body: '{"file":"a.zip"}' },
  { body: '' },
];

/** Field names of an object schema, through optional/default/pipe wrappers. */
function fieldsOf(schema: z.ZodType | undefined): string[] {
  if (schema instanceof z.ZodObject) return Object.keys(schema.shape);
  if (schema instanceof z.ZodPipe) return fieldsOf(schema.in as z.ZodType);
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodDefault) return fieldsOf(schema.unwrap() as z.ZodType);
  return [];
}

interface Case {
  method: string;
  path: string;
  contentType?: string;
  body?: RawBody;
  /** What the case changed, for the failure list. */
  what: string;
  /** The parsed parts, to tell whether a route with outside effects would accept them. */
  params: Record<string, string>;
  query: Record<string, string>;
  json?: unknown;
}

const pathOf = (route: AnyRouteSpec, segments: Record<string, string>): string =>
  route.path.replace(/:(\w+)/g, (_, name: string) => segments[name] ?? PLACEHOLDERS[name] ?? PLACEHOLDER_UUID);
const defaults = (route: AnyRouteSpec): Record<string, string> =>
  Object.fromEntries(
    [...route.path.matchAll(/:(\w+)/g)].map(([, name = '']) => [name, PLACEHOLDERS[name] ?? PLACEHOLDER_UUID]),
  );
const queryString = (query: Record<string, string>): string =>
  Object.keys(query).length === 0 ? '' : `?${new URLSearchParams(query)}`;

function jsonOrUndefined(body: RawBody): unknown {
  try {
    return typeof body === 'string' ? (JSON.parse(body) as unknown) : undefined;
  } catch {
    return undefined;
  }
}

/** Every hostile case for one route. */
function casesFor(route: AnyRouteSpec): Case[] {
  const cases: Case[] = [];
  const params = defaults(route);
  const queryFields = fieldsOf(route.query);
  // Skills need a folder to get as far as the upload.
  const baseQuery: Record<string, string> = queryFields.includes('folder') ? { folder: 'fuzz' } : {};
  const bodyCarrying = route.method !== 'GET' && route.method !== 'DELETE';
  const base = { method: route.method, params, query: baseQuery };
  const withBody = bodyCarrying && route.body ? { contentType: 'application/json', body: '{}', json: {} } : {};

  for (const name of Object.keys(params)) {
    for (const value of TEXT_VALUES.filter((v) => v !== '')) {
      const segments = { ...params, [name]: value };
      cases.push({
        ...base,
        ...withBody,
        params: segments,
        path: pathOf(route, { ...params, [name]: encodeURIComponent(value) }) + queryString(baseQuery),
        what: `path ${name}=${JSON.stringify(value.slice(0, 20))}`,
      });
    }
    for (const raw of RAW_SEGMENTS) {
      cases.push({
        ...base,
        ...withBody,
        params: { ...params, [name]: raw },
        path: pathOf(route, { ...params, [name]: raw }) + queryString(baseQuery),
        what: `path ${name}=${raw.slice(0, 20)} (raw)`,
      });
    }
  }
  for (const name of [...queryFields, 'unknown_field']) {
    for (const value of TEXT_VALUES) {
      const query = { ...baseQuery, [name]: value };
      cases.push({
        ...base,
        ...withBody,
        query,
        path: pathOf(route, params) + queryString(query),
        what: `query ${name}=${JSON.stringify(value.slice(0, 20))}`,
      });
    }
    cases.push({
      ...base,
      ...withBody,
      path: `${pathOf(route, params)}?${name}=%ff%fe&${name}=a&${name}=b`,
      query: { ...baseQuery, [name]: 'a' },
      what: `query ${name} repeated, bad encoding`,
    });
  }
  if (bodyCarrying && route.body) {
    for (const name of [...fieldsOf(route.body), 'unknown_field']) {
      for (const value of FIELD_VALUES) {
        const json = { [name]: value };
        cases.push({
          ...base,
          path: pathOf(route, params) + queryString(baseQuery),
          contentType: 'application/json',
          body: JSON.stringify(json),
          json,
          what: `body ${name}=${JSON.stringify(value)?.slice(0, 30)}`,
        });
      }
    }
    for (const whole of WHOLE_BODIES) {
      cases.push({
        ...base,
        path: pathOf(route, params) + queryString(baseQuery),
        contentType: whole.type,
        body: whole.body,
        json: jsonOrUndefined(whole.body),
        what: `body ${whole.type ?? 'no content-type'}: ${String(whole.body).slice(0, 30)}`,
      });
    }
  }
  if (route.multipart) {
    for (const upload of MULTIPART_BODIES) {
      cases.push({
        ...base,
        path: pathOf(route, params) + queryString(baseQuery),
        contentType: upload.type,
        body: upload.body,
        what: `upload ${upload.type ?? 'no content-type'}: ${String(upload.body).slice(0, 30)}`,
      });
    }
  }
  return cases;
}

/** Whether a case would pass every schema of a route (path, query, JSON body): such a case is a real call, not a fuzz. */
function passesSchemas(route: AnyRouteSpec, call: Case): boolean {
  if (route.params && !route.params.safeParse(call.params).success) return false;
  if (route.query && !route.query.safeParse(call.query).success) return false;
  if (route.body) {
    if (call.contentType !== undefined && !call.contentType.startsWith('application/json')) return false;
    if (call.json === undefined && call.body !== undefined) return false;
    if (!route.body.safeParse(call.json ?? {}).success) return false;
  }
  return true;
}

/** One raw HTTP/1.1 exchange over a socket, for what fetch refuses to send (bad request lines, huge headers, odd Hosts). */
function rawRequest(url: string, text: string): Promise<{ status: number; headers: string; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // The server may close right after answering, before the rest of a huge request was written.
      if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') reject(error);
    });
    socket.on('close', () => {
      const response = Buffer.concat(chunks).toString('utf8');
      const split = response.indexOf('\r\n\r\n');
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1] ?? 0),
        headers: response.slice(0, split),
        body: response.slice(split + 4),
      });
    });
    socket.write(text);
  });
}

/** Why a response breaks the contract (a 5xx, or an error body other than exactly `{detail: string}`), or undefined. */
function contractProblem(status: number, text: string): string | undefined {
  if (status >= 500 || status === 0) return `${status} ${text.slice(0, 200)}`;
  if (status < 400) return undefined;
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    if (
      body === null ||
      typeof body !== 'object' ||
      Object.keys(body).join() !== 'detail' ||
      typeof body.detail !== 'string'
    )
      return `${status} not {detail}: ${text.slice(0, 200)}`;
  } catch {
    return `${status} not JSON: ${text.slice(0, 200)}`;
  }
  return undefined;
}

describe('every route under hostile input: never a 5xx, every error exactly {detail: string} (fuzzed from the route table)', () => {
  let svc: TestService;

  beforeAll(async () => {
    svc = await startService();
    // One real portal, so a job start reaches form_data validation (and a deep form_data, its walk).
    const made = await svc.api('/portals/default', {
      method: 'POST',
      json: {
        endpoint_name: 'fuzz',
        start_url: 'http://127.0.0.1:9/form',
        task: 'fuzz',
        form_schema: { type: 'object', properties: { name: { type: 'string' } } },
      },
    });
    expect(made.status).toBe(200);
  });
  afterAll(() => svc?.dispose());

  const credentialsFor = (route: AnyRouteSpec): Record<string, string> => {
    if (route.auth === 'console') return { 'x-console-token': svc.consoleToken };
    if (route.auth === 'account') return { 'x-api-key': svc.accountKey };
    if (route.auth === 'org') return { 'x-api-key': svc.orgKey };
    return {};
  };

  it('answers every case of every route with a status below 500 and, for errors, exactly {detail: string}', async () => {
    const routes = svc.app.routes;
    expect(routes.length).toBeGreaterThan(60);
    const problems: string[] = [];
    let sent = 0;
    for (const route of routes) {
      const cases = casesFor(route).filter(
        (call) => !(ONLY_INVALID.has(routeName(route)) && passesSchemas(route, call)),
      );
      // A few at a time: the server is one process, the suite shares two cores.
      for (let i = 0; i < cases.length; i += 8) {
        await Promise.all(
          cases.slice(i, i + 8).map(async (call) => {
            const headers: Record<string, string> = {
              ...credentialsFor(route),
              ...(call.contentType ? { 'content-type': call.contentType } : {}),
            };
            const response = await fetch(`${svc.url}${call.path}`, {
              method: call.method,
              headers,
              body: call.body,
              signal: AbortSignal.timeout(20_000),
            });
            // Event streams (job logs, live frames) never end by themselves: the status and headers are the answer.
            const streaming = response.headers.get('content-type')?.startsWith('text/event-stream') ?? false;
            if (streaming) await response.body?.cancel();
            const text = streaming ? '' : await response.text();
            sent++;
            // A page for a person's browser (the OAuth callback, a live view) answers its errors as a page too.
            const page =
              route.produces?.type === 'text/html' && response.headers.get('content-type')?.startsWith('text/html');
            const json = response.headers.get('content-type')?.startsWith('application/json') ?? false;
            const problem = page
              ? response.status >= 500
                ? `${response.status} page`
                : undefined
              : (contractProblem(response.status, text) ??
                (response.status >= 400 && !json
                  ? `${response.status} as ${response.headers.get('content-type')}`
                  : undefined));
            if (problem) problems.push(`${routeName(route)} — ${call.what}: ${problem}`);
          }),
        );
      }
    }
    expect(problems.slice(0, 40)).toEqual([]);
    expect(sent).toBeGreaterThan(5_000);
    // Nothing the fuzz sent opened a browser.
    expect((await jsonOf(await svc.api('/profiles/default/sessions'))).body).toEqual([]);
    expect(
      ((await jsonOf(await svc.api('/public/sessions', { key: svc.accountKey }))).body as { total: number }).total,
    ).toBe(0);
    // ~6,000 requests: about 50 s on two loaded cores, more as the route table grows.
  }, 240_000);

  it('the probes of the issue: a bad percent-encoding, a long segment, deep form_data, multipart and null bodies on JSON routes', async () => {
    expect(await jsonOf(await svc.api('/portals/%ff%fe'))).toEqual({
      status: 400,
      body: { detail: 'Malformed URL: a path segment is not valid percent-encoded UTF-8' },
    });
    expect(await jsonOf(await svc.api(`/portals/default/${'a'.repeat(101)}`))).toEqual({
      status: 414,
      body: { detail: 'URI too long: a path segment is longer than 100 characters' },
    });
    const deep = await svc.api('/jobs/default/fuzz/start', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"form_data":${nestedText(5_000)}}`,
    });
    expect(await jsonOf(deep)).toEqual({
      status: 422,
      body: { detail: 'body: must not nest objects or arrays deeper than 64 levels' },
    });
    const form = new FormData();
    form.append('endpoint_name', 'sneaky');
    expect(await jsonOf(await svc.api('/portals/default', { method: 'POST', body: form }))).toEqual({
      status: 415,
      body: { detail: 'Content-Type must be application/json' },
    });
    expect(
      await jsonOf(
        await svc.api('/jobs/default/fuzz/start', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: 'null',
        }),
      ),
    ).toEqual({ status: 422, body: { detail: 'body: must be of type object' } });
    const oversized = await svc.api('/portals/default', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"task":"${'x'.repeat(11 * 1024 * 1024)}"}`,
    });
    expect(await jsonOf(oversized)).toEqual({ status: 413, body: { detail: 'Request body too large' } });
    // No job was started by any of them.
    expect(((await jsonOf(await svc.api('/jobs/default'))).body as { total: number }).total).toBe(0);
  });

  it('malformed multipart to /skills is a 400 naming the problem, and no skill is recorded', async () => {
    const post = (type: string, body: string) =>
      svc.api('/skills/default?folder=broken', { method: 'POST', headers: { 'content-type': type }, body });
    expect(await jsonOf(await post('multipart/form-data', 'garbage'))).toEqual({
      status: 400,
      body: { detail: 'Malformed multipart body: Boundary not found' },
    });
    const truncated = await jsonOf(
      await post(
        'multipart/form-data; boundary=x',
        '--x\r\nContent-Disposition: form-data; name="file"; filename="a.zip"\r\n\r\nPK',
      ),
    );
    expect(truncated.status).toBe(400);
    expect((truncated.body as { detail: string }).detail).toMatch(/^Malformed multipart body: /);
    expect((await jsonOf(await svc.api('/skills/default'))).body).toEqual([]);
  });

  it("what Node's HTTP parser refuses (huge headers, a broken request line) is answered with {detail} too", async () => {
    const tooLarge = await rawRequest(
      svc.url,
      `GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(tooLarge.status).toBe(431);
    expect(JSON.parse(tooLarge.body)).toEqual({ detail: 'Request headers too large' });
    const broken = await rawRequest(svc.url, 'GARBAGE\r\n\r\n');
    expect(broken.status).toBe(400);
    expect(JSON.parse(broken.body)).toEqual({ detail: 'Malformed HTTP request' });
    // HTTP/1.1 requires Host: Node refuses it before any route, with an empty body unless told otherwise.
    for (const version of ['1.1', '1.0']) {
      const hostless = await rawRequest(svc.url, `GET /health HTTP/${version}\r\nConnection: close\r\n\r\n`);
      expect(hostless.status, version).toBe(400);
      expect(hostless.headers, version).toMatch(/content-type: application\/json/i);
      expect(JSON.parse(hostless.body), version).toEqual({ detail: expect.stringMatching(/^Missing Host header: /) });
    }
    for (const method of ['PROPFIND', 'OPTIONS', 'TRACE', 'PUT']) {
      const answered = await rawRequest(
        svc.url,
        `${method} /portals/default HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${svc.orgKey}\r\nConnection: close\r\n\r\n`,
      );
      expect(contractProblem(answered.status, answered.body), method).toBeUndefined();
      expect(answered.status, method).toBeGreaterThanOrEqual(400);
    }
    // A NUL or a raw control byte in the path.
    const nul = await rawRequest(
      svc.url,
      `GET /portals/default/a%00b HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${svc.orgKey}\r\nConnection: close\r\n\r\n`,
    );
    expect(contractProblem(nul.status, nul.body)).toBeUndefined();
  });

  it('an upload is refused whole: a hostile skill zip name leaves no skill and no folder behind', async () => {
    for (const filename of ['evil\u202Egpj.zip', 'line\r\nbreak.zip', '../../../escape.zip']) {
      const form = new FormData();
      const zip = buildRawZip([{ name: 'SKILL.md', data: Buffer.from('---\nname: fuzz\ndescription: fuzz\n---\n') }]);
      form.append('file', new Blob([new Uint8Array(zip)], { type: 'application/zip' }), filename);
      const answered = await svc.api('/skills/default?folder=names', { method: 'POST', body: form });
      const text = await answered.text();
      expect(contractProblem(answered.status, text), filename).toBeUndefined();
    }
    const listed = (await jsonOf(await svc.api('/skills/default'))).body as { name: string }[];
    expect(listed.map((skill) => skill.name).filter((name) => /[\u0000-\u001f\u202a-\u202e]/.test(name))).toEqual([]);
  });
});
