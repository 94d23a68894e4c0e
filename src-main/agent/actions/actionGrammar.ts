import { parseTemplate, templateVariables, type Template } from './actionTemplate.ts';
import { findWord, startsWithWords, tokenize, tokensTemplate, type ActionToken } from './actionTokens.ts';

/** What kind of element a target names, from the words around it ("the Continue button"). */
export type TargetKind =
  | 'any'
  | 'button'
  | 'link'
  | 'field'
  | 'checkbox'
  | 'radio'
  | 'choice'
  | 'dropdown'
  | 'tab'
  | 'option'
  | 'group'
  /** "box": a checkbox or a text box (a hint, not a filter: both are tried, the unambiguous one wins). */
  | 'box'
  /** "the Privacy page" after open: a link or button that leads there. */
  | 'navigable';

/** The element an action names: by its accessible name, label, placeholder or visible text. */
export interface TargetSpec {
  name: Template;
  kind: TargetKind;
  /** Written in quotes: the name is matched as written (still case- and space-tolerant, never as a substring first). */
  quoted: boolean;
  /**
   * Readings of the name as a target inside one row: "Delete for Invoice 7", "the status of order 1042",
   * "Edit in the row of Rent" — the target (or, read, the column) and the row's key, one per place the
   * words could split. Tried before the whole name; a reading applies only when a row has that key.
   */
  rows?: RowReading[];
}

/** One way to read a target's words as "<target> <for|of|in the row of|next to> <row key>". */
export interface RowReading {
  target: Omit<TargetSpec, 'rows'>;
  row: Template;
}

/** One imperative action, its texts still templates (values are filled in only when it runs). */
export type ParsedAction =
  | { op: 'goto'; url: Template }
  | { op: 'click'; target: TargetSpec }
  | { op: 'fill'; text: Template; target: TargetSpec }
  | { op: 'select'; option: Template; target: TargetSpec }
  | { op: 'check'; checked: boolean; target: TargetSpec }
  | { op: 'press'; key: string; target?: TargetSpec }
  | { op: 'hover'; target: TargetSpec }
  | { op: 'scroll'; direction: 'up' | 'down' | 'top' | 'bottom' }
  | { op: 'scroll_to'; target: TargetSpec }
  | { op: 'wait_for_text'; text: Template }
  | { op: 'extract'; target?: TargetSpec };

export type ActionOp = ParsedAction['op'];

const ARTICLES = ['the', 'a', 'an'];

/** Role words before or after a target's name, longest first. */
const KIND_WORDS: ReadonlyArray<readonly [readonly string[], TargetKind]> = [
  [['radio', 'button'], 'radio'],
  [['text', 'box'], 'field'],
  [['text', 'field'], 'field'],
  [['input', 'field'], 'field'],
  [['text', 'area'], 'field'],
  [['check', 'box'], 'checkbox'],
  [['drop', 'down'], 'dropdown'],
  [['dropdown', 'menu'], 'dropdown'],
  [['dropdown', 'list'], 'dropdown'],
  [['select', 'box'], 'dropdown'],
  [['select', 'menu'], 'dropdown'],
  [['search', 'box'], 'field'],
  [['button'], 'button'],
  [['link'], 'link'],
  [['field'], 'field'],
  [['box'], 'box'],
  [['input'], 'field'],
  [['textbox'], 'field'],
  [['textarea'], 'field'],
  [['checkbox'], 'checkbox'],
  [['radio'], 'radio'],
  [['dropdown'], 'dropdown'],
  [['drop-down'], 'dropdown'],
  [['combobox'], 'dropdown'],
  [['select'], 'dropdown'],
  [['menu'], 'dropdown'],
  [['list'], 'dropdown'],
  [['tab'], 'tab'],
  [['option'], 'option'],
];

