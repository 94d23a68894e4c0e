// Text normalisation shared by field matching, option matching and result extraction.
// Phrases collapse to one concept token so `dob`, "Date of birth" and `birth_date` compare equal
// (the phrase list is the lexicon's FIELD_CONCEPTS).

import { FIELD_CONCEPTS } from './lexicon.ts';

// Filler words of labels, keys and questions ("What is your…", "When did you…"); compared before stemming.
const STOPWORDS = new Set([
  'your',
  'the',
  'a',
  'an',
  'of',
  'please',
  'enter',
  'select',
  'choose',
  'what',
  'is',
  'are',
  'optional',
  'required',
  'eg',
  'e',
  'g',
  'for',
  'example',
  'my',
  'you',
  'do',
  'to',
  'in',
  'field',
  'input',
  'this',
  'which',
  'provide',
  'type',
  'when',
  'did',
  'does',
  'how',
  'that',
  'would',
  'like',
  'we',
  'us',
  'can',
  'will',
  'i',
  'me',
  'be',
  'been',
  'if',
  'it',
  'its',
  'at',
  'on',
  'with',
  'by',
  'from',
  'as',
  'our',
  'was',
  'were',
  'tell',
  'give',
]);

// Phrases by their first word, longest first, so "address line 1" wins over "address".
const PHRASES = new Map<string, Array<[string[], string]>>();
for (const [concept, phrases] of FIELD_CONCEPTS) {
  for (const phrase of phrases) {
    const parts = phrase.split(' ');
    const list = PHRASES.get(parts[0] as string) ?? [];
    list.push([parts, concept]);
    PHRASES.set(parts[0] as string, list);
  }
}
for (const list of PHRASES.values()) list.sort((a, b) => b[0].length - a[0].length);

const SYMBOL_WORDS: Record<string, string> = { '£': ' gbp ', $: ' usd ', '€': ' eur ', '%': ' percent ' };

/**
 * Lowercase words of `text` in any script: camelCase, snake_case, kebab, dots and brackets all
 * split; accents dropped (letters without a decomposition, like "ø", stay as they are); currency
 * and percent signs become words.
 */
export function words(text: string): string[] {
  return text
    .replace(/[£$€%]/g, (c) => SYMBOL_WORDS[c] ?? ' ')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{L})(\p{N})/gu, '$1 $2')
    .toLowerCase()
    .replace(/e-mail/g, 'email')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

const IRREGULAR: Record<string, string> = {
  has: 'have',
  having: 'have',
  had: 'have',
  does: 'do',
  children: 'child',
  people: 'person',
};

/**
 * A crude stem so "topics" ~ "topic", "moved" ~ "moving" ~ "move" and "has" ~ "have"; both sides of a
 * comparison get the same treatment, so the stems need not be words.
 */
function stem(word: string): string {
  let w = IRREGULAR[word] ?? word;
  if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 4 && (w.endsWith('ies') || w.endsWith('ied'))) w = `${w.slice(0, -3)}y`;
  else if (w.length > 4 && w.endsWith('ed')) w = w.slice(0, -2);
  else if (w.length > 6 && w.endsWith('al')) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us')) w = w.slice(0, -1);
  return w.length > 3 && w.endsWith('e') ? w.slice(0, -1) : w;
}

/** Words with synonym phrases collapsed to concept tokens and filler words removed. */
export function conceptTokens(text: string): string[] {
  let out = tokenCache.get(text);
  if (out) return out;
  out = computeConceptTokens(text);
  // Matching compares the same few hundred texts many times per page; a bounded memo keeps that cheap.
  if (tokenCache.size >= 20_000) tokenCache.clear();
  tokenCache.set(text, out);
  return out;
}

const tokenCache = new Map<string, string[]>();

function computeConceptTokens(text: string): string[] {
  const list = words(text);
  const out: string[] = [];
  for (let i = 0; i < list.length; ) {
    const word = list[i] as string;
    const phrase = PHRASES.get(word)?.find(([parts]) => parts.every((w, k) => list[i + k] === w));
    if (phrase) {
      out.push(phrase[1]);
      i += phrase[0].length;
      continue;
    }
    if (!STOPWORDS.has(word)) out.push(stem(word));
    i += 1;
  }
  // A field called just "Name" means the full name.
  if (out.length === 1 && out[0] === stem('name')) return ['fullname'];
  return out;
}

/** Similarity in [0, 1] of two texts after concept normalisation (F-measure on tokens, exact = 1). */
export function textSimilarity(a: string, b: string, weigh: TokenWeight = () => 1): number {
  const ta = conceptTokens(a);
  const tb = conceptTokens(b);
  if (!ta.length || !tb.length) return 0;
  if (ta.join(' ') === tb.join(' ')) return 1;
  const setA = new Set(ta);
  const setB = new Set(tb);
  const common = [...setA].filter((t) => setB.has(t));
  if (!common.length) return 0;
  const sum = (tokens: Iterable<string>): number => [...tokens].reduce((n, t) => n + weigh(t), 0);
  const recall = sum(common) / sum(setA);
  const precision = sum(common) / sum(setB);
  // F2-like: recall of the key matters more; "Email" vs "Email (work)" is still a good match.
  return 0.9 * ((3 * recall * precision) / (2 * precision + recall));
}

/** How much a token counts in a comparison (1 each by default; see `pageTokenWeights`). */
export type TokenWeight = (token: string) => number;

/**
 * Token weights for one page, by rarity across its controls (inverse document frequency): a word
 * only one control has ("gift", "appointment") decides more than one every control has ("date",
 * "number"), and a key word no control has ("preferred") hardly counts, since it cannot tell the
 * controls apart.
 */
export function pageTokenWeights(controlTexts: string[][]): TokenWeight {
  const df = new Map<string, number>();
  for (const texts of controlTexts) {
    for (const token of new Set(texts.flatMap((t) => conceptTokens(t)))) df.set(token, (df.get(token) ?? 0) + 1);
  }
  const n = Math.max(1, controlTexts.length);
  return (token) => {
    const count = df.get(token) ?? 0;
    return count === 0 ? 0.35 : 1 + Math.log(n / count);
  };
}

/** Loose form for option comparisons: lowercase, accents and punctuation dropped, single spaces. */
export function loose(text: string): string {
  return words(text).join(' ');
}
