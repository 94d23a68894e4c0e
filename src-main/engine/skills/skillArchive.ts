import { createWriteStream } from 'node:fs';
import { lstat, mkdir, mkdtemp, readdir, readFile, realpath, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { crc32 } from 'node:zlib';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { AppError, ValidationError } from '../../base/errors.ts';

export interface SkillArchiveLimits {
  maxEntries: number;
  maxTotalUncompressedBytes: number;
  maxEntryUncompressedBytes: number;
  /** uncompressed/compressed above this is treated as a bomb, for entries over 1 MiB. */
  maxCompressionRatio: number;
}

export const DEFAULT_SKILL_ARCHIVE_LIMITS: SkillArchiveLimits = Object.freeze({
  maxEntries: 5000,
  maxTotalUncompressedBytes: 1024 * 1024 * 1024,
  maxEntryUncompressedBytes: 512 * 1024 * 1024,
  maxCompressionRatio: 200,
});

export interface SkillManifest {
  name: string;
  description: string;
  license?: string;
  compatibility?: string;
  /** `allowed-tools` as written (the spec's space-delimited list; YAML lists are joined with spaces). */
  allowedTools?: string;
  metadata?: Record<string, string>;
  body: string;
  /** Where SKILL.md sits inside the extracted tree, e.g. 'SKILL.md' or 'my-skill/SKILL.md'. */
  path: string;
}

export interface ExtractedSkill {
  fileCount: number;
  totalBytes: number;
  manifest: SkillManifest | null;
}

// Small, highly compressible files (text, empty JSON) legitimately have huge ratios.
const RATIO_CHECK_MIN_BYTES = 1024 * 1024;
// SKILL.md is read into memory and parsed as YAML, so it gets a much tighter bound.
const MAX_MANIFEST_BYTES = 1024 * 1024;
const MANIFEST_FILE = 'SKILL.md';

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;

interface PlannedEntry {
  entry: Entry;
  /** Normalised relative path with '/' separators and no trailing slash. */
  path: string;
  isDirectory: boolean;
  executable: boolean;
}

/** Validates every entry, then extracts into destDir (which must not exist yet; created). On any failure nothing is left at destDir and a ValidationError is thrown. */
export async function extractSkillArchive(
  zipPath: string,
  destDir: string,
  limits: SkillArchiveLimits = DEFAULT_SKILL_ARCHIVE_LIMITS,
): Promise<ExtractedSkill> {
  const target = path.resolve(destDir);
  if (await pathExists(target)) {
    // The caller picks destDir; an existing one is a bug there, not bad user input.
    throw new Error(`extractSkillArchive: destination already exists: ${target}`);
  }
  const zip = await openZip(zipPath);
  let tempDir: string | null = null;
  try {
    const plan = await planEntries(zip, limits);
    const manifestPath = findManifestPath(plan);
    const parent = path.dirname(target);
    await mkdir(parent, { recursive: true });
    // A sibling so the final rename stays on one filesystem and is atomic.
    tempDir = await mkdtemp(path.join(parent, `.${path.basename(target)}.extracting-`));
    const totalBytes = await writeEntries(zip, plan, tempDir, limits);
    let manifest: SkillManifest | null = null;
    if (manifestPath !== null) {
      const text = await readFile(path.join(tempDir, ...manifestPath.split('/')), 'utf8');
      manifest = parseSkillManifest(text, manifestPath);
    }
    await rename(tempDir, target);
    tempDir = null;
    return { fileCount: plan.filter((p) => !p.isDirectory).length, totalBytes, manifest };
  } finally {
    zip.close();
    if (tempDir !== null) await rm(tempDir, { recursive: true, force: true });
  }
}

function reject(detail: string, cause?: unknown): ValidationError {
  return new ValidationError(`Skill zip rejected: ${detail}`, cause === undefined ? undefined : { cause });
}

function describeCause(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function openZip(zipPath: string): Promise<ZipFile> {
  return new Promise((resolve, reject_) => {
    // decodeStrings:false so names are decoded (and vetted) by us, not silently rewritten.
    const options = { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: false };
    yauzl.open(zipPath, options, (error, zip) => {
      if (error) reject_(reject(`not a valid zip archive (${describeCause(error)})`, error));
      else resolve(zip);
    });
  });
}

/** Quoted and control-character-escaped, so a hostile name cannot forge or break the message. */
function show(name: string): string {
  const escaped = name.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return `'${escaped.length > 200 ? `${escaped.slice(0, 200)}…` : escaped}'`;
}

const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i;

/** Returns the normalised relative path, or throws naming why the entry name is unsafe. */
function normaliseEntryPath(name: string): string {
  const label = `entry ${show(name)}`;
  if (name.length === 0) throw reject('an entry has an empty name');
  if (name.includes('\u0000')) throw reject(`${label} contains a NUL byte`);
  if (name.includes('\\')) throw reject(`${label} contains a backslash`);
  if (name.startsWith('/') || /^[a-zA-Z]:/.test(name)) throw reject(`${label} is an absolute path`);
  if (/[\u0001-\u001f\u007f]/.test(name)) throw reject(`${label} contains a control character`);
  const segments = name.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) throw reject(`${label} escapes the archive root`);
  if (segments.length === 0) throw reject(`${label} has no file name`);
  for (const segment of segments) {
    // Names Windows would reinterpret (streams, devices, trimmed dots) could collide or escape there.
    if (/[<>:"|?*]/.test(segment) || WINDOWS_RESERVED.test(segment) || /[. ]$/.test(segment)) {
      throw reject(`${label} has a name that is not portable across operating systems`);
    }
  }
  const normalised = segments.join('/');
  const resolved = path.posix.resolve('/root', normalised);
  if (!resolved.startsWith('/root/')) throw reject(`${label} escapes the archive root`);
  return normalised;
}

function isIgnored(normalised: string): boolean {
  const segments = normalised.split('/');
  return segments[0] === '__MACOSX' || segments[segments.length - 1] === '.DS_Store';
}

function pathKey(normalised: string): string {
  // macOS and Windows fold case, and APFS also folds Unicode normalisation.
  return normalised.normalize('NFC').toLowerCase();
}

async function planEntries(zip: ZipFile, limits: SkillArchiveLimits): Promise<PlannedEntry[]> {
  if (zip.entryCount > limits.maxEntries) {
    throw reject(`the archive has ${zip.entryCount} entries; the limit is ${limits.maxEntries}`);
  }
  const plan: PlannedEntry[] = [];
  const files = new Map<string, string>();
  const folders = new Map<string, string>();
  let declaredTotal = 0;
  let seen = 0;
  try {
    for await (const entry of zip.eachEntry()) {
      seen += 1;
      if (seen > limits.maxEntries) throw reject(`the archive has more than ${limits.maxEntries} entries`);
      const name = yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, true);
      const normalised = normaliseEntryPath(name);
      if (isIgnored(normalised)) continue;
      const planned = checkEntry(entry, name, normalised, limits);
      plan.push(planned);
      const parts = normalised.split('/');
      for (let i = 1; i < parts.length; i += 1) folders.set(pathKey(parts.slice(0, i).join('/')), name);
      if (planned.isDirectory) {
        folders.set(pathKey(normalised), name);
        continue;
      }
      const key = pathKey(normalised);
      const previous = files.get(key);
      if (previous !== undefined) {
        throw reject(`entry ${show(name)} duplicates entry ${show(previous)} (paths are compared case-insensitively)`);
      }
      files.set(key, name);
      declaredTotal += entry.uncompressedSize;
      if (declaredTotal > limits.maxTotalUncompressedBytes) {
        throw reject(`the archive declares more than ${limits.maxTotalUncompressedBytes} uncompressed bytes in total`);
      }
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw reject(`not a valid zip archive (${describeCause(error)})`, error);
  }
  for (const [key, name] of files) {
    const folder = folders.get(key);
    if (folder !== undefined) throw reject(`entry ${show(name)} is a file but entry ${show(folder)} uses it as a folder`);
  }
  if (files.size === 0) throw reject('the archive contains no files');
  assertNoOverlap(plan);
  return plan;
}

function checkEntry(entry: Entry, name: string, normalised: string, limits: SkillArchiveLimits): PlannedEntry {
  const label = `entry ${show(name)}`;
  if (entry.isEncrypted() || (entry.generalPurposeBitFlag & 0x40) !== 0) throw reject(`${label} is encrypted`);
  const mode = entry.externalFileAttributes >>> 16;
  const fileType = mode & S_IFMT;
  if (fileType === S_IFLNK) throw reject(`${label} is a symbolic link`);
  if (fileType !== 0 && fileType !== S_IFREG && fileType !== S_IFDIR) {
    throw reject(`${label} is not a regular file or directory (unix type 0o${fileType.toString(8)})`);
  }
  const isDirectory = name.endsWith('/') || fileType === S_IFDIR;
  if (isDirectory) {
    if (entry.uncompressedSize !== 0) throw reject(`${label} is a directory with content`);
    return { entry, path: normalised, isDirectory, executable: false };
  }
  if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) {
    throw reject(`${label} uses unsupported compression method ${entry.compressionMethod} (only stored and deflate)`);
  }
  if (entry.uncompressedSize > limits.maxEntryUncompressedBytes) {
    throw reject(`${label} declares ${entry.uncompressedSize} bytes; the per-file limit is ${limits.maxEntryUncompressedBytes}`);
  }
  assertRatio(label, entry.uncompressedSize, entry.compressedSize, limits);
  return { entry, path: normalised, isDirectory, executable: (mode & 0o100) !== 0 };
}

function assertRatio(label: string, uncompressed: number, compressed: number, limits: SkillArchiveLimits): void {
  if (uncompressed <= RATIO_CHECK_MIN_BYTES) return;
  const ratio = uncompressed / Math.max(compressed, 1);
  if (ratio > limits.maxCompressionRatio) {
    throw reject(`${label} has a suspicious compression ratio (${Math.round(ratio)}:1; the limit is ${limits.maxCompressionRatio}:1)`);
  }
}

/** Rejects entries whose data shares bytes, the trick behind overlapping-file zip bombs. */
function assertNoOverlap(plan: readonly PlannedEntry[]): void {
  // 30 bytes of local header + the data is a lower bound on each entry's extent, so no false alarms.
  const spans = plan
    .filter((p) => !p.isDirectory)
    .map((p) => ({ name: p.path, start: p.entry.relativeOffsetOfLocalHeader, end: p.entry.relativeOffsetOfLocalHeader + 30 + p.entry.compressedSize }))
    .sort((a, b) => a.start - b.start);
  for (let i = 1; i < spans.length; i += 1) {
    const previous = spans[i - 1]!;
    const current = spans[i]!;
    if (current.start < previous.end) {
      throw reject(`entries ${show(previous.name)} and ${show(current.name)} overlap inside the archive`);
    }
  }
}

function findManifestPath(plan: readonly PlannedEntry[]): string | null {
  const files = plan.filter((p) => !p.isDirectory);
  let found = files.find((p) => p.path === MANIFEST_FILE);
  if (found === undefined) {
    const tops = new Set(plan.map((p) => p.path.split('/')[0]));
    const [top] = tops;
    const nested = plan.every((p) => p.path.includes('/') || p.isDirectory);
    if (tops.size === 1 && nested) found = files.find((p) => p.path === `${top}/${MANIFEST_FILE}`);
  }
  if (found === undefined) return null;
  if (found.entry.uncompressedSize > MAX_MANIFEST_BYTES) {
    throw reject(`${found.path} is ${found.entry.uncompressedSize} bytes; the limit is ${MAX_MANIFEST_BYTES}`);
  }
  return found.path;
}

/**
 * Reads the SKILL.md of an extracted skill, found by the rule the upload used (the root `SKILL.md`,
 * else `<single top folder>/SKILL.md`) rather than by a remembered path, and only if it is a regular
 * file really inside skillDir within the manifest size bound. Null when there is none.
 */
export async function readExtractedManifest(skillDir: string): Promise<string | null> {
  let root: string;
  let names: string[];
  try {
    root = await realpath(skillDir);
    names = await readdir(root);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const candidates = [MANIFEST_FILE];
  if (names.length === 1 && names[0] !== MANIFEST_FILE) candidates.push(`${names[0]}/${MANIFEST_FILE}`);
  for (const candidate of candidates) {
    const file = path.resolve(root, ...candidate.split('/'));
    let info;
    try {
      info = await lstat(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') continue;
      throw error;
    }
    // Extraction never writes links, so a link or anything but a file here was not put there by us.
    if (!info.isFile() || info.size > MAX_MANIFEST_BYTES) continue;
    const real = await realpath(file);
    if (!real.startsWith(root + path.sep)) continue;
    return readFile(real, 'utf8');
  }
  return null;
}

async function writeEntries(zip: ZipFile, plan: readonly PlannedEntry[], root: string, limits: SkillArchiveLimits): Promise<number> {
  const budget = { written: 0 };
  for (const planned of plan) {
    const target = path.resolve(root, ...planned.path.split('/'));
    if (!target.startsWith(root + path.sep)) throw reject(`entry ${show(planned.path)} escapes the archive root`);
    if (planned.isDirectory) {
      await mkdir(target, { recursive: true });
      continue;
    }
    await mkdir(path.dirname(target), { recursive: true });
    const label = `entry ${show(planned.path)}`;
    try {
      const source = await zip.openReadStreamPromise(planned.entry);
      // 'wx': never follow or overwrite anything already at the target.
      const sink = createWriteStream(target, { flags: 'wx', mode: planned.executable ? 0o755 : 0o644 });
      await pipeline(source, guardEntry(planned.entry, label, limits, budget), sink);
    } catch (error) {
      if (error instanceof AppError) throw error;
      if (error instanceof Error && 'syscall' in error) throw error;
      throw reject(`${label} is corrupt (${describeCause(error)})`, error);
    }
  }
  return budget.written;
}

/** Counts the bytes really inflated, so lying headers cannot smuggle a bomb past the declared-size checks. */
function guardEntry(entry: Entry, label: string, limits: SkillArchiveLimits, budget: { written: number }) {
  return async function* (chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
    let bytes = 0;
    let crc = 0;
    for await (const chunk of chunks) {
      bytes += chunk.length;
      budget.written += chunk.length;
      if (bytes > limits.maxEntryUncompressedBytes) {
        throw reject(`${label} inflates past the per-file limit of ${limits.maxEntryUncompressedBytes} bytes`);
      }
      if (budget.written > limits.maxTotalUncompressedBytes) {
        throw reject(`the archive inflates past the total limit of ${limits.maxTotalUncompressedBytes} bytes at ${label}`);
      }
      assertRatio(label, bytes, entry.compressedSize, limits);
      if (bytes > entry.uncompressedSize) throw reject(`${label} inflates to more than the ${entry.uncompressedSize} bytes its header declares`);
      crc = crc32(chunk, crc);
      yield chunk;
    }
    if (bytes !== entry.uncompressedSize) throw reject(`${label} is corrupt (${bytes} bytes, header declares ${entry.uncompressedSize})`);
    if (crc !== entry.crc32) throw reject(`${label} is corrupt (CRC-32 mismatch)`);
  };
}

async function pathExists(p: string): Promise<boolean> {
  try {
    await lstat(p);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

const FENCE = /^---[ \t]*(?:\r?\n|$)/;
const FENCE_LINE = /^---[ \t]*(?:\r?\n|$)/m;

/** Parses an agentskills.io SKILL.md (YAML frontmatter between '---' lines, then markdown); throws ValidationError naming the problem. */
export function parseSkillManifest(text: string, filePath: string): SkillManifest {
  const prefix = `${filePath} frontmatter`;
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const open = FENCE.exec(source);
  if (open === null || open.index !== 0) {
    throw new ValidationError(`${filePath} must start with YAML frontmatter: a first line '---'`);
  }
  const rest = source.slice(open[0].length);
  const close = FENCE_LINE.exec(rest);
  if (close === null) throw new ValidationError(`${prefix}: no closing '---' line`);
  const yamlText = rest.slice(0, close.index);
  const body = rest.slice(close.index + close[0].length).replace(/^(?:\r?\n)+/, '');

  let data: unknown;
  try {
    data = parseYaml(yamlText);
  } catch (error) {
    const message = describeCause(error).split('\n')[0];
    throw new ValidationError(`${prefix} is not valid YAML: ${message}`, { cause: error });
  }
  if (data === null || data === undefined) data = {};
  const parsed = SkillFrontmatter.safeParse(data, { reportInput: true });
  if (!parsed.success) {
    // The first problem only: the manifest is fixed one field at a time, in the order the spec lists them.
    const issue = parsed.error.issues[0];
    // A value inside a map (metadata.version) is named by its whole path; a top-level key names itself.
    const where = issue !== undefined && issue.path.length > 1 ? `'${issue.path.join('.')}' ` : '';
    throw new ValidationError(`${prefix}: ${where}${issue?.message ?? 'is invalid'}`);
  }
  const { name, description, license, compatibility, metadata } = parsed.data;
  const allowedTools = parsed.data['allowed-tools'];
  return {
    name, description, body, path: filePath,
    ...(license !== undefined && { license }),
    ...(compatibility !== undefined && { compatibility }),
    ...(allowedTools !== undefined && { allowedTools }),
    ...(metadata !== undefined && { metadata }),
  };
}

// YAML writes an empty value as null: the spec's optional fields treat that as absent.
const absentIfNull = (value: unknown): unknown => (value === null ? undefined : value);

/** A frontmatter string: trimmed, not empty, at most `max` characters; messages name the key as the spec writes it. */
function frontmatterText(key: string, max: number) {
  return z
    .string({ error: (issue) => (issue.input === undefined ? `'${key}' is required` : `'${key}' must be a string`) })
    .trim()
    .min(1, `'${key}' must not be empty`)
    .refine((value) => value.length <= max, { error: (issue) => `'${key}' must be at most ${max} characters (got ${String(issue.input).length})` });
}

const optionalFrontmatterText = (key: string, max: number) => z.preprocess(absentIfNull, frontmatterText(key, max).optional());

/** agentskills.io SKILL.md frontmatter: `name` and `description` required, the rest optional. */
const SkillFrontmatter = z.object(
  {
    name: z.preprocess(absentIfNull, frontmatterText('name', 64)),
    description: z.preprocess(absentIfNull, frontmatterText('description', 1024)),
    license: optionalFrontmatterText('license', Number.POSITIVE_INFINITY),
    compatibility: optionalFrontmatterText('compatibility', 500),
    // The spec's space-delimited list; a YAML list of names is accepted and joined.
    'allowed-tools': z.preprocess(
      absentIfNull,
      z.union([z.string(), z.array(z.string()).transform((tools) => tools.join(' '))], { error: "'allowed-tools' must be a space-separated string" }).optional(),
    ),
    metadata: z.preprocess(
      absentIfNull,
      z.record(z.string(), z.string({ error: 'must be a string' }), {
        error: "'metadata' must be a map of strings to strings",
      }).optional(),
    ),
  },
  { error: 'must be a YAML mapping of keys to values' },
);
