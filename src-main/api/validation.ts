import type { z } from 'zod';
import { InternalError, ValidationError } from '../base/errors.ts';
import { describeZodIssues as describeIssues } from '../base/zodIssues.ts';
import { messages } from '../contract/messages.ts';

type Where = 'body' | 'query' | 'path';

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
