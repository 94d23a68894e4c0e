import type { JsonObject } from '../../contract/common.ts';

/** One leaf of form_data to place on the page, with what the portal schema says about it. */
export interface Entry {
  /** Dotted path, e.g. `address.city`. */
  key: string;
  path: string[];
  value: unknown;
  title: string;
  description: string;
  required: boolean;
  /** Schema says password/secret (or the key name does): never log the value. */
  secret: boolean;
  /** The schema's `format` (e.g. `date`), when given. */
  format: string;
  /** A leaf of item `index` of an array of objects (a field array: one item per repeated row); `array` is the array's dotted key. */
  item?: { array: string; index: number; arrayTitle: string };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True for `{ name, mime_type?, content_base64 }` — a file, not a nested group. */
export function isFileObject(value: unknown): value is { name: string; mime_type?: string; content_base64: string } {
  return isObject(value) && typeof value.content_base64 === 'string';
}

function schemaProps(schema: unknown): Record<string, unknown> {
  return isObject(schema) && isObject(schema.properties) ? schema.properties : {};
}

function schemaRequired(schema: unknown): string[] {
  return isObject(schema) && Array.isArray(schema.required)
    ? schema.required.filter((r): r is string => typeof r === 'string')
    : [];
}

/** Flattens nested form_data objects into leaf entries (`address: {city}` → `address.city`). */
export function flattenFormData(formData: JsonObject, formSchema: JsonObject): Entry[] {
  const out: Entry[] = [];
  const walk = (
    data: Record<string, unknown>,
    schema: unknown,
    prefix: string[],
    parentRequired: boolean,
    item?: Entry['item'],
  ): void => {
    const props = schemaProps(schema);
    const required = schemaRequired(schema);
    for (const [name, value] of Object.entries(data)) {
      if (value === null || value === undefined) continue;
      const propSchema = props[name];
      const path = [...prefix, name];
      const isRequired = parentRequired && required.includes(name);
      if (isObject(value) && !isFileObject(value)) {
        walk(value, propSchema, path, isRequired, item);
        continue;
      }
      // An array of objects is a field array: item i's leaves go to repeated row i (`contacts[1].phone`).
      if (!item && Array.isArray(value) && value.length && value.every((v) => isObject(v) && !isFileObject(v))) {
        const ps = isObject(propSchema) ? propSchema : {};
        const arrayKey = path.join('.');
        const arrayTitle = typeof ps.title === 'string' ? ps.title : '';
        for (const [index, v] of value.entries())
          walk(v as Record<string, unknown>, ps.items, path, isRequired, { array: arrayKey, index, arrayTitle });
        continue;
      }
      const ps = isObject(propSchema) ? propSchema : {};
      const format = typeof ps.format === 'string' ? ps.format : '';
      out.push({
        key: item
          ? `${item.array}[${item.index}].${path.slice(item.array.split('.').length).join('.')}`
          : path.join('.'),
        path,
        value,
        title: typeof ps.title === 'string' ? ps.title : '',
        description: typeof ps.description === 'string' ? ps.description : '',
        required: isRequired,
        secret:
          format === 'password' || ps.writeOnly === true || /pass(word|code)|secret|pin$|token|cvv|cvc/i.test(name),
        format,
        ...(item && { item }),
      });
    }
  };
  walk(formData, formSchema, [], true);
  return out;
}

/** Schema-required leaf keys missing from form_data (so the agent can ask for them). */
export function missingRequiredKeys(
  formData: JsonObject,
  formSchema: JsonObject,
): Array<{ key: string; title: string }> {
  const out: Array<{ key: string; title: string }> = [];
  const walk = (data: Record<string, unknown>, schema: unknown, prefix: string[]): void => {
    const props = schemaProps(schema);
    for (const name of schemaRequired(schema)) {
      const value = data[name];
      const ps = props[name];
      if (value === undefined || value === null || value === '') {
        out.push({
          key: [...prefix, name].join('.'),
          title: isObject(ps) && typeof ps.title === 'string' ? ps.title : '',
        });
      } else if (isObject(value) && !isFileObject(value)) {
        walk(value, ps, [...prefix, name]);
      }
    }
  };
  walk(formData, formSchema, []);
  return out;
}

/** A value safe to put in a log line. */
export function loggable(entry: Entry, value: unknown = entry.value): string {
  if (entry.secret) return '••••';
  if (isFileObject(value)) return `file ${value.name}`;
  if (typeof value === 'string' && value.startsWith('data:')) return 'file (data URL)';
  // One log line per value: line breaks (contenteditable, textarea) are shown escaped.
  const text = (typeof value === 'string' ? value : JSON.stringify(value)).replace(/\r?\n/g, '\\n');
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
