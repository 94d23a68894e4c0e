import { createHash } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { createRequire } from 'node:module';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import type { Ajv2019 } from 'ajv/dist/2019.js';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { JsonObject } from '../contract/common.ts';
import { ValidationError } from './errors.ts';
import { type LinearRegExp, linearRegExp } from './linearRegExp.ts';

export type { ErrorObject, ValidateFunction };

type AnyAjv = Ajv | Ajv2019 | Ajv2020;

/** The JSON Schema dialects Portico compiles; each gets its own Ajv. */
export type SchemaDialect = 'draft-04' | 'draft-07' | '2019-09' | '2020-12';

type AjvConstructor = new (options: ConstructorParameters<typeof Ajv>[0]) => Ajv;

interface AjvModules {
  Ajv: typeof Ajv;
  Ajv2019: typeof Ajv2019;
  Ajv2020: typeof Ajv2020;
  AjvDraft04: AjvConstructor;
  addFormats: (ajv: AnyAjv) => AnyAjv;
  draft06MetaSchema: Record<string, unknown>;
}

const require = createRequire(import.meta.url);
let ajvModules: AjvModules | undefined;

/**
 * Ajv, its dialects and ajv-formats (~130 modules), loaded at the first schema compiled rather than at
 * start: the service listens without them (docs/performance.md, "Start-up"). Required, not imported:
 * they are CommonJS, and an `import()` would have Node scan each file for its export names first.
 */
function loadAjv(): AjvModules {
  if (ajvModules) return ajvModules;
  // ajv-draft-04 is CommonJS with its class on `exports.default`; the same Ajv core (and options) as the others.
  const draft04 = require('ajv-draft-04') as { default: AjvConstructor };
  // ajv-formats' callable export sits on `.default` as well as on the module itself.
  const formats = require('ajv-formats') as { default: AjvModules['addFormats'] };
  ajvModules = {
    Ajv: (require('ajv') as typeof import('ajv')).Ajv,
    Ajv2019: (require('ajv/dist/2019.js') as typeof import('ajv/dist/2019.js')).Ajv2019,
    Ajv2020: (require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js')).Ajv2020,
    AjvDraft04: draft04.default,
    addFormats: formats.default,
    draft06MetaSchema: require('ajv/dist/refs/json-schema-draft-06.json') as Record<string, unknown>,
  };
  return ajvModules;
}

// Plenty for every portal's form and output schema; past it the least recently used is dropped (from Ajv too).
const DEFAULT_CACHE_SIZE = 500;
// Refusals remembered, so a stored schema that no longer compiles is not compiled again at every job start.
const REFUSAL_CACHE_SIZE = 100;
// Ajv instances alive at once (all dialects); each compiles at most cacheSize / 4 schemas before a fresh one takes over.
const MAX_GENERATIONS = 8;
// A schema nested deeper than this is refused before anything recurses through it.
const MAX_SCHEMA_DEPTH = 256;

/**
 * The dialect `$schema` declares: draft-04 (Ajv's draft-04 build: `id`, boolean `exclusiveMaximum`),
 * draft-06/07 → draft-07 rules, 2019-09, else (2020-12 or none) 2020-12.
 */
export function schemaDialect(schema: JsonObject, _field: string): SchemaDialect {
  const declared = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (declared.includes('draft-04')) return 'draft-04';
  if (declared.includes('draft-07') || declared.includes('draft-06')) return 'draft-07';
  return declared.includes('2019-09') ? '2019-09' : '2020-12';
}

/**
 * Ajv's RegExp engine: `pattern`, `patternProperties` and `propertyNames.pattern` run on RE2 (linear
 * time), so a schema's pattern cannot backtrack on hostile form data; one RE2 cannot compile is refused.
 */
const regExpEngine = Object.assign((pattern: string, _flags: string): LinearRegExp => linearRegExp(pattern), {
  // Only read by Ajv's standalone code generation, which Portico does not use.
  code: 'linearRegExp',
});

function newAjv(dialect: SchemaDialect): AnyAjv {
  // Unknown keywords are allowed (`strict: false`): portal schemas come from many tools.
  const options = { strict: false, allErrors: true, validateFormats: true, code: { regExp: regExpEngine } } as const;
  const { Ajv, Ajv2019, Ajv2020, AjvDraft04, addFormats, draft06MetaSchema } = loadAjv();
  const ajv =
    dialect === 'draft-04'
      ? new AjvDraft04(options)
      : dialect === 'draft-07'
        ? new Ajv(options)
        : dialect === '2019-09'
          ? new Ajv2019(options)
          : new Ajv2020(options);
  if (dialect === 'draft-07') ajv.addMetaSchema(draft06MetaSchema);
  addFormats(ajv);
  return ajv;
}

// Started with the cache off (node --no-compilation-cache): leave it off.
const compilationCacheOffAlready = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].includes(
  '--no-compilation-cache',
);

