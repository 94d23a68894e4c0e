import type { z } from 'zod';
import { ValidationError } from '../base/errors.ts';

type Where = 'body' | 'query' | 'path';

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `'${k}'`).join(', ')}`;
  if (issue.code === 'invalid_type' && issue.input === undefined) return 'is required';
  if (issue.code === 'invalid_type') return `must be ${issue.expected === 'record' ? 'an object' : `of type ${issue.expected}`}`;
  return issue.message;
}

function issuePath(where: Where, issue: z.core.$ZodIssue): string {
  return [where, ...issue.path.map((segment) => (typeof segment === 'number' ? `[${segment}]` : String(segment)))]
    .join('.')
    .replace(/\.\[/g, '[');
}

/** Parses input against a contract schema; a failure becomes a 422 naming each field and rule. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, where: Where): z.output<S> {
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  const detail = result.error.issues.map((issue) => `${issuePath(where, issue)}: ${describeIssue(issue)}`).join('; ');
  throw new ValidationError(detail);
}
