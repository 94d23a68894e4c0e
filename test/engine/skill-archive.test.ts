// tier: unit
import { createWriteStream, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { ValidationError } from '../../src-main/base/errors.ts';
import {
  DEFAULT_ZIP_LIMITS,
  extractZipSafely,
  type ZipLimits,
} from '../../src-main/engine/skills/safeZipExtraction.ts';
import { extractSkillArchive } from '../../src-main/engine/skills/skillArchive.ts';
import { parseSkillManifest } from '../../src-main/engine/skills/skillManifest.ts';
import { buildRawZip, unixAttributes, type RawZipEntry } from '../helpers/rawZip.ts';

const SKILL_MD = `---
name: pdf-tools
description: Fill and merge PDF forms.
license: MIT
metadata:
  author: portico
  version: "1.0"
---
# PDF tools

Use scripts/fill.py.
`;

let work: string;
let parent: string;
let dest: string;

beforeEach(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'skill-archive-'));
  parent = path.join(work, 'skills');
  await mkdir(parent);
  dest = path.join(parent, 'skill-1');
});

afterEach(async () => {
  await rm(work, { recursive: true, force: true });
});

type ZipContent = Record<string, string | Buffer | null>;

/** Builds a well-formed zip with yazl; a null value makes an empty directory entry. */
async function yazlZip(content: ZipContent, mode?: Record<string, number>): Promise<string> {
  const zip = new yazl.ZipFile();
  for (const [name, data] of Object.entries(content)) {
    if (data === null) zip.addEmptyDirectory(name);
    else zip.addBuffer(Buffer.from(data), name, mode?.[name] === undefined ? {} : { mode: mode[name] });
  }
  zip.end();
  const file = path.join(work, `upload-${Math.random().toString(36).slice(2)}.zip`);
  await pipeline(zip.outputStream, createWriteStream(file));
  return file;
}

async function rawZip(entries: RawZipEntry[]): Promise<string> {
  return writeZipBytes(buildRawZip(entries));
}

async function writeZipBytes(bytes: Buffer): Promise<string> {
  const file = path.join(work, `upload-${Math.random().toString(36).slice(2)}.zip`);
  await writeFile(file, bytes);
  return file;
}

type Extract = (zipFile: string, destDir: string) => Promise<unknown>;
const safely =
  (limits?: ZipLimits): Extract =>
  (zipFile, destDir) =>
    extractZipSafely(zipFile, destDir, { what: 'Skill zip', ...(limits && { limits }) });

/** Runs the extraction (the safe zip extraction by default) expecting a 422 and checks nothing (not even a temp dir) was left behind. */
async function expectRejected(
  zipFile: string,
  detail: RegExp,
  limits?: ZipLimits,
  extract: Extract = safely(limits),
): Promise<ValidationError> {
  const error = await extract(zipFile, dest).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ValidationError);
  const validation = error as ValidationError;
  expect(validation.status).toBe(422);
  expect(validation.detail).toMatch(detail);
  expect(await readdir(parent)).toEqual([]);
  return validation;
}

