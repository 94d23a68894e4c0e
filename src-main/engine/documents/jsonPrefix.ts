type State = 'value' | 'value-or-close' | 'key' | 'key-or-close' | 'colon' | 'comma-or-close' | 'done';

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);

/**
 * Whether `text` is JSON (`whole`: the entire file) or the start of a JSON text (a prefix cut anywhere,
 * even inside a string, number or literal). One pass, no values built: it only follows the grammar.
 */
export function isJsonText(text: string, whole: boolean): boolean {
  const stack: ('{' | '[')[] = [];
  let state = 'value' as State;
  let i = 0;
  // Set when the text ends inside a string, number or literal.
  let cut = false;
  const end = text.length;
  const afterValue = (): void => {
    state = stack.length === 0 ? 'done' : 'comma-or-close';
  };
  /** The index after the string starting at `start` (a quote), `end` when cut off, -1 when invalid. */
  const skipString = (start: number): number => {
    for (let j = start + 1; j < end; j += 1) {
      const c = text[j] ?? '';
      if (c === '"') return j + 1;
      if (c < ' ') return -1;
      if (c !== '\\') continue;
      const escaped = text[j + 1];
      if (escaped === undefined) {
        cut = true;
        return end;
      }
      if (escaped === 'u') {
        const hex = text.slice(j + 2, j + 6);
        if (!/^[0-9a-fA-F]*$/.test(hex)) return -1;
        if (hex.length < 4) {
          cut = true;
          return end;
        }
        j += 5;
      } else if (ESCAPES.has(escaped)) {
        j += 1;
      } else {
        return -1;
      }
    }
    cut = true;
    return end;
  };
  /** The index after the scalar (number or literal) at `i`, `end` when cut off, -1 when invalid. */
  const skipScalar = (): number => {
    const c = text[i] ?? '';
    if (c === 't' || c === 'f' || c === 'n') {
      const word = c === 't' ? 'true' : c === 'f' ? 'false' : 'null';
      const seen = text.slice(i, i + word.length);
      if (seen === word) return i + word.length;
      if (i + seen.length === end && word.startsWith(seen)) {
        cut = true;
        return end;
      }
      return -1;
    }
    NUMBER.lastIndex = i;
    const match = NUMBER.exec(text);
    const after = match && match[0].length > 0 ? i + match[0].length : i;
    // A number cut off mid-way ("-", "1.", "2e") is still the start of one.
    if (!whole && /^[-+.eE\d]+$/.test(text.slice(i))) {
      cut = true;
      return end;
    }
    return after > i ? after : -1;
  };
  while (i < end) {
    const c = text[i] ?? '';
    if (WHITESPACE.has(c)) {
      i += 1;
      continue;
    }
    switch (state) {
      case 'done':
        return false;
      case 'colon':
        if (c !== ':') return false;
        state = 'value';
        i += 1;
        continue;
      case 'comma-or-close': {
        const top = stack[stack.length - 1];
        if (c === ',') state = top === '{' ? 'key' : 'value';
        else if ((c === '}' && top === '{') || (c === ']' && top === '[')) {
          stack.pop();
          afterValue();
        } else return false;
        i += 1;
        continue;
      }
      case 'key-or-close':
      case 'key':
        if (c === '}' && state === 'key-or-close') {
          stack.pop();
          afterValue();
          i += 1;
          continue;
        }
        if (c !== '"') return false;
        i = skipString(i);
        if (i < 0) return false;
        state = 'colon';
        continue;
      case 'value-or-close':
      case 'value':
        if (c === ']' && state === 'value-or-close') {
          stack.pop();
          afterValue();
          i += 1;
        } else if (c === '{' || c === '[') {
          stack.push(c);
          state = c === '{' ? 'key-or-close' : 'value-or-close';
          i += 1;
        } else if (c === '"') {
          i = skipString(i);
          if (i < 0) return false;
          afterValue();
        } else {
          i = skipScalar();
          if (i < 0) return false;
          afterValue();
        }
        continue;
    }
  }
  // A prefix may stop anywhere; a whole file must be one finished value.
  return whole ? !cut && state === 'done' : true;
}