/** Playwright key names by the words people use for them. */
const KEY_NAMES: Readonly<Record<string, string>> = {
  enter: 'Enter',
  return: 'Enter',
  tab: 'Tab',
  escape: 'Escape',
  esc: 'Escape',
  space: 'Space',
  spacebar: 'Space',
  backspace: 'Backspace',
  delete: 'Delete',
  del: 'Delete',
  insert: 'Insert',
  home: 'Home',
  end: 'End',
  pageup: 'PageUp',
  'page up': 'PageUp',
  pagedown: 'PageDown',
  'page down': 'PageDown',
  up: 'ArrowUp',
  down: 'ArrowDown',
  left: 'ArrowLeft',
  right: 'ArrowRight',
  arrowup: 'ArrowUp',
  arrowdown: 'ArrowDown',
  arrowleft: 'ArrowLeft',
  arrowright: 'ArrowRight',
  'up arrow': 'ArrowUp',
  'down arrow': 'ArrowDown',
  'left arrow': 'ArrowLeft',
  'right arrow': 'ArrowRight',
  'arrow up': 'ArrowUp',
  'arrow down': 'ArrowDown',
  'arrow left': 'ArrowLeft',
  'arrow right': 'ArrowRight',
  ctrl: 'Control',
  control: 'Control',
  shift: 'Shift',
  alt: 'Alt',
  option: 'Alt',
  cmd: 'Meta',
  command: 'Meta',
  meta: 'Meta',
  win: 'Meta',
};
const MODIFIERS = new Set(['Control', 'Shift', 'Alt', 'Meta']);

/** Playwright's name for a key ("ctrl+a" → "Control+a", "the down arrow" → "ArrowDown"), or undefined when the words are not a key. */
export function keyName(words: string): string | undefined {
  const text = words.trim().toLowerCase().replace(/^the /, '').replace(/ key$/, '');
  if (!text || text.length > 40) return undefined;
  const parts = text.split('+').map((p) => p.trim());
  const out: string[] = [];
  for (const [index, part] of parts.entries()) {
    const named = KEY_NAMES[part] ?? (/^f([1-9]|1[0-2])$/.test(part) ? part.toUpperCase() : undefined);
    const isLast = index === parts.length - 1;
    if (named !== undefined && (isLast || MODIFIERS.has(named))) out.push(named);
    else if (isLast && parts.length > 1 && /^[a-z0-9]$/.test(part)) out.push(part);
    else return undefined;
  }
  return out.join('+');
}

function kindAt(
  tokens: readonly ActionToken[],
  at: number,
  fromEnd: boolean,
): { kind: TargetKind; length: number } | undefined {
  for (const [words, kind] of KIND_WORDS) {
    const start = fromEnd ? at - words.length + 1 : at;
    if (start >= 0 && startsWithWords(tokens, start, words)) return { kind, length: words.length };
  }
  return undefined;
}

/** Words joining a target to the row it is in ("Delete for Invoice 7", "Edit in the row of Rent"), longest first. */
const ROW_JOINS: ReadonlyArray<readonly string[]> = [
  ['in', 'the', 'row', 'of'],
  ['in', 'the', 'row', 'for'],
  ['in', 'the', 'row', 'with'],
  ['on', 'the', 'row', 'of'],
  ['on', 'the', 'row', 'for'],
  ['in', 'row'],
  ['next', 'to'],
  ['beside'],
  ['for'],
  ['of'],
];

