// tier: unit
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseSync } from '@swc/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as contract from '../../src-main/contract/index.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const rendererDir = join(root, 'src-renderer');

function rendererFiles(dir = rendererDir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return rendererFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The field names of every object schema the contract exports (arrays of objects by their element). */
function contractShapes(): Map<string, Set<string>> {
  const shapes = new Map<string, Set<string>>();
  for (const [name, value] of Object.entries(contract)) {
    const schema = value instanceof z.ZodArray ? (value.element as unknown) : value;
    if (schema instanceof z.ZodObject) shapes.set(name, new Set(Object.keys(schema.shape as Record<string, unknown>)));
  }
  return shapes;
}

/** Generic calls the console may make: React and zustand state, and the console's own typed helpers. */
const allowedGenericCalls = new Set([
  'useState',
  'useRef',
  'useMemo',
  'useCallback',
  'useReducer',
  'createContext',
  'create',
  'useResource',
]);

/** An API path written by hand: the client builds every one from the contract. */
const apiPath = /^\/(admin|jobs|task|portals|profiles|skills|webhooks|health|live)(\/|\?|$)/;

interface Finding {
  file: string;
  what: string;
}

/** An SWC AST node, read loosely: the walk only looks at a few node types. */
interface AstNode {
  type: string;
  [key: string]: unknown;
}

const isNode = (value: unknown): value is AstNode =>
  typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';

/** Dotted text of a callee (`api.get`, `useState`), or '' for anything else. */
function calleeName(node: unknown): string {
  if (!isNode(node)) return '';
  if (node.type === 'Identifier') return String(node.value);
  if (node.type === 'MemberExpression') return `${calleeName(node.object)}.${calleeName(node.property)}`;
  return '';
}

function propertyNames(members: unknown): string[] {
  if (!Array.isArray(members)) return [];
  return members
    .filter((m): m is AstNode => isNode(m) && m.type === 'TsPropertySignature')
    .map((m) => {
      const key = m.key as AstNode;
      return String(key.value);
    });
}

/** What a renderer file declares or calls that belongs to the contract. */
function findApiShapes(file: string, text: string, shapes: Map<string, Set<string>>): Finding[] {
  const module = parseSync(text, { syntax: 'typescript', tsx: file.endsWith('.tsx') });
  const findings: Finding[] = [];
  const at = (what: string) => findings.push({ file, what });
  const checkFields = (fields: string[], label: string) => {
    if (fields.length < 2) return;
    for (const [name, keys] of shapes) {
      // Same fields as a contract schema, or three or more of one schema's fields and nothing else.
      const inside = fields.every((f) => keys.has(f));
      if (inside && (fields.length === keys.size || fields.length >= 3)) {
        at(`${label} re-declares the contract's ${name} (${fields.join(', ')})`);
        return;
      }
    }
  };
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    if (isNode(value)) {
      const node = value;
      if (node.type === 'TsInterfaceDeclaration' || node.type === 'TsTypeAliasDeclaration') {
        const name = String((node.id as AstNode).value);
        if (shapes.has(name)) at(`declares ${name}, a contract schema name`);
        if (node.type === 'TsInterfaceDeclaration')
          checkFields(propertyNames((node.body as AstNode).body), `interface ${name}`);
      }
      if (node.type === 'TsTypeLiteral') checkFields(propertyNames(node.members), 'a type literal');
      if (node.type === 'CallExpression' && isNode(node.typeArguments)) {
        const callee = calleeName(node.callee);
        if (!allowedGenericCalls.has(callee))
          at(`generic call ${callee}<…>(): the response type must come from the contract client`);
      }
      if (node.type === 'StringLiteral' && apiPath.test(String(node.value)))
        at(`hand-built API path '${String(node.value)}'`);
      if (node.type === 'TemplateLiteral') {
        const head = (node.quasis as AstNode[])[0];
        const cooked = String(head?.cooked ?? head?.raw ?? '');
        if (apiPath.test(cooked)) at(`hand-built API path \`${cooked}…\``);
      }
    }
    for (const [key, child] of Object.entries(value)) {
      if (key !== 'span') visit(child);
    }
  };
  visit(module.body);
  return findings;
}

describe('the console declares no API shapes of its own', () => {
  const shapes = contractShapes();

  it('knows the contract shapes it compares against', () => {
    expect(shapes.get('JobList')).toEqual(new Set(['jobs', 'total']));
    expect(shapes.get('WebhookKeyStatus')?.has('configured')).toBe(true);
    expect(shapes.get('JobLogEvent')).toEqual(new Set(['seq', 'timestamp', 'line']));
  });

  it('no renderer file re-declares a response shape, calls the API generically or builds an API path', () => {
    const findings = rendererFiles().flatMap((file) =>
      findApiShapes(relative(root, file), readFileSync(file, 'utf8'), shapes),
    );
    expect(findings.map((f) => `${f.file}: ${f.what}`)).toEqual([]);
  });

  it('catches each kind of copy the console used to have', () => {
    const copies = `
      export interface JobList { jobs: unknown[]; total: number }
      interface LogLine { seq: number; timestamp: string; line: string }
      interface KeyStatus { configured: boolean; prefix: string | null; created_at: string | null }
      const a = api.get<Portal[]>(\`/portals/\${org}\`);
      const b = api.post<{ secret: string }>('/webhooks/default/key');
    `;
    const found = findApiShapes('copies.tsx', copies, shapes).map((f) => f.what);
    expect(found).toEqual(
      expect.arrayContaining([
        'declares JobList, a contract schema name',
        expect.stringMatching(/^interface LogLine re-declares the contract's JobLogEvent/),
        expect.stringMatching(/^interface KeyStatus re-declares the contract's WebhookKeyStatus/),
        'generic call api.get<…>(): the response type must come from the contract client',
        'generic call api.post<…>(): the response type must come from the contract client',
        'hand-built API path `/portals/…`',
        "hand-built API path '/webhooks/default/key'",
      ]),
    );
  });
});
