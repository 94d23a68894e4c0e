import { z } from 'zod';

type JsonSchemaNode = Record<string, unknown>;

/**
 * zod types whose output is the input as it is (checks aside). A schema made only of these has a JSON
 * Schema that says exactly what goes out, so a compiled serializer can write it; anything that computes
 * its output (transform, pipe, default, catch, lazy, …) keeps the zod parse.
 */
const PLAIN = new Set([
  'object',
  'array',
  'union',
  'string',
  'number',
  'int',
  'boolean',
  'null',
  'literal',
  'enum',
  'record',
  'unknown',
  'any',
  'optional',
  'nullable',
  'readonly',
  'tuple',
]);

interface ZodDef {
  type: string;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  options?: z.ZodType[];
  keyType?: z.ZodType;
  valueType?: z.ZodType;
  innerType?: z.ZodType;
  items?: z.ZodType[];
  rest?: z.ZodType | null;
  /** A literal's values. */
  values?: unknown[];
}

/** A zod type's definition (zod 4 keeps it on `_zod.def`). */
const defOf = (schema: z.ZodType): ZodDef => (schema as unknown as { _zod: { def: ZodDef } })._zod.def;

/** The schemas a zod definition holds: an object's fields, an array's element, a union's options, a record's key and value, what a wrapper wraps, a tuple's items and rest. */
function childSchemas(def: ZodDef): (z.ZodType | null | undefined)[] {
  return [
    ...Object.values(def.shape ?? {}),
    def.element,
    ...(def.options ?? []),
    def.keyType,
    def.valueType,
    def.innerType,
    ...(def.items ?? []),
    def.rest,
  ];
}

/** Whether every part of `schema` passes its value through unchanged. */
export function isPlainSchema(schema: z.ZodType, seen = new Set<z.ZodType>()): boolean {
  if (seen.has(schema)) return false; // recursion: left to zod
  seen.add(schema);
  const def = defOf(schema);
  if (!PLAIN.has(def.type)) return false;
  const parts = childSchemas(def);
  // Zod 4 keeps an object's catchall in `catchall`; a strict or loose object is still plain.
  const ok = parts.every((part) => part === undefined || part === null || isPlainSchema(part, seen));
  seen.delete(schema);
  return ok;
}

// Keywords that only constrain values: a serializer has nothing to do with them (fast-json-stringify
// would even treat some specially, e.g. `format: date-time` for Date objects).
const DROPPED = [
  '$schema',
  'description',
  'title',
  'format',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'propertyNames',
  'examples',
  'enum',
  'multipleOf',
  'uniqueItems',
  'default',
];

const isObject = (value: unknown): value is JsonSchemaNode =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isNullSchema = (node: unknown): boolean =>
  isObject(node) && node.type === 'null' && Object.keys(node).length === 1;

const SCALARS = new Set(['string', 'number', 'integer', 'boolean']);

/**
 * Branches that differ only by JSON type — scalars, and at most one array — as one `type` list
 * (`string | string[]`, `string | number | boolean`): fast-json-stringify picks a branch by `typeof`
 * and `Array.isArray` instead of an Ajv check of each (whose first use compiles the route's whole
 * schema). The array goes first: its `string` test also takes objects with their own `toString`.
 * undefined when a branch is anything else (an object, a constant, a constrained one).
 */
function typeListOf(branches: JsonSchemaNode[]): { type: string[]; items?: unknown } | undefined {
  const types: string[] = [];
  let items: unknown;
  for (const branch of branches) {
    const keys = Object.keys(branch);
    if (branch.type === 'array' && keys.every((key) => key === 'type' || key === 'items') && items === undefined) {
      items = branch.items ?? {};
      types.unshift('array');
    } else if (keys.length === 1 && typeof branch.type === 'string' && SCALARS.has(branch.type)) {
      types.push(branch.type);
    } else if (
      keys.length === 1 &&
      Array.isArray(branch.type) &&
      branch.type.every((type) => typeof type === 'string' && SCALARS.has(type))
    ) {
      types.push(...(branch.type as string[]));
    } else {
      return undefined;
    }
  }
  // `number` with `integer` would write an integer-valued number through either: left to anyOf.
  if (
    types.length < 2 ||
    new Set(types).size !== types.length ||
    (types.includes('number') && types.includes('integer'))
  )
    return undefined;
  return items === undefined ? { type: types } : { type: types, items };
}

