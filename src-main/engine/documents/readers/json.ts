import { readFile } from 'node:fs/promises';
import { DocumentReadError, type DocumentField, type DocumentReader, type ReadDocument } from '../types.ts';
import { decodeText } from './text.ts';

export const JSON_MAX_DEPTH = 32;
export const JSON_MAX_FIELDS = 10_000;

/** Leaves of a parsed JSON value as `a.b[0].c` → text; deeper or larger than the limits is a clear error. */
export function flattenJson(value: unknown, name: string): { key: string; value: string }[] {
  const out: { key: string; value: string }[] = [];
  const walk = (node: unknown, key: string, depth: number): void => {
    if (depth > JSON_MAX_DEPTH)
      throw new DocumentReadError(`${name}: JSON nested deeper than ${JSON_MAX_DEPTH} levels`);
    if (node !== null && typeof node === 'object') {
      const entries = Array.isArray(node)
        ? node.map((v, i) => [`${key}[${i}]`, v] as const)
        : Object.entries(node).map(([k, v]) => [key ? `${key}.${k}` : k, v] as const);
      for (const [childKey, child] of entries) walk(child, childKey, depth + 1);
      return;
    }
    if (out.length >= JSON_MAX_FIELDS)
      throw new DocumentReadError(`${name}: JSON has more than ${JSON_MAX_FIELDS} values`);
    out.push({ key: key || '$', value: node === null ? '' : String(node) });
  };
  walk(value, '', 0);
  return out;
}

/** JSON: each leaf a `json` field named by its flattened key. */
export const jsonReader: DocumentReader = {
  accepts: (contentType) => contentType === 'application/json',
  async read(file): Promise<ReadDocument> {
    const text = decodeText(await readFile(file.path), file.name);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new DocumentReadError(`${file.name}: not valid JSON`);
    }
    const fields: DocumentField[] = flattenJson(parsed, file.name).map(({ key, value }) => ({
      name: key,
      value,
      kind: 'json',
      source: { document: file.name, page: null, text: `${key}: ${value}` },
    }));
    return {
      name: file.name,
      contentType: file.contentType,
      size: file.size,
      pages: 1,
      pageTexts: [{ page: null, text, ocr: false }],
      fields,
    };
  },
};