/**
 * Runs an Ajv compile with V8's compilation cache off. Ajv turns each schema into source code for
 * `new Function`, and V8 keeps every distinct source it compiles in that cache, freed only near the heap
 * limit: 10,000 distinct schemas held ~450 MB that no GC released. Off for the compile alone (checked
 * per lookup), the rest of the process keeps the cache. bench/hostile.bench.ts measures distinct schemas.
 */
function withoutCompilationCache<T>(compile: () => T): T {
  if (compilationCacheOffAlready) return compile();
  setFlagsFromString('--no-compilation-cache');
  try {
    return compile();
  } finally {
    setFlagsFromString('--compilation-cache');
  }
}

/** JSON with every object's keys sorted: the same schema written in another key order gives the same text. */
function canonicalJson(value: unknown, field: string, depth = 0): string {
  if (depth > MAX_SCHEMA_DEPTH)
    throw new ValidationError(`${field}: not a valid JSON Schema: nested deeper than ${MAX_SCHEMA_DEPTH} levels`);
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null, field, depth + 1)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key], field, depth + 1)}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The cache key: a SHA-256 of the canonical JSON, so a 400-field schema is not kept twice as a key. */
function schemaKey(schema: JsonObject, field: string): string {
  return createHash('sha256').update(canonicalJson(schema, field)).digest('base64url');
}

/**
 * One Ajv instance and what it compiled. Ajv keeps every schema it ever compiled in its code scope
 * (even after `removeSchema`), so an instance is retired after `cacheSize / 4` compiles and dropped
 * once no cached validator uses it: that, not `removeSchema`, is what bounds memory.
 */
interface Generation {
  readonly dialect: SchemaDialect;
  readonly ajv: AnyAjv;
  /** Schemas a fresh Ajv holds (meta-schemas), not counted in stats. */
  readonly baseline: number;
  compiles: number;
  cached: number;
}

/**
 * A validator that answers "invalid" instead of throwing when the data is nested deeper than the stack
 * allows (a recursive schema, `{"$ref": "#"}`, walks the data as deep as it goes): a 422, never a 500.
 */
function depthGuarded(validate: ValidateFunction): ValidateFunction {
  const guarded = function (this: unknown, data: unknown): boolean {
    try {
      const valid = validate.call(this, data);
      guarded.errors = validate.errors;
      return valid;
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      guarded.errors = [
        { instancePath: '', schemaPath: '#', keyword: 'depth', params: {}, message: 'is nested too deeply to check' },
      ];
      return false;
    }
  } as ValidateFunction;
  guarded.schema = validate.schema;
  guarded.schemaEnv = validate.schemaEnv;
  return guarded;
}

/** How many schemas an Ajv instance holds in its own cache (internal to Ajv; read for stats only). */
function ajvCacheSize(ajv: AnyAjv): number {
  return (ajv as unknown as { _cache: Map<unknown, unknown> })._cache.size;
}

interface CacheEntry {
  readonly validate: ValidateFunction;
  readonly generation: Generation;
  readonly schema: JsonObject;
}

/** What the compiler holds, for tests and the bench: all of it is bounded. */
export interface JsonSchemaCacheStats {
  /** Compiled validators in the cache (≤ cacheSize). */
  cached: number;
  /** Ajv instances alive (≤ 8). */
  generations: number;
  /** Schemas those Ajv instances have compiled, hence may still hold (≤ 8 × cacheSize / 4). */
  retained: number;
  /** Schemas registered in those Ajv instances' own caches (meta-schemas not counted). */
  ajvSchemas: number;
}

/**
 * The one JSON Schema compiler: an Ajv per dialect (chosen by `$schema`), ajv-formats, patterns on RE2,
 * and compiled validators cached by a hash of the schema's canonical JSON (least recently used dropped
 * past `cacheSize`), so a portal's schema is compiled once, not per job or page, and memory stays bounded
 * however many distinct or refused schemas arrive.
 */
export class JsonSchemaCompiler {
  readonly #current = new Map<SchemaDialect, Generation>();
  /** Every Ajv still alive: the current ones and retired ones a cached validator still uses, oldest first. */
  readonly #generations = new Set<Generation>();
  readonly #compiled = new Map<string, CacheEntry>();
  /** Why recently refused schemas were refused, by key. */
  readonly #refused = new Map<string, string>();
  readonly #cacheSize: number;
  readonly #generationSize: number;

  constructor(options: { cacheSize?: number } = {}) {
    this.#cacheSize = Math.max(1, options.cacheSize ?? DEFAULT_CACHE_SIZE);
    this.#generationSize = Math.max(1, Math.ceil(this.#cacheSize / 4));
  }

