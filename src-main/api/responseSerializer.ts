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
}

/** Whether every part of `schema` passes its value through unchanged. */
export function isPlainSchema(schema: z.ZodType, seen = new Set<z.ZodType>()): boolean {
  if (seen.has(schema)) return false; // recursion: left to zod
  seen.add(schema);
  const def = (schema as unknown as { _zod: { def: ZodDef } })._zod.def;
  if (!PLAIN.has(def.type)) return false;
  const parts: (z.ZodType | null | undefined)[] = [
    ...Object.values(def.shape ?? {}),
    def.element,
    ...(def.options ?? []),
    def.keyType,
    def.valueType,
    def.innerType,
    ...(def.items ?? []),
    def.rest,
  ];
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
export function serializerSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(serializerSchema);
  if (!isObject(node)) return node;
  const out: JsonSchemaNode = {};
  for (const [key, value] of Object.entries(node)) {
    if (DROPPED.includes(key)) continue;
    if (key === 'properties' && isObject(value)) {
      out.properties = Object.fromEntries(
        Object.entries(value).map(([name, child]) => [name, serializerSchema(child)]),
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
      out[key] = serializerSchema(value);
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
      return { ...rest, [combinator]: [only, { type: 'null' }] };
    }
    const original = (node[combinator] as JsonSchemaNode[]).filter((branch) => !isNullSchema(branch));
    const discriminator = discriminatorOf(original);
    if (discriminator !== undefined && !hasNull) {
      let chain: JsonSchemaNode = {};
      for (let i = nonNull.length - 1; i >= 0; i -= 1) {
        const test = ((original[i] as JsonSchemaNode).properties as JsonSchemaNode)[discriminator] as JsonSchemaNode;
        // JSON Schema's if/then/else, built by key so no object literal here has a `then` (a thenable to `await`).
        chain = Object.fromEntries([
          ['if', { type: 'object', properties: { [discriminator]: { const: test.const } }, required: [discriminator] }],
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
 * and throws when a required one is missing.
 */
export function responseJsonSchema(schema: z.ZodType): object | null {
  const known = compiled.get(schema);
  if (known !== undefined) return known;
  const jsonSchema = isPlainSchema(schema)
    ? (serializerSchema(z.toJSONSchema(schema, { io: 'output', target: 'draft-7', unrepresentable: 'any' })) as object)
    : null;
  compiled.set(schema, jsonSchema);
  return jsonSchema;
}