describe('extractSkillArchive: accepted archives', () => {
  it('extracts a skill with SKILL.md at the root, nested files with their exact contents, and parses the manifest', async () => {
    const script = Buffer.from('#!/usr/bin/env python3\nprint("fill")\n');
    const zip = await yazlZip(
      {
        'SKILL.md': SKILL_MD,
        'scripts/fill.py': script,
        'reference/forms/guide.md': '# Guide\n',
        'assets/': null,
      },
      { 'scripts/fill.py': 0o100755 },
    );

    const result = await extractSkillArchive(zip, dest);

    expect(result.fileCount).toBe(3);
    expect(result.totalBytes).toBe(Buffer.byteLength(SKILL_MD) + script.length + 8);
    expect(result.manifest).toMatchObject({
      name: 'pdf-tools',
      description: 'Fill and merge PDF forms.',
      license: 'MIT',
      metadata: { author: 'portico', version: '1.0' },
      path: 'SKILL.md',
    });
    expect(result.manifest?.body).toBe('# PDF tools\n\nUse scripts/fill.py.\n');
    expect(await readFile(path.join(dest, 'scripts', 'fill.py'))).toEqual(script);
    expect(await readFile(path.join(dest, 'reference', 'forms', 'guide.md'), 'utf8')).toBe('# Guide\n');
    expect((await stat(path.join(dest, 'assets'))).isDirectory()).toBe(true);
    if (process.platform !== 'win32') {
      expect((await stat(path.join(dest, 'scripts', 'fill.py'))).mode & 0o100).toBe(0o100);
    }
    expect(await readdir(parent)).toEqual(['skill-1']);
  });

  it('finds SKILL.md inside a single top-level folder that holds everything', async () => {
    const zip = await yazlZip({
      'my-skill/': null,
      'my-skill/SKILL.md': SKILL_MD,
      'my-skill/scripts/run.sh': 'echo hi\n',
    });

    const result = await extractSkillArchive(zip, dest);

    expect(result.manifest?.path).toBe('my-skill/SKILL.md');
    expect(result.manifest?.name).toBe('pdf-tools');
    expect(await readFile(path.join(dest, 'my-skill', 'scripts', 'run.sh'), 'utf8')).toBe('echo hi\n');
  });

  it("accepts a zip without SKILL.md (the interface asks for none): described by its README's first heading, else its first line, else empty", async () => {
    const headed = await extractSkillArchive(
      await yazlZip({ 'README.md': 'Some intro\n\n# Pay the water bill\n\nText.\n', 'a.txt': 'a' }),
      dest,
    );
    expect(headed).toMatchObject({ manifest: null, description: 'Pay the water bill', fileCount: 2 });
    await rm(dest, { recursive: true });
    const setext = await extractSkillArchive(
      await yazlZip({ 'tool/readme': 'Renew a passport\n================\nsteps\n', 'tool/x.js': '1' }),
      dest,
    );
    expect(setext.description).toBe('Renew a passport');
    await rm(dest, { recursive: true });
    const lineOnly = await extractSkillArchive(await yazlZip({ 'README.txt': '\n\n  just a line  \nmore\n' }), dest);
    expect(lineOnly.description).toBe('just a line');
    await rm(dest, { recursive: true });
    // A README beside other root content is still the root's; one in a folder next to root files is not looked at.
    const none = await extractSkillArchive(await yazlZip({ 'a/README.md': '# Not this', 'b.txt': 'x' }), dest);
    expect(none).toMatchObject({ manifest: null, description: '' });
    expect(await readFile(path.join(dest, 'a', 'README.md'), 'utf8')).toBe('# Not this');
    await rm(dest, { recursive: true });
    const long = await extractSkillArchive(await yazlZip({ 'README.md': `# ${'y'.repeat(5000)}\n` }), dest);
    expect(long.description).toBe('y'.repeat(1024));
  });

  it('a zip without SKILL.md gets every safety check: traversal, symlinks, bombs and bad CRCs are still refused, nothing written', async () => {
    const readme = { name: 'README.md', data: Buffer.from('# ok\n') };
    await expectRejected(
      await rawZip([readme, { name: '../escape.txt', data: Buffer.from('x') }]),
      /\.\.\/escape\.txt/,
      undefined,
      extractSkillArchive,
    );
    await expectRejected(
      await rawZip([
        readme,
        { name: 'link', data: Buffer.from('/etc/passwd'), method: 0, externalAttributes: unixAttributes(0o120777) },
      ]),
      /link/,
      undefined,
      extractSkillArchive,
    );
    await expectRejected(
      await rawZip([readme, { name: 'zeros.bin', data: Buffer.alloc(40 * 1024 * 1024) }]),
      /zeros\.bin/,
      undefined,
      extractSkillArchive,
    );
    await expectRejected(
      await rawZip([{ name: 'a.txt', data: Buffer.from('abc'), crc: 1234 }]),
      /a\.txt/,
      undefined,
      extractSkillArchive,
    );
  });

  it('a SKILL.md in a folder next to other root content is not the manifest: the zip is a skill without one', async () => {
    const result = await extractSkillArchive(await yazlZip({ 'a/SKILL.md': SKILL_MD, 'b.txt': 'x' }), dest);
    expect(result.manifest).toBeNull();
  });

  it('rejects a SKILL.md over 1 MiB before extracting it', async () => {
    const big = `${SKILL_MD}${'x'.repeat(1024 * 1024)}`;
    await expectRejected(
      await rawZip([{ name: 'SKILL.md', data: Buffer.from(big), method: 0 }]),
      /^Skill zip rejected: SKILL\.md is \d+ bytes; the limit is 1048576$/,
      undefined,
      extractSkillArchive,
    );
  });

  it('skips __MACOSX/ and .DS_Store entries, which also do not break single-folder detection', async () => {
    const zip = await yazlZip({
      'my-skill/SKILL.md': SKILL_MD,
      'my-skill/.DS_Store': 'junk',
      '.DS_Store': 'junk',
      '__MACOSX/my-skill/._SKILL.md': 'resource fork',
    });

    const result = await extractSkillArchive(zip, dest);

    expect(result.fileCount).toBe(1);
    expect(result.manifest?.path).toBe('my-skill/SKILL.md');
    expect(await readdir(dest)).toEqual(['my-skill']);
    expect(await readdir(path.join(dest, 'my-skill'))).toEqual(['SKILL.md']);
  });

  it('refuses to extract over an existing destination and leaves it untouched', async () => {
    await mkdir(dest);
    await writeFile(path.join(dest, 'keep.txt'), 'keep');
    await expect(extractSkillArchive(await yazlZip({ 'SKILL.md': SKILL_MD }), dest)).rejects.toThrow(/already exists/);
    expect(await readFile(path.join(dest, 'keep.txt'), 'utf8')).toBe('keep');
  });
});

