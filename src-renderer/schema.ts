/** A JSON Schema as the console reads it: only the keywords it needs to check and draw a form. */
export type JsonSchema = Record<string, unknown>;

export type FieldKind = 'text' | 'textarea' | 'number' | 'integer' | 'boolean' | 'select' | 'multiselect' | 'json';

export interface SchemaField {
  name: string;
  label: string;
  description: string | undefined;
  kind: FieldKind;
  /** HTML input type for text fields (email, date, url…). */
  inputType: string;
  required: boolean;
  options: string[];
}

export type SchemaCheck = { ok: true; schema: JsonSchema; warnings: string[] } | { ok: false; error: string };

const TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'];
const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Parses and sanity-checks a schema as the user types. The server compiles it with Ajv on save and
 * its 422 detail is shown then; this catches the common mistakes without a round trip.
 */
export function checkSchema(
  text: string,
  options: { mustBeObject: boolean; allowEmpty: boolean },
): SchemaCheck | undefined {
  if (text.trim() === '') return options.allowEmpty ? undefined : { ok: true, schema: {}, warnings: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `Not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (!isRecord(parsed))
    return { ok: false, error: 'A schema must be a JSON object, e.g. {"type": "object", "properties": {…}}' };
  const type = parsed.type;
  if (
    type !== undefined &&
    !(typeof type === 'string' && TYPES.includes(type)) &&
    !(Array.isArray(type) && type.every((t) => typeof t === 'string' && TYPES.includes(t)))
  ) {
    return { ok: false, error: `"type" must be one of ${TYPES.join(', ')}` };
  }
  if (options.mustBeObject && type !== undefined && type !== 'object')
    return { ok: false, error: 'The form schema must describe an object ("type": "object")' };
  const properties = parsed.properties;
  if (properties !== undefined && !isRecord(properties))
    return { ok: false, error: '"properties" must be an object mapping field names to schemas' };
  const warnings: string[] = [];
  for (const [name, property] of Object.entries(properties ?? {})) {
    if (!isRecord(property)) return { ok: false, error: `properties.${name} must be a schema object` };
    const propertyType = property.type;
    if (typeof propertyType === 'string' && !TYPES.includes(propertyType))
      return { ok: false, error: `properties.${name}.type: "${propertyType}" is not a JSON Schema type` };
  }
  if (parsed.required !== undefined) {
    if (!Array.isArray(parsed.required) || !parsed.required.every((r) => typeof r === 'string'))
      return { ok: false, error: '"required" must be an array of field names' };
    for (const name of parsed.required as string[])
      if (!isRecord(properties) || !(name in properties))
        warnings.push(`"${name}" is required but not described in properties`);
  }
  return { ok: true, schema: parsed, warnings };
}

function optionsOf(schema: Record<string, unknown>): string[] {
  if (Array.isArray(schema.enum)) return schema.enum.map(String);
  if (Array.isArray(schema.oneOf))
    return schema.oneOf
      .filter(isRecord)
      .filter((s) => 'const' in s)
      .map((s) => String(s.const));
  return [];
}

const FORMAT_INPUT: Record<string, string> = {
  email: 'email',
  date: 'date',
  'date-time': 'datetime-local',
  uri: 'url',
  url: 'url',
  time: 'time',
};

/** The fields a schema's `properties` describe, in order, as form controls. */
export function fieldsOf(schema: JsonSchema): SchemaField[] {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.map(String) : [];
  return Object.entries(properties)
    .filter((entry): entry is [string, Record<string, unknown>] => isRecord(entry[1]))
    .map(([name, property]) => {
      const type = Array.isArray(property.type) ? property.type.find((t) => t !== 'null') : property.type;
      const options = optionsOf(property);
      const items = isRecord(property.items) ? property.items : {};
      let kind: FieldKind = 'text';
      if (options.length > 0) kind = 'select';
      else if (type === 'boolean') kind = 'boolean';
      else if (type === 'integer') kind = 'integer';
      else if (type === 'number') kind = 'number';
      else if (type === 'array' && optionsOf(items).length > 0) kind = 'multiselect';
      else if (type === 'object' || type === 'array') kind = 'json';
      else if (typeof property.maxLength === 'number' && property.maxLength > 200) kind = 'textarea';
      return {
        name,
        label: typeof property.title === 'string' ? property.title : name,
        description: typeof property.description === 'string' ? property.description : undefined,
        kind,
        inputType: (typeof property.format === 'string' && FORMAT_INPUT[property.format]) || 'text',
        required: required.includes(name),
        options: kind === 'multiselect' ? optionsOf(items) : options,
      };
    });
}

/** Turns what the form holds (strings, booleans, string lists) into form_data; empty optional fields are left out. */
export function formDataOf(
  fields: SchemaField[],
  values: Record<string, unknown>,
): { data: Record<string, unknown>; error?: string } {
  const data: Record<string, unknown> = {};
  for (const field of fields) {
    const value = values[field.name];
    if (field.kind === 'boolean') {
      if (value !== undefined) data[field.name] = value === true;
      continue;
    }
    if (field.kind === 'multiselect') {
      if (Array.isArray(value) && value.length > 0) data[field.name] = value;
      continue;
    }
    if (typeof value !== 'string' || value.trim() === '') continue;
    if (field.kind === 'number' || field.kind === 'integer') {
      const n = Number(value);
      if (!Number.isFinite(n)) return { data, error: `${field.label}: "${value}" is not a number` };
      data[field.name] = n;
    } else if (field.kind === 'json') {
      try {
        data[field.name] = JSON.parse(value);
      } catch {
        return { data, error: `${field.label}: not valid JSON` };
      }
    } else {
      data[field.name] = value;
    }
  }
  return { data };
}