  /** Compiles `schema` (or returns its cached validator); an invalid schema is a 422 naming `field` and the reason. */
  compile(schema: JsonObject, field: string): ValidateFunction {
    // Without $id (draft-04: `id`): re-submitting an edited schema under the same id must not clash with the old one.
    const dialect = schemaDialect(schema, field);
    const { $id: _ignored, ...withoutDollarId } = schema;
    let withoutId: JsonObject = withoutDollarId;
    if (dialect === 'draft-04' && typeof withoutDollarId.id === 'string') {
      const { id: _draft04Id, ...rest } = withoutDollarId;
      withoutId = rest;
    }
    const key = schemaKey(withoutId, field);
    const hit = this.#compiled.get(key);
    if (hit) {
      this.#compiled.delete(key);
      this.#compiled.set(key, hit);
      return hit.validate;
    }
    const refused = this.#refused.get(key);
    if (refused !== undefined) throw new ValidationError(`${field}: not a valid JSON Schema: ${refused}`);
    const generation = this.#generationFor(dialect);
    generation.compiles += 1;
    let validate: ValidateFunction;
    try {
      validate = depthGuarded(withoutCompilationCache(() => generation.ajv.compile(withoutId)));
    } catch (error) {
      // Ajv registers the schema before compiling it; a refused one must not stay behind.
      generation.ajv.removeSchema(withoutId);
      const reason = error instanceof Error ? error.message : String(error);
      this.#refused.set(key, reason);
      if (this.#refused.size > REFUSAL_CACHE_SIZE) this.#refused.delete(this.#refused.keys().next().value as string);
      throw new ValidationError(`${field}: not a valid JSON Schema: ${reason}`, { cause: error });
    }
    this.#compiled.set(key, { validate, generation, schema: withoutId });
    generation.cached += 1;
    if (this.#compiled.size > this.#cacheSize) this.#evict(this.#compiled.keys().next().value as string);
    return validate;
  }

  /** Compiles a schema that must describe a JSON object (form data, job results). */
  compileObjectSchema(schema: JsonObject, field: string): ValidateFunction {
    const validate = this.compile(schema, field);
    if (schema.type !== undefined && schema.type !== 'object') {
      throw new ValidationError(
        `${field}: must describe an object (type 'object'), not type ${JSON.stringify(schema.type)}`,
      );
    }
    return validate;
  }

  /** What the compiler holds now (see {@link JsonSchemaCacheStats}). */
  stats(): JsonSchemaCacheStats {
    let retained = 0;
    let ajvSchemas = 0;
    for (const generation of this.#generations) {
      retained += generation.compiles;
      ajvSchemas += ajvCacheSize(generation.ajv) - generation.baseline;
    }
    return { cached: this.#compiled.size, generations: this.#generations.size, retained, ajvSchemas };
  }

  #generationFor(dialect: SchemaDialect): Generation {
    const current = this.#current.get(dialect);
    if (current && current.compiles < this.#generationSize) return current;
    const ajv = newAjv(dialect);
    const fresh: Generation = { dialect, ajv, baseline: ajvCacheSize(ajv), compiles: 0, cached: 0 };
    this.#current.set(dialect, fresh);
    this.#generations.add(fresh);
    if (current && current.cached === 0) this.#generations.delete(current);
    if (this.#generations.size > MAX_GENERATIONS) this.#retireOldest();
    return fresh;
  }

  /** Drops the oldest retired Ajv and the cached validators it compiled (they compile again when next used). */
  #retireOldest(): void {
    const current = new Set(this.#current.values());
    const oldest = [...this.#generations].find((generation) => !current.has(generation));
    if (!oldest) return;
    for (const [key, entry] of this.#compiled) if (entry.generation === oldest) this.#evict(key);
    this.#generations.delete(oldest);
  }

  #evict(key: string): void {
    const entry = this.#compiled.get(key);
    if (!entry) return;
    this.#compiled.delete(key);
    // Frees the compiled function now; the rest of what Ajv keeps goes with its instance.
    entry.generation.ajv.removeSchema(entry.schema);
    entry.generation.cached -= 1;
    if (entry.generation.cached === 0 && this.#current.get(entry.generation.dialect) !== entry.generation) {
      this.#generations.delete(entry.generation);
    }
  }
}

/**
 * The process's compiler. Compiling is a pure function of the schema, so one shared cache is safe and
 * lets modules built without dependencies (the autofill result builder) reuse what portals compiled.
 */
export const jsonSchemas = new JsonSchemaCompiler();

/** Ajv errors as `<prefix>.<path>: <message>` lines, one per failing field. */
export function describeSchemaErrors(prefix: string, errors: readonly ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .map((error) => {
      const missing =
        error.keyword === 'required'
          ? `.${String((error.params as { missingProperty?: unknown }).missingProperty)}`
          : '';
      const path = error.instancePath.replace(/^\//, '').split('/').filter(Boolean).join('.');
      const where = [prefix, path].filter(Boolean).join('.') + missing;
      return error.keyword === 'required' ? `${where}: is required` : `${where}: ${error.message ?? 'is invalid'}`;
    })
    .join('; ');
}
