import { joinTemplates, parseTemplate, type Template } from './actionTemplate.ts';

/** One word of an action, or one quoted string (which is never read as a keyword). */
export interface ActionToken {
  quoted: boolean;
  /** The text as written (quotes removed). */
  raw: string;
  /** Lower case, for keyword matching; quoted tokens never match a keyword. */
  lower: string;
  template: Template;
}

const OPENERS: Readonly<Record<string, string>> = { '"': '"', "'": "'", '“': '”', '‘': '’', '`': '`' };
const isSpace = (c: string | undefined): boolean =>
  c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v' || c === '\u00a0';
/** Punctuation that may follow a closing quote ("click 'OK', then…" is not supported, but "'OK'." is). */
const isCloserBoundary = (c: string | undefined): boolean =>
  c === undefined || isSpace(c) || c === '.' || c === ',' || c === '!' || c === '?' || c === ';' || c === ':';

/**
 * Splits an action into words and quoted strings in one linear pass (no backtracking: a quote with
 * no closer is remembered, so hostile input of many unclosed quotes stays linear).
 */
export function tokenize(text: string): ActionToken[] {
  const tokens: ActionToken[] = [];
  const unclosed = new Set<string>();
  let i = 0;
  const n = text.length;
  while (i < n) {
    while (i < n && isSpace(text[i])) i += 1;
    if (i >= n) break;
    const c = text[i] ?? '';
    const closer = OPENERS[c];
    if (closer !== undefined && !unclosed.has(closer)) {
      let j = i + 1;
      let end = -1;
      while (j < n) {
        if (text[j] === closer && isCloserBoundary(text[j + 1])) {
          end = j;
          break;
        }
        j += 1;
      }
      if (end >= 0) {
        const raw = text.slice(i + 1, end);
        tokens.push({ quoted: true, raw, lower: '', template: parseTemplate(raw, i + 1) });
        i = end + 1;
        // Sentence punctuation right after a closing quote belongs to no token.
        while (i < n && !isSpace(text[i]) && isCloserBoundary(text[i])) i += 1;
        continue;
      }
      unclosed.add(closer);
    }
    let j = i;
    while (j < n && !isSpace(text[j])) j += 1;
    const raw = text.slice(i, j);
    tokens.push({ quoted: false, raw, lower: raw.toLowerCase(), template: parseTemplate(raw, i) });
    i = j;
  }
  return tokens;
}

/** A run of tokens read back as one template: quoted content as written, words joined by single spaces. */
export function tokensTemplate(tokens: readonly ActionToken[]): Template {
  return joinTemplates(
    tokens.map((t) => t.template),
    ' ',
  );
}

/** Whether tokens from `at` start with the keyword phrase (words only, never quoted tokens). */
export function startsWithWords(tokens: readonly ActionToken[], at: number, phrase: readonly string[]): boolean {
  if (at + phrase.length > tokens.length) return false;
  return phrase.every((word, k) => {
    const token = tokens[at + k];
    return token !== undefined && !token.quoted && token.lower === word;
  });
}

/** Index of the first (or last) unquoted token in [from, to) equal to one of `words`; -1 when none. */
export function findWord(
  tokens: readonly ActionToken[],
  words: readonly string[],
  from: number,
  to: number,
  last = false,
): number {
  if (last) {
    for (let k = to - 1; k >= from; k -= 1) if (isWord(tokens[k], words)) return k;
    return -1;
  }
  for (let k = from; k < to; k += 1) if (isWord(tokens[k], words)) return k;
  return -1;
}

function isWord(token: ActionToken | undefined, words: readonly string[]): boolean {
  return token !== undefined && !token.quoted && words.includes(token.lower);
}