const TEST_PART = /^[A-Za-z0-9_]+$/;

/**
 * The id of the external schema that tests a discriminated union's branch (`portico-is-type-step`),
 * for a discriminator and value simple enough to name one; undefined otherwise (the test stays inline).
 */
export function discriminatorTestId(key: string, value: unknown): string | undefined {
  return typeof value === 'string' && TEST_PART.test(key) && TEST_PART.test(value)
    ? `portico-is-${key}-${value}`
    : undefined;
}

/** The branch test itself: an object whose `key` is `value`. */
const discriminatorTest = (key: string, value: unknown): JsonSchemaNode => ({
  type: 'object',
  properties: { [key]: { const: value } },
  required: [key],
});

/**
 * The external schemas for the branch tests of every discriminated union in `schemas` (a walk of the
 * zod types, no JSON Schema built: cheap enough for a start): each test is then its own small Ajv
 * compile, where an inline one made Ajv compile the route's whole response schema at its first use.
 * A union the walk misses keeps its inline test (correct, only slower to compile).
 */
export function discriminatorTestSchemas(schemas: Iterable<z.ZodType>): Map<string, JsonSchemaNode> {
  const found = new Map<string, JsonSchemaNode>();
  const seen = new Set<z.ZodType>();
  const walk = (schema: z.ZodType | null | undefined): void => {
    if (!schema || seen.has(schema)) return;
    seen.add(schema);
    const def = defOf(schema);
    if (def.type === 'union' && def.options && def.options.length > 0) {
      const shapes = def.options.map((option) => defOf(option).shape);
      for (const key of Object.keys(shapes[0] ?? {})) {
        const values = shapes.map((shape) => {
          const field = shape?.[key];
          const fieldDef = field ? defOf(field) : undefined;
          return fieldDef?.type === 'literal' && fieldDef.values?.length === 1 ? fieldDef.values[0] : undefined;
        });
        if (values.some((value) => value === undefined)) continue;
        for (const value of values) {
          const id = discriminatorTestId(key, value);
          if (id !== undefined) found.set(id, { $id: id, ...discriminatorTest(key, value) });
        }
      }
    }
    for (const part of childSchemas(def)) walk(part);
  };
  for (const schema of schemas) walk(schema);
  return found;
}

/** The property every branch pins with `const` (a discriminated union), if there is one. */
function discriminatorOf(branches: JsonSchemaNode[]): string | undefined {
  const first = branches[0];
  if (!first || !isObject(first.properties)) return undefined;
  for (const key of Object.keys(first.properties)) {
    if (
      branches.every(
        (branch) =>
          isObject(branch.properties) && isObject(branch.properties[key]) && 'const' in branch.properties[key],
      )
    )
      return key;
  }
  return undefined;
}

/**
 * Rewrites zod's JSON Schema into what fast-json-stringify writes fastest and exactly:
 * - records of anything (`JsonObject`) and `unknown` become `{}` (JSON.stringify of the value);
 * - `X | null` becomes X with `nullable: true` (no validator run per value);
 * - a discriminated union becomes an if/then/else chain on its discriminator (one `const` check per
 *   branch instead of validating whole branches);
 * - constraint-only keywords are dropped.
 */
