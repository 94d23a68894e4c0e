/**
 * The canonical text of a webhook body (local-service.md §4): keys sorted by code point, `,` and `:`
 * separators, every non-ASCII character escaped as \uXXXX, numbers written as Python writes them.
 * It is a fixed point of Python's `json.dumps(json.loads(text), sort_keys=True, separators=(",", ":"))`,
 * so a receiver that verifies the raw bytes and one that re-serializes get the same HMAC.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return pythonNumber(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'string') return pythonString(value);
  if (Array.isArray(value))
    return `[${value.map((item) => canonicalJson(item === undefined ? null : item)).join(',')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(
      ([, v]) => v !== undefined && typeof v !== 'function',
    );
    entries.sort(([a], [b]) => compareCodePoints(a, b));
    return `{${entries.map(([k, v]) => `${pythonString(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return 'null';
}

/** Python sorts str keys by code point; JavaScript's default sort compares UTF-16 units. */
function compareCodePoints(a: string, b: string): number {
  const ai = a[Symbol.iterator]();
  const bi = b[Symbol.iterator]();
  for (;;) {
    const x = ai.next();
    const y = bi.next();
    if (x.done || y.done) return x.done && y.done ? 0 : x.done ? -1 : 1;
    const cx = x.value.codePointAt(0) ?? 0;
    const cy = y.value.codePointAt(0) ?? 0;
    if (cx !== cy) return cx - cy;
  }
}

const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
};

/** A string as `json.dumps(ensure_ascii=True)` writes it: printable ASCII as is, the rest \uXXXX (lowercase hex, UTF-16 units). */
function pythonString(text: string): string {
  let out = '"';
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i] as string;
    const code = text.charCodeAt(i);
    const short = SHORT_ESCAPES[ch];
    if (short) out += short;
    else if (code < 0x20 || code > 0x7e) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/**
 * Integers (any magnitude) as plain digits, which Python reads back as int and writes unchanged.
 * Other finite numbers as Python's float repr: the shortest round-trip digits, positional for
 * exponents -4..15, otherwise `d.ddde±XX`. JSON has no NaN or Infinity: they become null.
 */
function pythonNumber(value: number): string {
  if (!Number.isFinite(value)) return 'null';
  if (Number.isInteger(value)) return BigInt(value).toString();
  const [mantissa = '0', exp = '0'] = value.toExponential().split('e');
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '').replace('.', '');
  const exponent = Number(exp);
  let text: string;
  if (exponent >= -4 && exponent < 16) {
    if (exponent < 0) text = `0.${'0'.repeat(-exponent - 1)}${digits}`;
    else {
      const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, '0');
      const fraction = digits.slice(exponent + 1);
      text = `${whole}.${fraction || '0'}`;
    }
  } else {
    const rest = digits.slice(1);
    const magnitude = String(Math.abs(exponent)).padStart(2, '0');
    text = `${digits[0]}${rest ? `.${rest}` : ''}e${exponent < 0 ? '-' : '+'}${magnitude}`;
  }
  return negative ? `-${text}` : text;
}
