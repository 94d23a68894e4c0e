// tier: unit
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src-main/base/errors.ts';
import { JsonSchemaCompiler, schemaDialect } from '../../src-main/base/jsonSchema.ts';

const failure = (run: () => unknown): { status: number; detail: string } => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return { status: (error as AppError).status, detail: (error as AppError).detail };
  }
  throw new Error('expected a failure');
};

describe('the one JSON Schema compiler', () => {
  it('chooses the dialect by $schema: draft-04, draft-06/07, 2019-09, else 2020-12', () => {
    expect(schemaDialect({ $schema: 'http://json-schema.org/draft-04/schema#' }, 'f')).toBe('draft-04');
    expect(schemaDialect({ $schema: 'http://json-schema.org/draft-07/schema#' }, 'f')).toBe('draft-07');
    expect(schemaDialect({ $schema: 'http://json-schema.org/draft-06/schema#' }, 'f')).toBe('draft-07');
    expect(schemaDialect({ $schema: 'https://json-schema.org/draft/2019-09/schema' }, 'f')).toBe('2019-09');
    expect(schemaDialect({ $schema: 'https://json-schema.org/draft/2020-12/schema' }, 'f')).toBe('2020-12');
    expect(schemaDialect({}, 'f')).toBe('2020-12');
  });

  it('compiles a real draft-04 schema by draft-04 rules: `id`, boolean exclusiveMaximum/Minimum, formats, RE2 patterns', () => {
    const schemas = new JsonSchemaCompiler();
    // The shape draft-04 tools (and older form builders) emit.
    const draft04 = {
      $schema: 'http://json-schema.org/draft-04/schema#',
      id: 'http://forms.example.test/permit.json#',
      type: 'object',
      required: ['applicant', 'age', 'score'],
      additionalProperties: false,
      definitions: { name: { type: 'string', minLength: 1, pattern: '^[A-Za-z ]+$' } },
      properties: {
        applicant: { $ref: '#/definitions/name' },
        email: { type: 'string', format: 'email' },
        age: { type: 'integer', minimum: 18, exclusiveMinimum: true, maximum: 130 },
        score: { type: 'number', maximum: 10, exclusiveMaximum: true },
      },
    };
    const validate = schemas.compileObjectSchema(draft04, 'body.form_schema');
    expect(validate({ applicant: 'Ada Lovelace', age: 36, score: 9.5, email: 'ada@example.com' })).toBe(true);
    // Boolean exclusive bounds: 18 and 10 themselves are out (in draft-06+ `true` would be a bad number).
    expect(validate({ applicant: 'Ada', age: 18, score: 1 })).toBe(false);
    expect(validate({ applicant: 'Ada', age: 19, score: 10 })).toBe(false);
    expect(validate({ applicant: 'Ada', age: 19, score: 9.99 })).toBe(true);
    expect(validate({ applicant: 'Ada 1', age: 19, score: 1 })).toBe(false);
    expect(validate({ applicant: 'Ada', age: 19, score: 1, email: 'nope' })).toBe(false);
    expect(validate({ applicant: 'Ada', age: 19, score: 1, extra: true })).toBe(false);
    // The same schema under the same `id`, edited, is a new schema and not a clash with the old one.
    const edited = schemas.compileObjectSchema({ ...draft04, required: ['applicant'] }, 'body.form_schema');
    expect(edited({ applicant: 'Ada' })).toBe(true);
    expect(schemas.compileObjectSchema({ ...draft04 }, 'body.form_schema')).toBe(validate);
    // A draft-04 schema breaking draft-04's own meta-schema is refused as any other.
    expect(
      failure(() =>
        schemas.compile(
          {
            $schema: 'http://json-schema.org/draft-04/schema#',
            type: 'object',
            properties: { a: { exclusiveMaximum: 3 } },
          },
          'body.form_schema',
        ),
      ),
    ).toMatchObject({
      status: 422,
      detail: expect.stringMatching(/^body\.form_schema: not a valid JSON Schema: .*exclusiveMaximum.*boolean/),
    });
  });

  it('every dialect compiles with its own keywords and checks formats', () => {
    const schemas = new JsonSchemaCompiler();
    const draft06 = schemas.compile(
      {
        $schema: 'http://json-schema.org/draft-06/schema#',
        type: 'object',
        properties: { email: { type: 'string', format: 'email' } },
      },
      'f',
    );
    expect(draft06({ email: 'ada@example.com' })).toBe(true);
    expect(draft06({ email: 'not an email' })).toBe(false);
    // items as an array is a tuple in draft-07 and 2019-09; prefixItems is 2020-12's way.
    const tuple07 = schemas.compile(
      { $schema: 'http://json-schema.org/draft-07/schema#', items: [{ type: 'string' }] },
      'f',
    );
    expect(tuple07([1])).toBe(false);
    const tuple2019 = schemas.compile(
      { $schema: 'https://json-schema.org/draft/2019-09/schema', items: [{ type: 'string' }], unevaluatedItems: false },
      'f',
    );
    expect(tuple2019(['a', 'b'])).toBe(false);
    const tuple2020 = schemas.compile({ prefixItems: [{ type: 'string' }], items: false }, 'f');
    expect(tuple2020(['a'])).toBe(true);
    expect(tuple2020(['a', 'b'])).toBe(false);
    expect(schemas.compile({ type: 'string', format: 'date' }, 'f')('2026-02-30')).toBe(false);
  });

  it("caches by the schema's JSON: the same schema (even another object, or another $id) compiles once", () => {
    const schemas = new JsonSchemaCompiler();
    const first = schemas.compile({ $id: 'https://x.test/a', type: 'object', required: ['a'] }, 'f');
    expect(schemas.compile({ type: 'object', required: ['a'] }, 'f')).toBe(first);
    expect(schemas.compile({ $id: 'https://x.test/a', type: 'object', required: ['a'] }, 'f')).toBe(first);
    // An edited schema under the same $id is a new schema, not a clash with the old one.
    const edited = schemas.compile({ $id: 'https://x.test/a', type: 'object', required: ['b'] }, 'f');
    expect(edited).not.toBe(first);
    expect(edited({ b: 1 })).toBe(true);
  });

  it('keeps at most cacheSize compiled schemas, and an evicted one compiles again', () => {
    const schemas = new JsonSchemaCompiler({ cacheSize: 2 });
    const a = schemas.compile({ title: 'a' }, 'f');
    schemas.compile({ title: 'b' }, 'f');
    schemas.compile({ title: 'c' }, 'f');
    const again = schemas.compile({ title: 'a' }, 'f');
    expect(again).not.toBe(a);
    expect(again({})).toBe(true);
  });

  it("an invalid schema is a 422 naming the field and Ajv's reason; an object schema must describe an object", () => {
    expect(failure(() => new JsonSchemaCompiler().compile({ type: 'strnig' }, 'body.output_schema'))).toMatchObject({
      status: 422,
      detail: expect.stringMatching(/^body\.output_schema: not a valid JSON Schema: .*type/),
    });
    expect(failure(() => new JsonSchemaCompiler().compileObjectSchema({ type: 'array' }, 'body.form_schema'))).toEqual({
      status: 422,
      detail: 'body.form_schema: must describe an object (type \'object\'), not type "array"',
    });
  });
});
