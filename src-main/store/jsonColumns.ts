import { deepFreeze } from '../base/deepFreeze.ts';
/**
 * JSON columns read often and written rarely (a portal's schemas, a job's events) are parsed once per
 * distinct text: a list of 20 portals polled by a client otherwise parses every form_schema on every
 * request. The parsed value is shared between readers, so it is deep-frozen — a reader that tried to
 * change it would throw rather than change what the next request sees. The least recently used texts
 * are dropped past a budget of characters (and texts over a size limit are parsed each time).
 */
export class ParsedJsonCache {
  readonly #entries = new Map<string, unknown>();
  readonly #maxChars: number;
  readonly #maxTextChars: number;
  #chars = 0;

  constructor(options: { maxChars?: number; maxTextChars?: number } = {}) {
    this.#maxChars = options.maxChars ?? 4 * 1024 * 1024;
    this.#maxTextChars = options.maxTextChars ?? 64 * 1024;
  }

  /** `JSON.parse(text)`, frozen; the same text gives the same (frozen) value until it is dropped. */
  parse<T>(text: string): T {
    const hit = this.#entries.get(text);
    if (hit !== undefined) {
      this.#entries.delete(text);
      this.#entries.set(text, hit);
      return hit as T;
    }
    const value = deepFreeze(JSON.parse(text) as unknown);
    if (text.length > this.#maxTextChars) return value as T;
    this.#entries.set(text, value);
    this.#chars += text.length;
    while (this.#chars > this.#maxChars) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
      this.#chars -= oldest.length;
    }
    return value as T;
  }

  /** How many texts are held (tests). */
  get size(): number {
    return this.#entries.size;
  }
}