describe('extractZipSafely: hooks', () => {
  it('extracts any safe zip (no SKILL.md needed), showing inspect every entry before writing', async () => {
    const seen: unknown[] = [];
    let onDiskAtInspect: string[] | undefined;
    const result = await extractZipSafely(
      await yazlZip({ 'docs/': null, 'docs/a.txt': 'hello', 'b.bin': Buffer.alloc(10, 1) }),
      dest,
      {
        inspect: (entries) => {
          seen.push(...entries);
          onDiskAtInspect = readdirSync(parent);
        },
      },
    );
    expect(onDiskAtInspect).toEqual([]);
    expect(result).toEqual({ fileCount: 2, totalBytes: 15 });
    expect(seen).toEqual([
      { path: 'docs', isDirectory: true, declaredBytes: 0 },
      { path: 'docs/a.txt', isDirectory: false, declaredBytes: 5 },
      { path: 'b.bin', isDirectory: false, declaredBytes: 10 },
    ]);
    expect(await readFile(path.join(dest, 'docs', 'a.txt'), 'utf8')).toBe('hello');
  });

  it('a verify hook that throws leaves nothing behind, its error passed on unchanged', async () => {
    const zip = await yazlZip({ 'a.txt': 'a' });
    await expectRejected(zip, /^checked and refused$/, undefined, (file, destDir) =>
      extractZipSafely(file, destDir, {
        verify: async (root) => {
          expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('a');
          throw new ValidationError('checked and refused');
        },
      }),
    );
  });

  it('names the archive as told in every rejection', async () => {
    await expectRejected(await writeZipBytes(Buffer.from('nope')), /^Skill zip rejected: not a valid zip archive/);
    const plain = await extractZipSafely(await writeZipBytes(Buffer.from('nope')), dest).catch(
      (error: unknown) => error,
    );
    expect((plain as ValidationError).detail).toMatch(/^Zip archive rejected: not a valid zip archive/);
  });
});

