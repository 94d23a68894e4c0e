import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src-main/webhooks/canonicalJson.ts';

/** Python's own answer: json.dumps(json.loads(text), sort_keys=True, separators=(",", ":")). */
function pythonReserialize(texts: string[]): string[] {
  const script =
    'import json,sys\nfor line in sys.stdin.read().split("\\n\\x1e\\n"):\n    print(json.dumps(json.loads(line), sort_keys=True, separators=(",", ":")))';
  return execFileSync('python3', ['-c', script], { input: texts.join('\n\x1e\n'), encoding: 'utf8' })
    .trimEnd()
    .split('\n');
}

function randomDouble(seed: number): number {
  const view = new DataView(new ArrayBuffer(8));
  let x = seed;
  for (let i = 0; i < 8; i += 1) {
    x = (x * 1103515245 + 12345) >>> 0;
    view.setUint8(i, x >>> 16);
  }
  return view.getFloat64(0);
}

describe('canonicalJson', () => {
  it('sorts keys, uses compact separators and escapes non-ASCII', () => {
    expect(canonicalJson({ b: 1, a: [true, null, 'x'], é: 'ü' })).toBe(
      '{"a":[true,null,"x"],"b":1,"\\u00e9":"\\u00fc"}',
    );
    expect(canonicalJson({ s: 'line\n"q"\\ \t \u0001 \u007f /' })).toBe(
      '{"s":"line\\n\\"q\\"\\\\ \\t \\u0001 \\u007f /"}',
    );
    expect(canonicalJson('😀')).toBe('"\\ud83d\\ude00"');
  });

  it('writes numbers as Python does', () => {
    const cases: [number, string][] = [
      [0, '0'],
      [-0, '0'],
      [5, '5'],
      [-12, '-12'],
      [0.1, '0.1'],
      [1.5, '1.5'],
      [1e-5, '1e-05'],
      [1.5e-7, '1.5e-07'],
      [0.0001, '0.0001'],
      [123.456, '123.456'],
      [1e21, '1000000000000000000000'],
      [2 ** 53 + 2, '9007199254740994'],
      // biome-ignore lint/correctness/noPrecisionLoss: literals beyond double precision are the case under test
      [1.2345678901234567e16, '12345678901234568'],
      // biome-ignore lint/correctness/noPrecisionLoss: literals beyond double precision are the case under test
      [1234567890123456.7, '1234567890123456.8'],
      [5e-324, '5e-324'],
      [1.7976931348623157e308, BigInt(1.7976931348623157e308).toString()],
      // biome-ignore lint/suspicious/noApproximativeNumericConstant: literal floats are the case under test, not π
      [3.141592653589793, '3.141592653589793'],
      [-2.5e-10, '-2.5e-10'],
      [1e16 + 2, '10000000000000002'],
    ];
    for (const [value, text] of cases) expect(canonicalJson(value), String(value)).toBe(text);
  });

  it("is a fixed point of Python's re-serialization for every kind of payload", () => {
    const payloads: unknown[] = [
      {
        text: 'Grüße, 東京, مرحبا, Ελληνικά, עברית, हिन्दी, 😀👩‍👩‍👧‍👦🏳️‍🌈',
        nested: { deep: [{ z: 1, a: 2, Ä: 3, 'a\u0000b': 4 }] },
      },
      { keys: { '\uffff': 1, 𐀀: 2, z: 3, Z: 4, '': 5 } },
      { ints: [0, 1, -1, 42, 2 ** 31, -(2 ** 31), 2 ** 53, 2 ** 63, 1e20, 1e300, Number.MAX_SAFE_INTEGER] },
      { floats: Array.from({ length: 400 }, (_, i) => randomDouble(i + 1)).filter((n) => Number.isFinite(n)) },
      { smalls: [1e-4, 9.99e-5, 1e-7, 0.3, 2 / 3, 1 / 3, 1e15 + 0.3, 1e16 * 1.5, 123e-20, -0.000001] },
      { lone: '\ud800 and \udfff', controls: '\u0000\u0008\u000b\u001f', quotes: '"\'`' },
      [],
      {},
      'just a string',
      null,
    ];
    const texts = payloads.map((p) => canonicalJson(p));
    expect(pythonReserialize(texts)).toEqual(texts);
  });

  it('round-trips to the same value in JavaScript', () => {
    const value = { a: [1.5, -0.25, 1e-9, 12345678.875], s: 'ß😀', o: { y: null, x: false } };
    expect(JSON.parse(canonicalJson(value))).toEqual(value);
  });
});