export function serializerSchema(node: unknown, tests?: ReadonlySet<string>): unknown {
  if (Array.isArray(node)) return node.map((child) => serializerSchema(child, tests));
  if (!isObject(node)) return node;
  const out: JsonSchemaNode = {};
  for (const [key, value] of Object.entries(node)) {
    if (DROPPED.includes(key)) continue;
    if (key === 'properties' && isObject(value)) {
      out.properties = Object.fromEntries(
        Object.entries(value).map(([name, child]) => [name, serializerSchema(child, tests)]),
      );
    } else if (key === 'const') {
      // Outside a union's test, a constant is just its type (the handler's value is what is written).
      out.type =
        typeof value === 'string'
          ? 'string'
          : typeof value === 'number'
            ? 'number'
            : typeof value === 'boolean'
              ? 'boolean'
              : 'null';
    } else {
      out[key] = serializerSchema(value, tests);
    }
  }
  // A record of any JSON (no properties, values of any type): the value as JSON.stringify writes it.
  if (
    out.type === 'object' &&
    out.properties === undefined &&
    (out.additionalProperties === undefined ||
      (isObject(out.additionalProperties) && Object.keys(out.additionalProperties).length === 0))
  ) {
    return {};
  }
  for (const combinator of ['anyOf', 'oneOf'] as const) {
    const branches = out[combinator];
    if (!Array.isArray(branches)) continue;
    const nonNull = branches.filter((branch) => !isNullSchema(branch)) as JsonSchemaNode[];
    const hasNull = nonNull.length < branches.length;
    const { [combinator]: _dropped, ...rest } = out;
    if (nonNull.length === 1 && hasNull) {
      const only = nonNull[0] as JsonSchemaNode;
      if (Object.keys(only).length === 0) return {};
      if (typeof only.type === 'string' && ['string', 'number', 'integer', 'boolean'].includes(only.type))
        return { ...rest, ...only, type: [only.type, 'null'] };
      // `nullable` needs a single `type` beside it (Ajv, which fast-json-stringify uses, refuses it otherwise).
      if (only.type === 'object' || only.type === 'array') return { ...rest, ...only, nullable: true };
      const types = typeListOf([only]);
      if (types) return { ...rest, ...types, type: [...types.type, 'null'] };
      return { ...rest, [combinator]: [only, { type: 'null' }] };
    }
    const types = typeListOf(nonNull);
    if (types) return { ...rest, ...types, type: hasNull ? [...types.type, 'null'] : types.type };
    const original = (node[combinator] as JsonSchemaNode[]).filter((branch) => !isNullSchema(branch));
    const discriminator = discriminatorOf(original);
    if (discriminator !== undefined && !hasNull) {
      let chain: JsonSchemaNode = {};
      for (let i = nonNull.length - 1; i >= 0; i -= 1) {
        const test = ((original[i] as JsonSchemaNode).properties as JsonSchemaNode)[discriminator] as JsonSchemaNode;
        // The test as an external schema when one is registered (its own small Ajv compile), else inline.
        const id = discriminatorTestId(discriminator, test.const);
        // JSON Schema's if/then/else, built by key so no object literal here has a `then` (a thenable to `await`).
        chain = Object.fromEntries([
          ['if', id !== undefined && tests?.has(id) ? { $ref: id } : discriminatorTest(discriminator, test.const)],
          ['then', nonNull[i]],
          ['else', chain],
        ]);
      }
      return { ...rest, ...chain };
    }
  }
  return out;
}

const compiled = new WeakMap<z.ZodType, object | null>();

/**
 * The JSON Schema a route hands Fastify as its response schema, for fast-json-stringify (which
 * Fastify ships and compiles once per route) to write the body: only for a schema whose output is its
 * input (see {@link isPlainSchema}); null for one that computes its output, which keeps zod. The
 * compiled serializer writes exactly the properties the schema names — an unknown field cannot leak —
 * and throws when a required one is missing. `tests`: the ids of branch tests registered with the
 * Fastify instance as external schemas ({@link discriminatorTestSchemas}), used by `$ref`.
 */
export function responseJsonSchema(schema: z.ZodType, tests?: ReadonlySet<string>): object | null {
  const known = tests ? undefined : compiled.get(schema);
  if (known !== undefined) return known;
  const jsonSchema = isPlainSchema(schema)
    ? (serializerSchema(
        z.toJSONSchema(schema, { io: 'output', target: 'draft-7', unrepresentable: 'any' }),
        tests,
      ) as object)
    : null;
  if (!tests) compiled.set(schema, jsonSchema);
  return jsonSchema;
}