/** Every reading of the tokens as "<target> <join> <row key>" (and "<target> in|on the <row key> row"). */
function rowReadings(tokens: readonly ActionToken[], fallbackKind: TargetKind): RowReading[] {
  const readings: RowReading[] = [];
  const add = (targetTokens: readonly ActionToken[], rowTokens: readonly ActionToken[]) => {
    let key = rowTokens;
    if (key.length > 1 && findWord(key, ARTICLES, 0, 1) === 0) key = key.slice(1);
    if (key.length > 1 && startsWithWords(key, 0, ['row'])) key = key.slice(1);
    if (key.length > 1 && startsWithWords(key, key.length - 1, ['row'])) key = key.slice(0, -1);
    const target = parseTarget(targetTokens, fallbackKind, false);
    if (target && key.length > 0) readings.push({ target, row: tokensTemplate(key) });
  };
  let joined = 0;
  for (let at = 1; at < tokens.length - 1; at += 1) {
    const join =
      at >= joined
        ? ROW_JOINS.find((words) => startsWithWords(tokens, at, words) && at + words.length < tokens.length)
        : undefined;
    if (join) {
      add(tokens.slice(0, at), tokens.slice(at + join.length));
      joined = at + join.length;
    }
    // "Delete in the Invoice 7 row", "Edit on the Rent row"
    if (
      (startsWithWords(tokens, at, ['in']) || startsWithWords(tokens, at, ['on'])) &&
      tokens.length - at > 2 &&
      startsWithWords(tokens, tokens.length - 1, ['row'])
    ) {
      add(tokens.slice(0, at), tokens.slice(at + 1));
    }
  }
  return readings;
}

/** Reads "the Continue button", "the link 'Privacy'", "Email address": the name and what kind of element it is. */
function parseTarget(
  tokens: readonly ActionToken[],
  fallbackKind: TargetKind = 'any',
  withRows = true,
): TargetSpec | undefined {
  let from = 0;
  let to = tokens.length;
  while (from < to && startsWithWords(tokens, from, ['on'])) from += 1;
  if (from < to && findWord(tokens, ARTICLES, from, from + 1) === from) from += 1;
  let kind: TargetKind = fallbackKind;
  const trailing = to - from > 1 ? kindAt(tokens, to - 1, true) : undefined;
  if (trailing && to - trailing.length > from) {
    kind = trailing.kind;
    to -= trailing.length;
  } else {
    const leading = to - from > 1 ? kindAt(tokens, from, false) : undefined;
    if (leading && from + leading.length < to) {
      kind = leading.kind;
      from += leading.length;
      // "the button labelled 'Save'", "the field named Email"
      if (
        to - from > 1 &&
        findWord(tokens, ['labelled', 'labeled', 'named', 'called', 'titled'], from, from + 1) === from
      )
        from += 1;
    }
  }
  // "box" said while typing is a text box, while ticking a checkbox; elsewhere both are tried.
  if (kind === 'box' && fallbackKind === 'field') kind = 'field';
  if (kind === 'box' && fallbackKind === 'choice') kind = 'checkbox';
  const rest = tokens.slice(from, to);
  if (rest.length === 0) return undefined;
  const only = rest.length === 1 ? rest[0] : undefined;
  // Bounded: a name of more than 40 words is no row and target, and hostile input stays linear.
  const rows = withRows && rest.length > 2 && tokens.length <= 40 ? rowReadings(tokens, fallbackKind) : [];
  return { name: tokensTemplate(rest), kind, quoted: only?.quoted === true, ...(rows.length > 0 && { rows }) };
}

/**
 * Whether a word is a URL as people write one: a scheme (`https://…`, `about:blank`), a path (`/account`),
 * a host with a dot (`example.com`, `gov.uk/apply`) or a variable standing for one. Quoting a word does not
 * make it a URL: `open "Privacy"` names a link.
 */
