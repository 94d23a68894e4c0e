import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { ValidationError } from '../base/errors.ts';
import type { JsonObject } from '../contract/common.ts';

type AnyAjv = Ajv | Ajv2019 | Ajv2020;

// ajv-formats is CommonJS; under ESM its callable export may sit on `.default`.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: AnyAjv) => AnyAjv;

/** One Ajv per JSON Schema dialect, chosen by `$schema` (2020-12 when absent). */
export class JsonSchemaCompiler {
  readonly #byDialect = new Map<string, AnyAjv>();

  #ajvFor(schema: JsonObject): AnyAjv {
    const declared = typeof schema.$schema === 'string' ? schema.$schema : '';
    const dialect = declared.includes('draft-07') || declared.includes('draft-06') || declared.includes('draft-04')
      ? 'draft-07'
      : declared.includes('2019-09')
        ? '2019-09'
        : '2020-12';
    let ajv = this.#byDialect.get(dialect);
    if (!ajv) {
      const options = { strict: false, allErrors: true, validateFormats: true } as const;
      ajv = dialect === 'draft-07' ? new Ajv(options) : dialect === '2019-09' ? new Ajv2019(options) : new Ajv2020(options);
      addFormats(ajv);
      this.#byDialect.set(dialect, ajv);
    }
    return ajv;
  }

  /** Compiles `schema` or throws a 422 naming `field` and the compiler's reason. */
  compile(schema: JsonObject, field: string): ValidateFunction {
    const ajv = this.#ajvFor(schema);
    try {
      // Compile without caching by id, so re-submitting an edited schema with the same $id works.
      const { $id: _ignored, ...withoutId } = schema;
      return ajv.compile(withoutId);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new ValidationError(`${field}: not a valid JSON Schema: ${reason}`, { cause: error });
    }
  }

  /** Compiles a schema that must describe a JSON object (form data, job results). */
  compileObjectSchema(schema: JsonObject, field: string): ValidateFunction {
    const validate = this.compile(schema, field);
    if (schema.type !== undefined && schema.type !== 'object') {
      throw new ValidationError(`${field}: must describe an object (type 'object'), not type ${JSON.stringify(schema.type)}`);
    }
    return validate;
  }
}

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
