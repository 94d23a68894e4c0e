import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import draft06MetaSchema from 'ajv/dist/refs/json-schema-draft-06.json' with { type: 'json' };
import addFormatsModule from 'ajv-formats';
import type { JsonObject } from '../contract/common.ts';
import { ValidationError } from './errors.ts';

export type { ErrorObject, ValidateFunction };

type AnyAjv = Ajv | Ajv2019 | Ajv2020;

/** The JSON Schema dialects Portico compiles; each gets its own Ajv. */
export type SchemaDialect = 'draft-07' | '2019-09' | '2020-12';

// ajv-formats is CommonJS; under ESM its callable export may sit on `.default`.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: AnyAjv) => AnyAjv;

// Plenty for every portal's form and output schema; past it the least recently used is dropped (from Ajv too).
const DEFAULT_CACHE_SIZE = 500;

/** The dialect `$schema` declares: draft-06/07 → draft-07 rules, 2019-09, else (2020-12 or none) 2020-12; draft-04 is refused. */
export function schemaDialect(schema: JsonObject, field: string): SchemaDialect {
  const declared = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (declared.includes('draft-04')) {
    throw new ValidationError(`${field}: not a valid JSON Schema: draft-04 is not supported; declare draft-07, 2019-09 or 2020-12`);
  }
  if (declared.includes('draft-07') || declared.includes('draft-06')) return 'draft-07';
  return declared.includes('2019-09') ? '2019-09' : '2020-12';
}

function newAjv(dialect: SchemaDialect): AnyAjv {
  // Unknown keywords are allowed (`strict: false`): portal schemas come from many tools.
  const options = { strict: false, allErrors: true, validateFormats: true } as const;
  const ajv = dialect === 'draft-07' ? new Ajv(options) : dialect === '2019-09' ? new Ajv2019(options) : new Ajv2020(options);
  if (dialect === 'draft-07') ajv.addMetaSchema(draft06MetaSchema);
  addFormats(ajv);
  return ajv;
}

/**
 * The one JSON Schema compiler: an Ajv per dialect (chosen by `$schema`), ajv-formats, and compiled
 * validators cached by the schema's JSON, so a portal's schema is compiled once, not per job or page.
 */
export class JsonSchemaCompiler {
  readonly #byDialect = new Map<SchemaDialect, AnyAjv>();
  readonly #compiled = new Map<string, { validate: ValidateFunction; ajv: AnyAjv; schema: JsonObject }>();
  readonly #cacheSize: number;

  constructor(options: { cacheSize?: number } = {}) {
    this.#cacheSize = options.cacheSize ?? DEFAULT_CACHE_SIZE;
  }

  #ajvFor(dialect: SchemaDialect): AnyAjv {
    let ajv = this.#byDialect.get(dialect);
    if (!ajv) {
      ajv = newAjv(dialect);
      this.#byDialect.set(dialect, ajv);
    }
    return ajv;
  }

  /** Compiles `schema` (or returns its cached validator); an invalid schema is a 422 naming `field` and Ajv's reason. */
  compile(schema: JsonObject, field: string): ValidateFunction {
    // Without $id: re-submitting an edited schema under the same $id must not clash with the old one.
    const { $id: _ignored, ...withoutId } = schema;
    const key = JSON.stringify(withoutId);
    const hit = this.#compiled.get(key);
    if (hit) {
      this.#compiled.delete(key);
      this.#compiled.set(key, hit);
      return hit.validate;
    }
    const ajv = this.#ajvFor(schemaDialect(schema, field));
    let validate: ValidateFunction;
    try {
      validate = ajv.compile(withoutId);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new ValidationError(`${field}: not a valid JSON Schema: ${reason}`, { cause: error });
    }
    this.#compiled.set(key, { validate, ajv, schema: withoutId });
    if (this.#compiled.size > this.#cacheSize) this.#evictOldest();
    return validate;
  }

  /** Compiles a schema that must describe a JSON object (form data, job results). */
  compileObjectSchema(schema: JsonObject, field: string): ValidateFunction {
    const validate = this.compile(schema, field);
    if (schema.type !== undefined && schema.type !== 'object') {
      throw new ValidationError(`${field}: must describe an object (type 'object'), not type ${JSON.stringify(schema.type)}`);
    }
    return validate;
  }

  #evictOldest(): void {
    const oldest = this.#compiled.keys().next();
    if (oldest.done) return;
    const entry = this.#compiled.get(oldest.value);
    this.#compiled.delete(oldest.value);
    // Ajv keeps every compiled schema object too; without this the cache bound would not bound memory.
    entry?.ajv.removeSchema(entry.schema);
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
      const missing = error.keyword === 'required' ? `.${String((error.params as { missingProperty?: unknown }).missingProperty)}` : '';
      const path = error.instancePath.replace(/^\//, '').split('/').filter(Boolean).join('.');
      const where = [prefix, path].filter(Boolean).join('.') + missing;
      return error.keyword === 'required' ? `${where}: is required` : `${where}: ${error.message ?? 'is invalid'}`;
    })
    .join('; ');
}