describe('extractZipSafely: rejected archives leave nothing on disk', () => {
  it('rejects a file that is not a zip', async () => {
    await expectRejected(await writeZipBytes(Buffer.from('definitely not a zip')), /not a valid zip archive/);
  });

  it('rejects an empty upload', async () => {
    await expectRejected(await writeZipBytes(Buffer.alloc(0)), /not a valid zip archive/);
  });

  it('rejects a truncated zip', async () => {
    const whole = await readFile(await yazlZip({ 'SKILL.md': SKILL_MD, 'b.txt': 'b'.repeat(1000) }));
    await expectRejected(await writeZipBytes(whole.subarray(0, whole.length - 40)), /not a valid zip archive/);
  });

  it('rejects an entry whose data is corrupt', async () => {
    const good = buildRawZip([{ name: 'a.txt', data: Buffer.from('hello world '.repeat(50)) }]);
    good.fill(0xff, 30 + 'a.txt'.length, 30 + 'a.txt'.length + 8);
    await expectRejected(await writeZipBytes(good), /entry 'a\.txt' is corrupt/);
  });

  it('rejects an entry whose CRC-32 does not match its data', async () => {
    await expectRejected(
      await rawZip([{ name: 'a.txt', data: Buffer.from('abc'), crc: 1234 }]),
      /entry 'a\.txt' is corrupt \(CRC-32 mismatch\)/,
    );
  });

  it.each([
    ['../evil.txt', /entry '\.\.\/evil\.txt' escapes the archive root/],
    ['skill/../../evil.txt', /entry 'skill\/\.\.\/\.\.\/evil\.txt' escapes the archive root/],
    ['/etc/passwd', /entry '\/etc\/passwd' is an absolute path/],
    ['C:/Windows/evil.dll', /entry 'C:\/Windows\/evil\.dll' is an absolute path/],
    ['C:\\Windows\\evil.dll', /entry 'C:\\Windows\\evil\.dll' contains a backslash/],
    ['\\\\server\\share\\evil', /contains a backslash/],
    ['..\\evil.txt', /entry '\.\.\\evil\.txt' contains a backslash/],
    ['ok\u0000.txt', /entry 'ok\\x00\.txt' contains a NUL byte/],
    ['notes.txt:hidden', /entry 'notes\.txt:hidden' has a name that is not portable/],
  ])('rejects the unsafe entry path %j', async (name, detail) => {
    await expectRejected(
      await rawZip([
        { name: 'SKILL.md', data: Buffer.from(SKILL_MD) },
        { name, data: Buffer.from('x') },
      ]),
      detail,
    );
  });

  it('rejects a symlink entry', async () => {
    const zip = await rawZip([
      { name: 'SKILL.md', data: Buffer.from(SKILL_MD) },
      { name: 'link', data: Buffer.from('/etc/passwd'), method: 0, externalAttributes: unixAttributes(0o120777) },
    ]);
    await expectRejected(zip, /entry 'link' is a symbolic link/);
  });

  it('rejects device and fifo entries', async () => {
    await expectRejected(
      await rawZip([{ name: 'dev', externalAttributes: unixAttributes(0o020644) }]),
      /entry 'dev' is not a regular file or directory/,
    );
    await expectRejected(
      await rawZip([{ name: 'pipe', externalAttributes: unixAttributes(0o010644) }]),
      /entry 'pipe' is not a regular file or directory/,
    );
  });

  it('rejects an encrypted entry', async () => {
    await expectRejected(
      await rawZip([{ name: 'secret.txt', data: Buffer.from('x'), flags: 0x1 }]),
      /entry 'secret\.txt' is encrypted/,
    );
  });

  it('rejects an unsupported compression method', async () => {
    await expectRejected(
      await rawZip([{ name: 'a.bz2', data: Buffer.from('x'), method: 12 }]),
      /entry 'a\.bz2' uses unsupported compression method 12/,
    );
  });

  it('rejects more entries than maxEntries', async () => {
    const zip = await yazlZip({ 'a.txt': 'a', 'b.txt': 'b', 'c.txt': 'c', 'd.txt': 'd' });
    await expectRejected(zip, /has 4 entries; the limit is 3/, { ...DEFAULT_ZIP_LIMITS, maxEntries: 3 });
  });

  it('rejects an entry whose declared size is over the per-file limit', async () => {
    const zip = await yazlZip({ 'big.bin': Buffer.alloc(2048, 7) });
    await expectRejected(zip, /entry 'big\.bin' declares 2048 bytes; the per-file limit is 1024/, {
      ...DEFAULT_ZIP_LIMITS,
      maxEntryUncompressedBytes: 1024,
    });
  });

  it('rejects archives whose declared sizes add up past the total limit', async () => {
    const zip = await yazlZip({ 'a.bin': Buffer.alloc(600), 'b.bin': Buffer.alloc(600) });
    await expectRejected(zip, /more than 1000 uncompressed bytes in total/, {
      ...DEFAULT_ZIP_LIMITS,
      maxTotalUncompressedBytes: 1000,
    });
  });

  it('rejects an honest zip bomb by its compression ratio before extracting anything', async () => {
    const zip = await rawZip([
      { name: 'SKILL.md', data: Buffer.from(SKILL_MD) },
      { name: 'zeros.bin', data: Buffer.alloc(50 * 1024 * 1024) },
    ]);
    await expectRejected(zip, /entry 'zeros\.bin' has a suspicious compression ratio \(\d+:1; the limit is 200:1\)/);
  });

  it('stops inflating a bomb whose header lies about its size as soon as the real bytes pass the declaration', async () => {
    const zip = await rawZip([
      { name: 'SKILL.md', data: Buffer.from(SKILL_MD) },
      { name: 'zeros.bin', data: Buffer.alloc(50 * 1024 * 1024), declaredUncompressedSize: 100 },
    ]);
    // The message can only come from the streaming guard: the headers alone look harmless.
    await expectRejected(zip, /entry 'zeros\.bin' inflates to more than the 100 bytes its header declares/);
  });

  it('rejects an entry that inflates to fewer bytes than declared', async () => {
    await expectRejected(
      await rawZip([{ name: 'a.txt', data: Buffer.from('abc'), declaredUncompressedSize: 10 }]),
      /entry 'a\.txt' is corrupt \(3 bytes, header declares 10\)/,
    );
  });

  it('rejects entries that share compressed data (overlapping-file bomb)', async () => {
    const zip = await rawZip([
      { name: 'a.txt', data: Buffer.from('payload') },
      { name: 'b.txt', shareDataWith: 0 },
    ]);
    await expectRejected(zip, /entries 'a\.txt' and 'b\.txt' overlap inside the archive/);
  });

  it('rejects duplicate paths, compared case-insensitively', async () => {
    await expectRejected(
      await rawZip([
        { name: 'a.txt', data: Buffer.from('1') },
        { name: 'a.txt', data: Buffer.from('2') },
      ]),
      /entry 'a\.txt' duplicates entry 'a\.txt'/,
    );
    await expectRejected(
      await yazlZip({ 'Docs/Readme.md': '1', 'docs/README.md': '2' }),
      /entry 'docs\/README\.md' duplicates entry 'Docs\/Readme\.md'/,
    );
    await expectRejected(await yazlZip({ 'a/./b.txt': '1', 'a/b.txt': '2' }), /duplicates/);
  });

  it('rejects a path that is both a file and a folder', async () => {
    await expectRejected(
      await yazlZip({ notes: 'file', 'notes/inner.txt': 'x' }),
      /entry 'notes' is a file but entry 'notes\/inner\.txt' uses it as a folder/,
    );
  });

  it('rejects an archive with no files', async () => {
    await expectRejected(await rawZip([]), /the archive contains no files/);
    await expectRejected(await yazlZip({ 'empty/': null }), /the archive contains no files/);
    await expectRejected(await yazlZip({ '__MACOSX/._x': 'x', '.DS_Store': 'x' }), /the archive contains no files/);
  });

  it('rejects a skill whose SKILL.md is invalid, leaving nothing extracted', async () => {
    const zip = await yazlZip({ 'SKILL.md': '---\nname: x\n---\nbody', 'b.txt': 'b' });
    await expectRejected(zip, /^SKILL\.md frontmatter: 'description' is required$/, undefined, extractSkillArchive);
  });
});

