import type { AssistantContent } from '../../llm/index.ts';
import type { KeyMapRequest } from './keyMapper.ts';
import { MAP_FIELDS_TOOL } from './mappingPrompt.ts';

/** A mapping kept after checking, and what was dropped from it (for the job's log). */
export interface CheckedMapping {
  mapping: Map<string, number>;
  ignored: string[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Keeps the pairs that name a key of the request and an index of its controls: unknown keys,
 * indexes out of range, and every key of a control claimed twice are dropped. Null when `pairs`
 * is not a list of `{key, control}` objects.
 */
export function checkMapping(pairs: unknown, request: KeyMapRequest): CheckedMapping | null {
  if (!Array.isArray(pairs) || !pairs.every(isRecord)) return null;
  const keys = new Set(request.keys.map((k) => k.key));
  const ignored: string[] = [];
  const chosen = new Map<string, number>();
  const twice = new Set<string>();
  for (const { key, control } of pairs) {
    if (control === null || control === undefined) continue;
    if (typeof key !== 'string' || !keys.has(key)) {
      ignored.push(`unknown key '${String(key)}'`);
    } else if (
      typeof control !== 'number' ||
      !Number.isInteger(control) ||
      control < 0 ||
      control >= request.controls.length
    ) {
      ignored.push(`'${key}' → control ${JSON.stringify(control)}, which the page does not have`);
    } else if (!chosen.has(key)) {
      chosen.set(key, control);
    } else if (chosen.get(key) !== control) {
      twice.add(key);
    }
  }
  for (const key of twice) {
    chosen.delete(key);
    ignored.push(`'${key}', mapped to two controls`);
  }
  const claims = new Map<number, string[]>();
  for (const [key, control] of chosen) claims.set(control, [...(claims.get(control) ?? []), key]);
  const mapping = new Map<string, number>();
  for (const [control, [first, ...more]] of claims) {
    if (first !== undefined && !more.length) mapping.set(first, control);
    else ignored.push(`${[first, ...more].map((k) => `'${k}'`).join(' and ')}, all mapped to control ${control}`);
  }
  return { mapping, ignored };
}

/** The model's `map_fields` call, checked against the request; null when the answer has none usable. */
export function readMappingAnswer(content: AssistantContent[], request: KeyMapRequest): CheckedMapping | null {
  const call = content.find((block) => block.type === 'tool_use' && block.name === MAP_FIELDS_TOOL.name);
  return call?.type === 'tool_use' ? checkMapping(call.input.mappings, request) : null;
}

/** A mapping in the shape the tool takes (and the cache stores): `{mappings: [{key, control}]}`. */
export function mappingJson(mapping: Map<string, number>): { mappings: Array<{ key: string; control: number }> } {
  return { mappings: [...mapping].map(([key, control]) => ({ key, control })) };
}
