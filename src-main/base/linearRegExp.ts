import { RE2JS } from 're2js';
import { PorticoError } from './errors.ts';

/**
 * Regular expressions written by someone else (a portal's JSON Schema `pattern`, a web page's input
 * `pattern` attribute) run on RE2 (the re2js port): matching takes time linear in the text, so no
 * pattern can backtrack for seconds. RE2 has no backreferences and no lookaround; such a pattern is
 * refused when compiled, never run on a backtracking engine.
 */
export interface LinearRegExp {
  /** Does the pattern match anywhere in `text` (as `RegExp.prototype.test`)? */
  test(text: string): boolean;
  /** `/pattern/`: unique per pattern (Ajv keys compiled patterns by it). */
  toString(): string;
}

/** A pattern RE2 cannot compile; the message names the pattern and RE2's reason. */
export class UnsupportedPatternError extends PorticoError {}

const QUOTED_PATTERN_MAX = 120;

function quoted(pattern: string): string {
  return JSON.stringify(pattern.length > QUOTED_PATTERN_MAX ? `${pattern.slice(0, QUOTED_PATTERN_MAX)}…` : pattern);
}

/**
 * Compiles a JavaScript-syntax pattern (`\u00e9`, `(?<name>…)`, `\/` are translated) on RE2.
 * `anchored`: the whole text must match, as an HTML `pattern` attribute. Throws
 * {@link UnsupportedPatternError} for a pattern RE2 cannot run (backreference, lookaround, a repeat over 1000).
 */
export function linearRegExp(pattern: string, options: { anchored?: boolean } = {}): LinearRegExp {
  let compiled: RE2JS;
  try {
    const source = RE2JS.translateRegExp(pattern);
    compiled = RE2JS.compile(options.anchored ? `^(?:${source})$` : source);
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).replace(/^error parsing regexp: /, '');
    throw new UnsupportedPatternError(
      `pattern ${quoted(pattern)} is not supported (${reason}); patterns run on RE2, which matches in linear time and has no backreferences or lookaround`,
      { cause: error },
    );
  }
  const text = `/${pattern}/`;
  return { test: (input) => compiled.test(input), toString: () => text };
}
