// ReDoS (issue 14, item 1): a portal's `pattern` once held the only request thread for seconds on
// 29 `a`s and a `!`. Patterns now run on RE2 (linear time): a pattern that would backtrack
// validates at once, and one RE2 cannot run (backreference, lookaround) is refused with 422 at
// portal create and PATCH. No timing bounds here: a backtracking engine would not finish at all on
// these inputs (2^60 steps), so the test would hang and fail rather than pass slowly.
import { describe, expect } from 'vitest';
import { JsonSchemaCompiler } from '../../src-main/base/jsonSchema.ts';
import { linearRegExp, UnsupportedPatternError } from '../../src-main/base/linearRegExp.ts';
import { dateFormatFromPattern } from '../../src-main/agent/autofill/dates.ts';
import { patternAccepts } from '../../src-main/agent/autofill/valueAdapter.ts';
import { matchesHumanizedUrl } from '../../src-main/browser/humanizedUrls.ts';
import { jsonOf, type TestService } from '../helpers/service.ts';
import { test } from '../helpers/fixtures.ts';

const EVIL = '^(a+)+$';
const hostile = `${'a'.repeat(60)}!`;

describe('user-supplied patterns run in linear time', () => {
  const createPortal = (
    svc: TestService,
    endpoint: string,
    formSchema: Record<string, unknown>,
    extra: Record<string, unknown> = {},
  ) =>
    svc.api('/portals/default', {
      method: 'POST',
      json: {
        endpoint_name: endpoint,
        start_url: 'https://example.test/form',
        task: 'Fill the form',
        form_schema: formSchema,
        ...extra,
      },
    });

  test('a portal with the catastrophic pattern is accepted, and a job start with the hostile value is a 422 while /health keeps answering', async ({
    svc,
  }) => {
    const formSchema = { type: 'object', properties: { name: { type: 'string', pattern: EVIL } }, required: ['name'] };
    expect((await createPortal(svc, 'evil', formSchema)).status).toBe(200);

    const start = svc.api('/jobs/default/evil/start', { method: 'POST', json: { form_data: { name: hostile } } });
    const health = fetch(`${svc.url}/health`);
    const [started, healthy] = await Promise.all([start.then(jsonOf), health]);
    expect(healthy.status).toBe(200);
    expect(started).toEqual({ status: 422, body: { detail: `body.form_data.name: must match pattern "${EVIL}"` } });

    // Many at once: each is refused and nothing queues behind them.
    const burst = await Promise.all(
      Array.from({ length: 20 }, () =>
        svc
          .api('/jobs/default/evil/start', { method: 'POST', json: { form_data: { name: hostile } } })
          .then((r) => r.status),
      ),
    );
    expect(burst).toEqual(Array.from({ length: 20 }, () => 422));
    expect((await fetch(`${svc.url}/health`)).status).toBe(200);
  });

  test('patternProperties and propertyNames patterns are linear too', async ({ svc }) => {
    const formSchema = {
      type: 'object',
      patternProperties: { '^(x+x+)+y$': { type: 'string' } },
      propertyNames: { pattern: '^(b|b)+$' },
    };
    expect((await createPortal(svc, 'keys', formSchema)).status).toBe(200);
    const refused = await jsonOf(
      await svc.api('/jobs/default/keys/start', {
        method: 'POST',
        json: { form_data: { [`${'b'.repeat(60)}!`]: 'v' } },
      }),
    );
    expect(refused.status).toBe(422);
    expect(String((refused.body as { detail: string }).detail)).toContain('must match pattern');
  });

  test('a pattern RE2 cannot run (backreference, lookahead, lookbehind) is a 422 naming the field and the pattern, and nothing is stored', async ({
    svc,
  }) => {
    const backref = await jsonOf(
      await createPortal(svc, 'backref', {
        type: 'object',
        properties: { code: { type: 'string', pattern: '^(a)\\1$' } },
      }),
    );
    expect(backref.status).toBe(422);
    expect((backref.body as { detail: string }).detail).toMatch(
      /^body\.form_schema: not a valid JSON Schema: pattern "\^\(a\)\\\\1\$" is not supported \(.+\); patterns run on RE2/,
    );

    const lookahead = await jsonOf(
      await createPortal(svc, 'lookahead', { type: 'object', patternProperties: { '^(?=x)': { type: 'string' } } }),
    );
    expect(lookahead.status).toBe(422);
    expect((lookahead.body as { detail: string }).detail).toMatch(
      /^body\.form_schema: .*"\^\(\?=x\)" is not supported/,
    );

    const output = await jsonOf(
      await createPortal(
        svc,
        'lookbehind',
        { type: 'object' },
        { output_schema: { type: 'object', properties: { ref: { type: 'string', pattern: '(?<=R)\\d+' } } } },
      ),
    );
    expect(output.status).toBe(422);
    expect((output.body as { detail: string }).detail).toMatch(
      /^body\.output_schema: not a valid JSON Schema: pattern "\(\?<=R\)\\\\d\+" is not supported/,
    );

    const names = ((await (await svc.api('/portals/default')).json()) as { endpoint_name: string }[]).map(
      (p) => p.endpoint_name,
    );
    expect(names).not.toContain('backref');
    expect(names).not.toContain('lookahead');
    expect(names).not.toContain('lookbehind');
  });

  test('PATCH with an unsupported pattern is a 422 and leaves the portal as it was', async ({ svc }) => {
    const formSchema = { type: 'object', properties: { zip: { type: 'string', pattern: '^\\d{5}$' } } };
    expect((await createPortal(svc, 'patched', formSchema)).status).toBe(200);
    const patched = await jsonOf(
      await svc.api('/portals/default/patched', {
        method: 'PATCH',
        json: { form_schema: { type: 'object', properties: { zip: { type: 'string', pattern: '^(\\d)\\1{4}$' } } } },
      }),
    );
    expect(patched.status).toBe(422);
    expect((patched.body as { detail: string }).detail).toMatch(
      /^body\.form_schema: not a valid JSON Schema: pattern .* is not supported/,
    );
    const portal = (await (await svc.api('/portals/default/patched')).json()) as { form_schema: unknown };
    expect(portal.form_schema).toEqual(formSchema);
  });

  test('JavaScript pattern syntax portals use keeps working on RE2 (\\u escapes, named groups, \\/, \\p{L}, character classes)', () => {
    const schemas = new JsonSchemaCompiler();
    const validate = schemas.compile(
      {
        type: 'object',
        properties: {
          accent: { type: 'string', pattern: '^caf\\u00e9$' },
          date: { type: 'string', pattern: '^(?<year>\\d{4})-(?<month>\\d{2})$' },
          path: { type: 'string', pattern: '^a\\/b$' },
          word: { type: 'string', pattern: '^\\p{L}+$' },
          zip: { type: 'string', pattern: '[0-9]{5}' },
        },
      },
      'body.form_schema',
    );
    expect(validate({ accent: 'café', date: '2026-11', path: 'a/b', word: 'Ærøskøbing', zip: 'SW1 12345 X' })).toBe(
      true,
    );
    expect(validate({ accent: 'cafe' })).toBe(false);
    expect(validate({ word: 'abc1' })).toBe(false);
    expect(validate({ zip: '1234' })).toBe(false);
  });

  test("a web page's input pattern runs on RE2 too: a hostile one is answered, one RE2 cannot run is unknown, an invalid one accepts everything", () => {
    expect(patternAccepts(EVIL, hostile)).toBe(false);
    expect(patternAccepts(EVIL, 'aaaa')).toBe(true);
    expect(patternAccepts('[0-9]{5}', '12345')).toBe(true);
    expect(patternAccepts('[0-9]{5}', '1234')).toBe(false);
    // RE2 cannot run lookaround: unknown here (never run on a backtracking engine), left to the page's own check.
    expect(patternAccepts('(?=a)a', 'b')).toBeUndefined();
    // As a browser: an invalid pattern constrains nothing.
    expect(patternAccepts('[', 'anything')).toBe(true);
    expect(dateFormatFromPattern('(\\d+)+x', ['DD/MM/YYYY'])).toBeNull();
    expect(dateFormatFromPattern('\\d{2}/\\d{2}/\\d{4}', ['YYYY-MM-DD', 'DD/MM/YYYY'])).toBe('DD/MM/YYYY');
  });

  test('a humanized_urls glob with many stars matches a long URL without backtracking', () => {
    const glob = `https://${'*a'.repeat(30)}*b`;
    const url = `https://${'a'.repeat(5000)}.example/`;
    expect(matchesHumanizedUrl(url, [glob])).toBe(false);
    expect(matchesHumanizedUrl('https://shop.example/cart/1', ['https://*.example/cart*'])).toBe(true);
    expect(matchesHumanizedUrl('https://shop.example.evil/cart', ['https://*.example/cart*'])).toBe(false);
  });

  test('linearRegExp refuses what RE2 cannot run with a message naming the pattern', () => {
    expect(() => linearRegExp('(a)\\1')).toThrow(UnsupportedPatternError);
    expect(() => linearRegExp('a{1001}')).toThrow(/pattern "a\{1001\}" is not supported/);
    expect(linearRegExp(EVIL).test(hostile)).toBe(false);
    expect(linearRegExp('b', { anchored: true }).test('abc')).toBe(false);
    expect(linearRegExp('b').test('abc')).toBe(true);
  });
});