describe('parseSkillManifest', () => {
  it('reads the required and optional fields and keeps the markdown body', () => {
    const manifest = parseSkillManifest(
      '---\r\nname: demo\r\ndescription: Does a thing.\r\ncompatibility: Needs python3\r\nallowed-tools: Bash(git:*) Read\r\n---\r\n\r\n# Demo\r\n',
      'demo/SKILL.md',
    );
    expect(manifest).toEqual({
      name: 'demo',
      description: 'Does a thing.',
      compatibility: 'Needs python3',
      allowedTools: 'Bash(git:*) Read',
      body: '# Demo\r\n',
      path: 'demo/SKILL.md',
    });
  });

  it.each([
    ['# No frontmatter\n', /^SKILL\.md must start with YAML frontmatter/],
    ['---\nname: x\ndescription: y\n', /^SKILL\.md frontmatter: no closing '---' line$/],
    ['---\nname: [unclosed\ndescription: y\n---\n', /^SKILL\.md frontmatter is not valid YAML: /],
    ['---\n- a\n- b\n---\n', /^SKILL\.md frontmatter: must be a YAML mapping/],
    ['---\n---\nbody', /^SKILL\.md frontmatter: 'name' is required$/],
    ['---\nname: x\n---\n', /^SKILL\.md frontmatter: 'description' is required$/],
    ['---\nname: 42\ndescription: y\n---\n', /^SKILL\.md frontmatter: 'name' must be a string$/],
    ['---\nname: "  "\ndescription: y\n---\n', /^SKILL\.md frontmatter: 'name' must not be empty$/],
    [
      `---\nname: ${'n'.repeat(65)}\ndescription: y\n---\n`,
      /^SKILL\.md frontmatter: 'name' must be at most 64 characters \(got 65\)$/,
    ],
    [
      `---\nname: x\ndescription: ${'d'.repeat(1025)}\n---\n`,
      /^SKILL\.md frontmatter: 'description' must be at most 1024 characters/,
    ],
    ['---\nname: x\ndescription: y\nlicense: [MIT]\n---\n', /^SKILL\.md frontmatter: 'license' must be a string$/],
    [
      '---\nname: x\ndescription: y\nmetadata: [a]\n---\n',
      /^SKILL\.md frontmatter: 'metadata' must be a map of strings to strings$/,
    ],
    [
      '---\nname: x\ndescription: y\nmetadata:\n  version: 1.0\n---\n',
      /^SKILL\.md frontmatter: 'metadata\.version' must be a string$/,
    ],
    ['---\nname: x\nname: y\ndescription: z\n---\n', /^SKILL\.md frontmatter is not valid YAML: .*unique/i],
  ])('rejects %j', (text, detail) => {
    let caught: unknown;
    try {
      parseSkillManifest(text, 'SKILL.md');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    expect((caught as ValidationError).status).toBe(422);
    expect((caught as ValidationError).detail).toMatch(detail);
  });
});
