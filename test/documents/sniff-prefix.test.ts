// tier: unit
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCUMENT_MAX_FILE_BYTES, DOCUMENT_MAX_FILES } from '../../src-main/contract/document.ts';
import { isJsonText } from '../../src-main/engine/documents/jsonPrefix.ts';
import { JSON_SNIFF_BYTES, sniffContentType } from '../../src-main/engine/documents/sniff.ts';

/** A JSON array of numbers just under the per-file limit (what once held the service's thread for seconds), its end as given. */
function bigJson(end: string): Buffer {
  const data = Buffer.alloc(DOCUMENT_MAX_FILE_BYTES - 1024, '1234567,');
  data.write('[', 0);
  data.write(end, data.length - end.length);
  return data;
}

describe('the type sniff reads a bounded prefix, never the whole file (issue 21, item 7)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-sniff-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it(`sniffing a bundle's worth of 50 MB JSON files (${DOCUMENT_MAX_FILES}) never holds the event loop for 100 ms of CPU`, async () => {
    const file = join(dir, 'big.json');
    await writeFile(file, bigJson('1]'));
    // The most CPU this thread spent between two 5 ms ticks while the files were sniffed one after another:
    // CPU time, not wall time, so a loaded machine stretching the gaps cannot fail it, while reading and
    // parsing a whole 50 MB file on this thread (hundreds of ms of CPU in one piece) still does.
    let last = process.threadCpuUsage();
    let maxGap = 0;
    const ticker = setInterval(() => {
      const now = process.threadCpuUsage();
      maxGap = Math.max(maxGap, (now.user - last.user + now.system - last.system) / 1000);
      last = now;
    }, 5);
    const types: string[] = [];
    try {
      for (let i = 0; i < DOCUMENT_MAX_FILES; i += 1)
        types.push(await sniffContentType(file, `big-${i}.json`, 'application/json'));
      await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      clearInterval(ticker);
    }
    expect(types).toEqual(Array.from({ length: DOCUMENT_MAX_FILES }, () => 'application/json'));
    expect(maxGap).toBeLessThan(100);
  });

  it('a long file is JSON when its first 64 KiB are the start of JSON (the reader, in its worker, judges the rest); a short one must be whole', async () => {
    const cut = join(dir, 'cut.json');
    await writeFile(cut, bigJson('1,'));
    expect(await sniffContentType(cut, 'cut.json', 'application/json')).toBe('application/json');
    const broken = join(dir, 'broken.json');
    await writeFile(broken, `{"a": [1, 2}${' '.repeat(JSON_SNIFF_BYTES)}`);
    expect(await sniffContentType(broken, 'broken.json', 'application/json')).toBe('text/plain');
    const short = join(dir, 'short.json');
    await writeFile(short, '{"a": [1, 2]');
    expect(await sniffContentType(short, 'short.json', 'application/json')).toBe('text/plain');
    await writeFile(short, '\uFEFF{"a": [1, 2, {"b": "x\\u00e9"}], "c": null}\n');
    expect(await sniffContentType(short, 'short.json', 'text/plain')).toBe('application/json');
  });

  it('the JSON grammar check agrees with JSON.parse on whole texts and accepts any cut of a valid one', () => {
    const valid = '{"a":[{"b":null},false,true,-1.5e3,0,"s\\n\\u00e9"],"c":{}}';
    expect(isJsonText(valid, true)).toBe(true);
    for (let n = 1; n < valid.length; n += 1) {
      expect(isJsonText(valid.slice(0, n), false), valid.slice(0, n)).toBe(true);
      expect(isJsonText(valid.slice(0, n), true), valid.slice(0, n)).toBe(false);
    }
    for (const bad of [
      '{a:1}',
      '[1,]',
      '[01]',
      '{"a" 1}',
      '[1}',
      '{"a":"\\q"}',
      '[1] x',
      '{"a":trux}',
      '[-]',
      '{"a":1}}',
    ]) {
      expect(() => JSON.parse(bad), bad).toThrow();
      expect(isJsonText(bad, true), bad).toBe(false);
      expect(isJsonText(bad, false), bad).toBe(false);
    }
  });
});
