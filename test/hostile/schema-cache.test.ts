// Compile leak (issue 14, item 2): every compile once handed Ajv a fresh schema object, and Ajv keeps
// what it compiled for ever, so rejected job starts alone ran the service out of heap. Validators are
// now cached by a hash of the schema's canonical JSON, the cache is bounded, and the Ajv instances
// behind it are retired so what they keep is bounded too. Counts, not timings or RSS, are asserted.
import { describe, expect } from 'vitest';
import { JsonSchemaCompiler, jsonSchemas } from '../../src-main/base/jsonSchema.ts';
import { openDatabase, prepared } from '../../src-main/store/database.ts';
import { jsonOf } from '../helpers/service.ts';
import { test } from '../helpers/fixtures.ts';

const fortyFields = (tag: string): Record<string, unknown> => ({
  type: 'object',
  properties: Object.fromEntries(
    Array.from({ length: 40 }, (_, i) => [
      `field_${i}`,
      { type: 'string', maxLength: 100, pattern: `^${tag}_[a-z]*$` },
    ]),
  ),
  required: ['field_0'],
});

describe('compiled validators are cached by the schema and bounded', () => {
  test('the same schema compiles once, whatever object carries it and in whatever key order', () => {
    const schemas = new JsonSchemaCompiler({ cacheSize: 20 });
    const first = schemas.compile(fortyFields('same'), 'body.form_schema');
    for (let i = 0; i < 200; i += 1) {
      const copy = structuredClone(fortyFields('same'));
      const reordered = Object.fromEntries(Object.entries(copy).reverse());
      expect(schemas.compile(i % 2 ? copy : reordered, 'body.form_schema')).toBe(first);
    }
    expect(schemas.stats()).toEqual({ cached: 1, generations: 1, retained: 1, ajvSchemas: 1 });
  });

  test('distinct schemas: the cache, the Ajv instances and what they keep all stay bounded, and an evicted schema still validates', () => {
    const schemas = new JsonSchemaCompiler({ cacheSize: 20 });
    let maxRetained = 0;
    // 120 schemas are 24 Ajv instances' worth (cacheSize / 4 compiles each): 16 retired past the 8 kept.
    for (let i = 0; i < 120; i += 1) {
      schemas.compile(fortyFields(`s${i}`), 'body.form_schema');
      const stats = schemas.stats();
      maxRetained = Math.max(maxRetained, stats.retained);
      expect(stats.cached).toBeLessThanOrEqual(20);
      expect(stats.generations).toBeLessThanOrEqual(8);
      expect(stats.ajvSchemas).toBeLessThanOrEqual(stats.retained);
    }
    // 8 Ajv instances of at most cacheSize / 4 compiles each, whatever the number of schemas seen.
    expect(maxRetained).toBeLessThanOrEqual(40);
    const again = schemas.compile(fortyFields('s0'), 'body.form_schema');
    expect(again({ field_0: 's0_abc' })).toBe(true);
    expect(again({ field_0: 's1_abc' })).toBe(false);
  });

  test('refused schemas leave nothing behind in Ajv, and the same refusal is not compiled again', () => {
    const schemas = new JsonSchemaCompiler({ cacheSize: 20 });
    for (let i = 0; i < 120; i += 1) {
      expect(() =>
        schemas.compile(
          { type: 'object', properties: { a: { type: 'string', pattern: `^(?=x${i})` } } },
          'body.form_schema',
        ),
      ).toThrow(/not supported/);
    }
    const afterDistinct = schemas.stats();
    expect(afterDistinct.cached).toBe(0);
    expect(afterDistinct.ajvSchemas).toBe(0);
    expect(afterDistinct.retained).toBeLessThanOrEqual(40);
    const refused = { type: 'object', properties: { a: { type: 'string', pattern: '^(a)\\1$' } } };
    expect(() => schemas.compile(refused, 'body.form_schema')).toThrow(/not supported/);
    const once = schemas.stats().retained;
    for (let i = 0; i < 50; i += 1)
      expect(() => schemas.compile(structuredClone(refused), 'portal.form_schema')).toThrow(
        /^portal\.form_schema: not a valid JSON Schema: pattern/,
      );
    expect(schemas.stats().retained).toBe(once);
  });

  test('data nested deeper than the stack against a recursive schema is invalid, not a crash', () => {
    const validate = new JsonSchemaCompiler().compile(
      { type: 'object', properties: { x: { $ref: '#' } } },
      'body.form_schema',
    );
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 50_000; i += 1) deep = { x: deep };
    expect(validate(deep)).toBe(false);
    expect(validate.errors).toEqual([
      expect.objectContaining({ instancePath: '', message: 'is nested too deeply to check' }),
    ]);
    expect(validate({ x: { x: {} } })).toBe(true);
    expect(validate({ x: 1 })).toBe(false);
  });

  test('a schema nested deeper than 256 levels is a 422, not a stack overflow', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 5000; i += 1) deep = { type: 'object', properties: { x: deep } };
    expect(() => new JsonSchemaCompiler().compile(deep, 'body.form_schema')).toThrow(
      /^body\.form_schema: not a valid JSON Schema: nested deeper than 256 levels$/,
    );
  });
});

describe('the service: rejected job starts and repeated reads do not grow memory', () => {
  test('600 rejected job starts with a 40-field schema compile it once', async ({ svc }) => {
    const created = await svc.api('/portals/default', {
      method: 'POST',
      json: {
        endpoint_name: 'forty',
        start_url: 'https://example.test/form',
        task: 'Fill the form',
        form_schema: fortyFields('svc'),
      },
    });
    expect(created.status).toBe(200);
    const before = jsonSchemas.stats();
    for (let round = 0; round < 30; round += 1) {
      const statuses = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          svc
            .api('/jobs/default/forty/start', {
              method: 'POST',
              json: { form_data: { field_0: `nope ${round}-${i}` } },
            })
            .then((r) => r.status),
        ),
      );
      expect(statuses.every((s) => s === 422)).toBe(true);
    }
    const refused = await jsonOf(
      await svc.api('/jobs/default/forty/start', { method: 'POST', json: { form_data: { field_0: 'nope' } } }),
    );
    expect(refused).toEqual({
      status: 422,
      body: { detail: 'body.form_data.field_0: must match pattern "^svc_[a-z]*$"' },
    });
    // The portal's schema was compiled when it was created; 600 rejections added nothing.
    expect(jsonSchemas.stats()).toEqual(before);
  });

  test('the store prepares each SQL text once per database (prepared(db, sql)) instead of once per request', () => {
    const db = openDatabase(':memory:');
    try {
      const sql = 'SELECT id FROM portals WHERE org_id = ?';
      const first = prepared(db, sql);
      for (let i = 0; i < 1000; i += 1) expect(prepared(db, sql)).toBe(first);
      expect(prepared(db, 'SELECT 1 AS one').get()).toEqual({ one: 1 });
      // Each database has its own statements.
      const other = openDatabase(':memory:');
      expect(prepared(other, sql)).not.toBe(first);
      other.close();
    } finally {
      db.close();
    }
  });
});
