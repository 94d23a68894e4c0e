import type { FastifyInstance } from 'fastify';
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

/** How deep a JSON body may nest: far beyond any form or schema, short of what recursion over it can overflow on. */
export const MAX_JSON_DEPTH = 64;

/** The deepest `{`/`[` nesting of a JSON text, counted without parsing it (strings skipped); stops once past `limit`. */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}

/**
 * JSON bodies: Fastify's own parser (prototype-poisoning keys refused) behind a nesting limit, so a
 * 5,000-deep `form_data` is a 422 at the door instead of a stack overflow wherever it is walked later.
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) {
      done(new ValidationError(`body: must not nest objects or arrays deeper than ${MAX_JSON_DEPTH} levels`), undefined);
      return;
    }
    parse(request, text, done);
  });
}
