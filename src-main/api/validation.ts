import type { z } from 'zod';
import { InternalError, ValidationError } from '../base/errors.ts';
import { messages } from '../contract/messages.ts';

type Where = 'body' | 'query' | 'path';

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `'${k}'`).join(', ')}`;
  if (issue.code === 'invalid_type' && issue.input === undefined) return 'is required';
  if (issue.code === 'invalid_type') return `must be ${issue.expected === 'record' ? 'an object' : `of type ${issue.expected}`}`;
  return issue.message;
}

function issuePath(where: string, issue: z.core.$ZodIssue): string {
  return [where, ...issue.path.map((segment) => (typeof segment === 'number' ? `[${segment}]` : String(segment)))]
    .join('.')
    .replace(/\.\[/g, '[');
}

const describeIssues = (where: string, issues: readonly z.core.$ZodIssue[]): string =>
  issues.map((issue) => `${issuePath(where, issue)}: ${describeIssue(issue)}`).join('; ');

/** Parses input against a contract schema; a failure becomes a 422 naming each field and rule. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, where: Where): z.output<S> {
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  throw new ValidationError(describeIssues(where, result.error.issues));
}

/**
 * Serializes a handler's result through the route's response schema: unknown keys are dropped, and
 * a result that breaks the schema is a server bug — a 500 whose cause (route and issues) is logged only.
 */
export function serializeOutput<S extends z.ZodType>(schema: S, output: unknown, route: string): z.output<S> {
  const result = schema.safeParse(output);
  if (result.success) return result.data;
  const cause = new Error(`the response of ${route} breaks its schema: ${describeIssues('response', result.error.issues)}`);
  throw new InternalError(messages.internal, { cause });
}
