import type { z } from 'zod';

/**
 * Characters no user-given name may hold: C0 and C1 controls (NUL, CR, LF, ESC…) and DEL, which break
 * logs, headers and terminals; and the invisible bidirectional controls that make a name display as
 * another (embeddings and overrides U+202A–202E, isolates U+2066–2069, LRM/RLM U+200E/U+200F, the
 * Arabic letter mark U+061C).
 */
const UNSAFE_NAME_CHARACTER = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

/** The rule a refused name breaks, as the 422 detail states it after the field. */
export const UNSAFE_NAME_RULE =
  'must not contain control characters (such as NUL, CR or LF) or bidirectional text controls';

/** The first character a name may not hold, as `U+202E`; undefined when the name is safe to show. */
export function unsafeNameCharacter(value: string): string | undefined {
  const found = UNSAFE_NAME_CHARACTER.exec(value)?.[0];
  return found === undefined
    ? undefined
    : `U+${(found.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Why `value` cannot be a name: `<rule> (found U+202E)`; undefined when it can. */
export function unsafeNameProblem(value: string): string | undefined {
  const found = unsafeNameCharacter(value);
  return found === undefined ? undefined : `${UNSAFE_NAME_RULE} (found ${found})`;
}

/** A string schema that also refuses control and bidi characters; the 422 names the field (`body.name: must not…`). */
export function safeName<S extends z.ZodString>(schema: S): S {
  return schema.refine((value) => unsafeNameCharacter(value) === undefined, {
    error: (issue) => unsafeNameProblem(String(issue.input)) ?? UNSAFE_NAME_RULE,
  });
}
