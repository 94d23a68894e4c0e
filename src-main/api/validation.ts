import { isDeepStrictEqual } from 'node:util';
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
 * Whether every response is also parsed through its zod schema and compared with what the compiled
 * serializer wrote: under tests (vitest sets NODE_ENV=test), in development, or with
 * PORTICO_CHECK_RESPONSES=1. A served build writes bodies with the compiled serializer alone.
 */
export const checkingResponses = (): boolean =>
  process.env.PORTICO_CHECK_RESPONSES === '1' ||
  process.env.NODE_ENV === 'test' ||
  process.env.NODE_ENV === 'development';

function brokenResponse(route: string, why: string, cause?: unknown): InternalError {
  return new InternalError(messages.internal, { cause: new Error(`the response of ${route} ${why}`, { cause }) });
}

/**
 * A handler's result as the JSON text of the route's response schema. Routes whose schema's output is
 * its input (nearly all; responseSerializer.ts) pass `compiled`, the serializer Fastify compiled from it
 * (fast-json-stringify): only the fields the schema names go out, and a missing required field is a
 * 500, never a half body. Others are parsed through zod. When checking (tests, development) every body
 * is also parsed through zod: a result that breaks the schema, or a compiled serializer writing another
 * value than zod's output, is a 500 whose cause (route and issues) is logged only.
 */
export function serializeOutput<S extends z.ZodType>(
  schema: S,
  output: unknown,
  route: string,
  compiled?: (value: unknown) => string,
): string {
  if (compiled && !checkingResponses()) {
    try {
      return compiled(output);
    } catch (error) {
      throw brokenResponse(
        route,
        `breaks its schema: ${error instanceof Error ? error.message : String(error)}`,
        error,
      );
    }
  }
  const result = schema.safeParse(output);
  if (!result.success)
    throw brokenResponse(route, `breaks its schema: ${describeIssues('response', result.error.issues)}`);
  const json = JSON.stringify(result.data);
  if (!compiled) return json;
  let written: string;
  try {
    written = compiled(output);
  } catch (error) {
    throw brokenResponse(
      route,
      `could not be written by its compiled serializer: ${error instanceof Error ? error.message : String(error)}`,
      error,
    );
  }
  // The same value (fast-json-stringify writes required properties first, so the text may differ in
  // key order); what is sent is what a served build sends.
  if (!isDeepStrictEqual(JSON.parse(written), JSON.parse(json))) {
    throw brokenResponse(
      route,
      `was written differently by its compiled serializer than its schema reads it: ${written.slice(0, 300)} vs ${json.slice(0, 300)}`,
    );
  }
  return written;
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
      done(
        new ValidationError(`body: must not nest objects or arrays deeper than ${MAX_JSON_DEPTH} levels`),
        undefined,
      );
      return;
    }
    parse(request, text, done);
  });
}
