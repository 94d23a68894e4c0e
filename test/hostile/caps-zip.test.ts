import { createWriteStream } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { jsonOf, startService, type TestService } from '../helpers/service.ts';

const MIB = 1024 * 1024;
const SKILL_MD = Buffer.from('---\nname: zeros\ndescription: A skill that is mostly zeros.\n---\n# zeros\n');

/** A well-formed zip built by yazl (the way a real zipper would), read back whole. */
async function yazlZip(dir: string, entries: readonly { name: string; data: Buffer }[]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const entry of entries) zip.addBuffer(entry.data, entry.name);
  zip.end();
  const file = join(dir, `zip-${Math.random().toString(36).slice(2)}.zip`);
  await pipeline(zip.outputStream, createWriteStream(file));
  return readFile(file);
}

function zerosSkill(files: number): { name: string; data: Buffer }[] {
  const mib = Buffer.alloc(MIB);
  return [
    { name: 'SKILL.md', data: SKILL_MD },
    ...Array.from({ length: files }, (_, i) => ({ name: `zeros/${i}.bin`, data: mib })),
  ];
}

function form(zip: Buffer, filename: string): FormData {
  const data = new FormData();
  data.append('file', new Blob([new Uint8Array(zip)], { type: 'application/zip' }), filename);
  return data;
}

async function entries(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch {
    return [];
  }
}

describe('skill zips that would take more than they declare', () => {
  let svc: TestService;
  let work: string;
  const upload = async (zip: Buffer, filename: string) =>
    jsonOf(await svc.api('/skills/default?folder=caps', { method: 'POST', body: form(zip, filename) }));
  /** Nothing of a refused upload is left: no skill folder, no temp file, no row. */
  const expectNothingKept = async () => {
    expect(await entries(join(svc.dataDir, 'skills'))).toEqual([]);
    expect(
      await entries(join(svc.dataDir, 'tmp')).then((names) => names.filter((name) => /^(upload|skill)-/.test(name))),
    ).toEqual([]);
    expect((await jsonOf(await svc.api('/skills/default'))).body).toEqual([]);
  };

  beforeAll(async () => {
    svc = await startService();
    work = svc.dataDir;
  });
  afterAll(() => svc.dispose());

  it('1,000 files of 1 MiB of zeros in a 1.1 MB zip (each under the per-file ratio floor) are refused before a byte is written', async () => {
    const zip = await yazlZip(work, zerosSkill(1000));
    expect(zip.length).toBeLessThan(1.5 * MIB);
    const { status, body } = await upload(zip, 'bomb.zip');
    expect(status).toBe(422);
    expect(body).toEqual({
      detail: expect.stringMatching(
        /^Skill zip rejected: the archive declares more than \d+ uncompressed bytes in total$/,
      ),
    });
    await expectNothingKept();
  });

  it('100 such files (100 MiB, under the total cap) are refused by the whole-archive compression ratio', async () => {
    const { status, body } = await upload(await yazlZip(work, zerosSkill(100)), 'ratio.zip');
    expect(status).toBe(422);
    expect(body).toEqual({
      detail: expect.stringMatching(
        /^Skill zip rejected: the archive has a suspicious compression ratio \(\d+ bytes from \d+ compressed, \d+:1; the limit is 100:1/,
      ),
    });
    await expectNothingKept();
  });

  it('an entry name of 300 characters is a 422 naming the entry, not a 500', async () => {
    const name = `${'n'.repeat(300)}.txt`;
    const { status, body } = await upload(
      await yazlZip(work, [
        { name: 'SKILL.md', data: SKILL_MD },
        { name, data: Buffer.from('x') },
      ]),
      'long-name.zip',
    );
    expect(status).toBe(422);
    expect(body).toEqual({
      detail: expect.stringMatching(
        /^Skill zip rejected: entry 'n{200}…' has a file or folder name longer than 255 bytes$/,
      ),
    });
    await expectNothingKept();
  });

  it('an entry path over 4,096 characters (short folder names) is a 422, not a 500', async () => {
    const name = `${Array.from({ length: 900 }, () => 'abcd').join('/')}/file.txt`;
    expect(name.length).toBeGreaterThan(4096);
    const { status, body } = await upload(
      await yazlZip(work, [
        { name: 'SKILL.md', data: SKILL_MD },
        { name, data: Buffer.from('x') },
      ]),
      'long-path.zip',
    );
    expect(status).toBe(422);
    expect(body).toEqual({
      detail: expect.stringMatching(/^Skill zip rejected: entry 'abcd\/abcd.*…' has a path longer than 1024 bytes$/),
    });
    await expectNothingKept();
  });

  it('a normal skill with a long but reasonable path still uploads', async () => {
    const name = `${Array.from({ length: 20 }, (_, i) => `folder-${i}`).join('/')}/${'f'.repeat(200)}.txt`;
    const { status } = await upload(
      await yazlZip(work, [
        { name: 'SKILL.md', data: SKILL_MD },
        { name, data: Buffer.from('fine') },
      ]),
      'deep.zip',
    );
    expect(status).toBe(200);
  });
});