export const looksLikeUrl = (token: ActionToken): boolean => {
  const raw = token.raw.trim();
  const head = token.template[0];
  if (head !== undefined && 'variable' in head) return true;
  if (/\s/.test(raw)) return false;
  return (
    /^(https?:\/\/\S|\/|about:blank$)/i.test(raw) ||
    (/^[^\s/:]+\.[a-z]{2,}(?:[:/?#]|$)/i.test(raw) && !raw.endsWith('.'))
  );
};

type Reader = (tokens: readonly ActionToken[]) => ParsedAction | undefined;

function readGoto(tokens: readonly ActionToken[]): ParsedAction | undefined {
  const only = tokens.length === 1 ? tokens[0] : undefined;
  if (!only || !looksLikeUrl(only)) return undefined;
  return { op: 'goto', url: only.template };
}

/** "open <url>", else "open the Privacy page" / "open Privacy": a link or button with that name (never a guessed URL). */
function readOpen(tokens: readonly ActionToken[]): ParsedAction | undefined {
  const url = readGoto(tokens);
  if (url) return url;
  let rest = tokens;
  let pageWord = false;
  if (rest.length > 1 && startsWithWords(rest, rest.length - 1, ['page'])) {
    rest = rest.slice(0, -1);
    pageWord = true;
  }
  const target = parseTarget(rest);
  if (!target) return undefined;
  return {
    op: 'click',
    target: pageWord || target.quoted ? { ...target, kind: target.kind === 'any' ? 'navigable' : target.kind } : target,
  };
}

function readClick(tokens: readonly ActionToken[]): ParsedAction | undefined {
  const target = parseTarget(tokens);
  return target && { op: 'click', target };
}

function readPress(tokens: readonly ActionToken[]): ParsedAction | undefined {
  const split = findWord(tokens, ['in', 'on', 'into', 'inside'], 1, tokens.length);
  const keyTokens = split >= 0 ? tokens.slice(0, split) : tokens;
  const key = keyTokens.every((t) => !t.quoted || keyTokens.length === 1)
    ? keyName(keyTokens.map((t) => t.raw).join(' '))
    : undefined;
  if (key !== undefined) {
    if (split < 0) return { op: 'press', key };
    const target = parseTarget(tokens.slice(split + 1), 'any');
    return target && { op: 'press', key, target };
  }
  return readClick(tokens);
}

/** "type V into T", "enter V in T", "fill T with V", "fill in T with V", "set T to V". */
function readFill(tokens: readonly ActionToken[], verb: string): ParsedAction | undefined {
  if (verb === 'fill' || verb === 'set') {
    const withAt = findWord(tokens, verb === 'set' ? ['to'] : ['with'], 1, tokens.length, true);
    if (withAt > 0 && withAt < tokens.length - 1) {
      const target = parseTarget(tokens.slice(0, withAt), 'field');
      return target && { op: 'fill', text: tokensTemplate(tokens.slice(withAt + 1)), target };
    }
    if (verb === 'set') return undefined;
  }
  let split = findWord(tokens, ['into', 'inside'], 1, tokens.length);
  if (split < 0) split = findWord(tokens, ['in'], 1, tokens.length, true);
  if (split < 1 || split >= tokens.length - 1) return undefined;
  const target = parseTarget(tokens.slice(split + 1), 'field');
  return target && { op: 'fill', text: tokensTemplate(tokens.slice(0, split)), target };
}

/** "select O from T" / "choose O in|for T" (T a dropdown or a question's group); alone ("select Yes"), the option or radio button named so. */
function readSelect(tokens: readonly ActionToken[]): ParsedAction | undefined {
  // "from" is never part of an option; "for" introduces a question that may itself contain "in".
  let split = findWord(tokens, ['from'], 1, tokens.length, true);
  if (split < 0) split = findWord(tokens, ['for'], 1, tokens.length);
  if (split < 0) split = findWord(tokens, ['in'], 1, tokens.length, true);
  if (split >= 1 && split < tokens.length - 1) {
    const target = parseTarget(tokens.slice(split + 1), 'dropdown');
    let optionTokens = tokens.slice(0, split);
    if (optionTokens.length > 1 && findWord(optionTokens, ARTICLES, 0, 1) === 0) optionTokens = optionTokens.slice(1);
    if (optionTokens.length > 1 && startsWithWords(optionTokens, optionTokens.length - 1, ['option']))
      optionTokens = optionTokens.slice(0, -1);
    return target && { op: 'select', option: tokensTemplate(optionTokens), target };
  }
  const target = parseTarget(tokens, 'choice');
  return target && { op: 'check', checked: true, target };
}

function readCheck(checked: boolean): Reader {
  return (tokens) => {
    const target = parseTarget(tokens, 'choice');
    return target && { op: 'check', checked, target };
  };
}

function readHover(tokens: readonly ActionToken[]): ParsedAction | undefined {
  const target = parseTarget(tokens);
  return target && { op: 'hover', target };
}

function readScroll(tokens: readonly ActionToken[]): ParsedAction | undefined {
  let from = 0;
  if (startsWithWords(tokens, 0, ['down']) || startsWithWords(tokens, 0, ['up'])) {
    const direction = tokens[0]?.lower === 'up' ? 'up' : 'down';
    if (
      tokens.length === 1 ||
      (tokens.length <= 3 &&
        findWord(tokens, ['page', 'the'], 1, tokens.length) >= 1 &&
        tokens.at(-1)?.lower === 'page')
    )
      return { op: 'scroll', direction };
    from = 1;
  }
  if (!startsWithWords(tokens, from, ['to'])) return undefined;
  const rest = tokens.slice(from + 1);
  const words = rest.map((t) => (t.quoted ? '\u0000' : t.lower)).join(' ');
  if (['the bottom', 'bottom', 'the bottom of the page', 'the end', 'the end of the page'].includes(words))
    return { op: 'scroll', direction: 'bottom' };
  if (['the top', 'top', 'the top of the page'].includes(words)) return { op: 'scroll', direction: 'top' };
  const target = parseTarget(rest);
  return target && { op: 'scroll_to', target };
}

const APPEAR_TAILS: ReadonlyArray<readonly string[]> = [
  ['to', 'appear'],
  ['appears'],
  ['is', 'visible'],
  ['to', 'be', 'visible'],
  ['shows'],
  ['is', 'shown'],
  ['to', 'show'],
];

function readWait(tokens: readonly ActionToken[]): ParsedAction | undefined {
  let rest = tokens;
  for (const tail of APPEAR_TAILS) {
    if (rest.length > tail.length && startsWithWords(rest, rest.length - tail.length, tail)) {
      rest = rest.slice(0, rest.length - tail.length);
      break;
    }
  }
  if (rest.length > 1 && startsWithWords(rest, 0, ['the', 'text'])) rest = rest.slice(2);
  else if (rest.length > 1 && startsWithWords(rest, 0, ['text'])) rest = rest.slice(1);
  if (rest.length === 0) return undefined;
  return { op: 'wait_for_text', text: tokensTemplate(rest) };
}

const WHOLE_PAGE = [
  'page',
  'the page',
  'the whole page',
  'the entire page',
  'the page text',
  'page text',
  'the text of the page',
  'the text on the page',
  'all text',
  'all the text',
  "the page's text",
];

/** "extract T", "read the text of T"; `get` needs the "the text of" lead ("get rid of …" is not an extract). */
function readExtract(tokens: readonly ActionToken[], needsLead = false): ParsedAction | undefined {
  const words = tokens.map((t) => (t.quoted ? '\u0000' : t.lower)).join(' ');
  if (WHOLE_PAGE.includes(words)) return { op: 'extract' };
  let rest = tokens;
  const leadLength = rest.length;
  for (const lead of [
    ['the', 'text', 'of'],
    ['the', 'text', 'from'],
    ['the', 'text', 'in'],
    ['text', 'of'],
    ['text', 'from'],
    ['the', 'value', 'of'],
    ['the', 'contents', 'of'],
    ['the', 'content', 'of'],
  ]) {
    if (rest.length > lead.length && startsWithWords(rest, 0, lead)) {
      rest = rest.slice(lead.length);
      break;
    }
  }
  if (needsLead && rest.length === leadLength) return undefined;
  const target = parseTarget(rest);
  return target && { op: 'extract', target };
}

/** Verb phrases, longest first within a first word; each reads the tokens after it. */
const VERBS: ReadonlyArray<readonly [readonly string[], Reader]> = [
  [['go', 'to'], readGoto],
  [['navigate', 'to'], readGoto],
  [['browse', 'to'], readGoto],
  [['visit'], readGoto],
  [['load'], readGoto],
  [['open'], readOpen],
  [['click', 'on'], readClick],
  [['click'], readClick],
  [['tap', 'on'], readClick],
  [['tap'], readClick],
  [['press', 'on'], readClick],
  [['press'], readPress],
  [['hit'], readPress],
  [['fill', 'in'], (t) => readFill(t, 'fill')],
  [['fill', 'out'], (t) => readFill(t, 'fill')],
  [['fill'], (t) => readFill(t, 'fill')],
  [['type'], (t) => readFill(t, 'type')],
  [['enter'], (t) => readFill(t, 'type')],
  [['input'], (t) => readFill(t, 'type')],
  [['write'], (t) => readFill(t, 'type')],
  [['put'], (t) => readFill(t, 'type')],
  [['set'], (t) => readFill(t, 'set')],
  [['select'], readSelect],
  [['choose'], readSelect],
  [['pick'], readSelect],
  [['check'], readCheck(true)],
  [['tick'], readCheck(true)],
  [['uncheck'], readCheck(false)],
  [['untick'], readCheck(false)],
  [['hover', 'over'], readHover],
  [['hover', 'on'], readHover],
  [['hover'], readHover],
  [['mouse', 'over'], readHover],
  [['move', 'the', 'mouse', 'over'], readHover],
  [['move', 'the', 'mouse', 'to'], readHover],
  [['scroll'], readScroll],
  [['wait', 'for'], readWait],
  [['wait', 'until'], readWait],
  [['extract'], (t) => readExtract(t)],
  [['read'], (t) => readExtract(t)],
  [['get'], (t) => readExtract(t, true)],
];

const POLITE = [['please'], ['now'], ['then']];

/** "what is the reference number?", "what's the date of birth", "what is shown as Status": read as extract. */
const QUESTIONS: ReadonlyArray<readonly string[]> = [
  ['what', 'is', 'shown', 'as'],
  ['what', 'is', 'shown', 'for'],
  ['what', 'is'],
  ["what's"],
  ['what’s'],
  ['whats'],
  ['what', 'are'],
  ['tell', 'me'],
  ['show', 'me'],
];

function readQuestion(tokens: readonly ActionToken[], start: number): ParsedAction | undefined {
  for (const phrase of QUESTIONS) {
    if (!startsWithWords(tokens, start, phrase)) continue;
    let rest = tokens.slice(start + phrase.length);
    const last = rest.at(-1);
    if (last && !last.quoted && last.raw === '?') rest = rest.slice(0, -1);
    else if (last && !last.quoted && last.raw.length > 1 && last.raw.endsWith('?')) {
      const raw = last.raw.replace(/\?+$/, '');
      rest = [...rest.slice(0, -1), { ...last, raw, lower: raw.toLowerCase(), template: parseTemplate(raw) }];
    }
    if (rest.length === 0) return undefined;
    return readExtract(rest);
  }
  return undefined;
}

/**
 * Reads one imperative action into an operation and target; undefined when the sentence is not one
 * this grammar knows (the caller may then ask a model). Throws ActionSyntaxError on a broken `{{…}}`.
 * Linear in the action's length: one tokenizing pass, then keyword scans over the tokens.
 */
export function parseAction(text: string): ParsedAction | undefined {
  let tokens = tokenize(text);
  const last = tokens.at(-1);
  if (last && !last.quoted && last.raw.length > 1 && /[.!]$/.test(last.raw)) {
    const raw = last.raw.slice(0, -1);
    tokens = [...tokens.slice(0, -1), { ...last, raw, lower: raw.toLowerCase(), template: parseTemplate(raw) }];
  }
  let start = 0;
  while (POLITE.some((w) => startsWithWords(tokens, start, w))) start += 1;
  for (const [phrase, read] of VERBS) {
    if (!startsWithWords(tokens, start, phrase)) continue;
    const rest = tokens.slice(start + phrase.length);
    if (rest.length === 0) continue;
    const parsed = read(rest);
    if (parsed) return parsed;
  }
  return readQuestion(tokens, start);
}

/** Every variable an action refers to (for the cache key and the up-front missing-variable check). */
export function actionVariables(text: string): string[] {
  return templateVariables(tokenize(text).flatMap((t) => t.template));
}
