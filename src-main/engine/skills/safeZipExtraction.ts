import { createWriteStream } from 'node:fs';
import { lstat, mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { crc32 } from 'node:zlib';
import type { Entry, ZipFile } from 'yauzl';
import { lazyRequire } from '../../base/lazyRequire.ts';
import { PorticoError, ValidationError } from '../../base/errors.ts';
import { unsafeNameCharacter } from '../../contract/names.ts';

const yauzl = lazyRequire<typeof import('yauzl')>('yauzl');

export interface ZipLimits {
  maxEntries: number;
  maxTotalUncompressedBytes: number;
  maxEntryUncompressedBytes: number;
  /** uncompressed/compressed above this is treated as a bomb, for entries over 1 MiB. */
  maxCompressionRatio: number;
  /**
   * The same for the whole archive (declared total over the compressed total), once the total passes
   * 16 MiB: many small entries each under the per-entry floor add up to a bomb too. Default 100.
   */
  maxArchiveCompressionRatio?: number;
}

export const DEFAULT_ZIP_LIMITS: ZipLimits = Object.freeze({
  maxEntries: 5000,
  maxTotalUncompressedBytes: 512 * 1024 * 1024,
  maxEntryUncompressedBytes: 512 * 1024 * 1024,
  maxCompressionRatio: 200,
  maxArchiveCompressionRatio: 100,
});

/** A name segment over this many UTF-8 bytes cannot be created on common filesystems (ext4, APFS, NTFS). */
export const MAX_ENTRY_SEGMENT_BYTES = 255;
/** A whole entry path over this many UTF-8 bytes is refused, leaving room under PATH_MAX for the data folder. */
export const MAX_ENTRY_PATH_BYTES = 1024;

/** One entry that will be extracted, as `inspect` sees it before any byte is written. */
export interface ZipEntryInfo {
  /** Normalised relative path with '/' separators and no trailing slash. */
  path: string;
  isDirectory: boolean;
  /** The size its header declares (checked against the real bytes while inflating). */
  declaredBytes: number;
}

export interface SafeExtractOptions {
  limits?: ZipLimits;
  /** Names the archive in every rejection: `<what> rejected: …`. Default 'Zip archive'. */
  what?: string;
  /** Sees every entry (after all safety checks) before a byte is written; throw to reject. */
  inspect?(entries: readonly ZipEntryInfo[]): void;
  /** Runs on the complete tree (a temporary sibling of destDir) before it moves into place; throw to reject. */
  verify?(root: string): Promise<void>;
  /**
   * Room left for the extracted files (a disk quota): an archive declaring more is refused with the
   * error `refuse` builds, before a byte is written; the real bytes are held to the same figure.
   */
  room?: { bytes: number; refuse(declaredBytes: number): Error };
}

export interface SafeExtraction {
  fileCount: number;
  /** Bytes really inflated and written. */
  totalBytes: number;
}

// Small, highly compressible files (text, empty JSON) legitimately have huge ratios.
const RATIO_CHECK_MIN_BYTES = 1024 * 1024;
// Below this total, a whole archive of small text files may compress as well as it likes.
const ARCHIVE_RATIO_CHECK_MIN_BYTES = 16 * 1024 * 1024;

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

/** Why an archive is refused; turned into a ValidationError naming the archive at the boundary. */
class Rejection extends PorticoError {}

function reject(detail: string, cause?: unknown): Rejection {
  return new Rejection(detail, cause === undefined ? undefined : { cause });
}

/**
 * Validates every entry (paths, types, sizes, ratios, overlaps), then extracts into destDir (which must
 * not exist yet; created) through a temporary sibling moved in with one rename. Symlinks, devices,
 * traversal, absolute and non-portable names, encryption and zip bombs (declared or lying headers,
 * overlapping entries) are refused. On any failure nothing is left at destDir and a ValidationError
 * `<what> rejected: …` naming the entry is thrown.
 */
export async function extractZipSafely(
  zipPath: string,
  destDir: string,
  options: SafeExtractOptions = {},
): Promise<SafeExtraction> {
  const limits = options.limits ?? DEFAULT_ZIP_LIMITS;
  const what = options.what ?? 'Zip archive';
  const target = path.resolve(destDir);
  if (await pathExists(target)) {
    // The caller picks destDir; an existing one is a bug there, not bad user input.
    throw new Error(`extractZipSafely: destination already exists: ${target}`);
  }
  try {
    const zip = await openZip(zipPath);
    let tempDir: string | null = null;
    try {
      const plan = await planEntries(zip, limits);
      const declared = plan.reduce((sum, p) => sum + (p.isDirectory ? 0 : p.entry.uncompressedSize), 0);
      if (options.room !== undefined && declared > options.room.bytes) throw options.room.refuse(declared);
      options.inspect?.(
        plan.map((p) => ({ path: p.path, isDirectory: p.isDirectory, declaredBytes: p.entry.uncompressedSize })),
      );
      const parent = path.dirname(target);
      await mkdir(parent, { recursive: true });
      // A sibling so the final rename stays on one filesystem and is atomic.
      tempDir = await mkdtemp(path.join(parent, `.${path.basename(target)}.extracting-`));
      const writeLimits =
        options.room === undefined
          ? limits
          : { ...limits, maxTotalUncompressedBytes: Math.min(limits.maxTotalUncompressedBytes, options.room.bytes) };
      const totalBytes = await writeEntries(zip, plan, tempDir, writeLimits);
      await options.verify?.(tempDir);
      await rename(tempDir, target);
      tempDir = null;
      return { fileCount: plan.filter((p) => !p.isDirectory).length, totalBytes };
    } finally {
      zip.close();
      if (tempDir !== null) await rm(tempDir, { recursive: true, force: true });
    }
  } catch (error) {
    if (error instanceof Rejection)
      throw new ValidationError(
        `${what} rejected: ${error.message}`,
        error.cause === undefined ? undefined : { cause: error.cause },
      );
    throw error;
  }
}

function describeCause(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function openZip(zipPath: string): Promise<ZipFile> {
  return new Promise((resolve, reject_) => {
    // decodeStrings:false so names are decoded (and vetted) by us, not silently rewritten.
    const options = { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: false };
    yauzl().open(zipPath, options, (error, zip) => {
      if (error) reject_(reject(`not a valid zip archive (${describeCause(error)})`, error));
      else resolve(zip);
    });
  });
}

/** Quoted and control-character-escaped, so a hostile name cannot forge or break the message. */
export function showEntryName(name: string): string {
  const escaped = name.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return `'${escaped.length > 200 ? `${escaped.slice(0, 200)}…` : escaped}'`;
}

const show = showEntryName;

const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i;

/** Returns the normalised relative path, or throws naming why the entry name is unsafe. */
function normaliseEntryPath(name: string): string {
  const label = `entry ${show(name)}`;
  if (name.length === 0) throw reject('an entry has an empty name');
  if (name.includes('\u0000')) throw reject(`${label} contains a NUL byte`);
  if (name.includes('\\')) throw reject(`${label} contains a backslash`);
  if (name.startsWith('/') || /^[a-zA-Z]:/.test(name)) throw reject(`${label} is an absolute path`);
  // One rule for every name (contract/names.ts): C0/C1 controls and bidi controls that disguise a folder's name.
  const unsafe = unsafeNameCharacter(name);
  if (unsafe) throw reject(`${label} contains a control or bidirectional text character (${unsafe})`);
  const segments = name.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) throw reject(`${label} escapes the archive root`);
  if (segments.length === 0) throw reject(`${label} has no file name`);
  if (Buffer.byteLength(name, 'utf8') > MAX_ENTRY_PATH_BYTES)
    throw reject(`${label} has a path longer than ${MAX_ENTRY_PATH_BYTES} bytes`);
  for (const segment of segments) {
    if (Buffer.byteLength(segment, 'utf8') > MAX_ENTRY_SEGMENT_BYTES) {
      throw reject(`${label} has a file or folder name longer than ${MAX_ENTRY_SEGMENT_BYTES} bytes`);
    }
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

async function planEntries(zip: ZipFile, limits: ZipLimits): Promise<PlannedEntry[]> {
  if (zip.entryCount > limits.maxEntries) {
    throw reject(`the archive has ${zip.entryCount} entries; the limit is ${limits.maxEntries}`);
  }
  const plan: PlannedEntry[] = [];
  const files = new Map<string, string>();
  const folders = new Map<string, string>();
  let declaredTotal = 0;
  let compressedTotal = 0;
  let seen = 0;
  try {
    for await (const entry of zip.eachEntry()) {
      seen += 1;
      if (seen > limits.maxEntries) throw reject(`the archive has more than ${limits.maxEntries} entries`);
      const name = yauzl().getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, true);
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
      compressedTotal += entry.compressedSize;
      if (declaredTotal > limits.maxTotalUncompressedBytes) {
        throw reject(`the archive declares more than ${limits.maxTotalUncompressedBytes} uncompressed bytes in total`);
      }
    }
    assertArchiveRatio(declaredTotal, compressedTotal, limits);
  } catch (error) {
    if (error instanceof Rejection) throw error;
    throw reject(`not a valid zip archive (${describeCause(error)})`, error);
  }
  for (const [key, name] of files) {
    const folder = folders.get(key);
    if (folder !== undefined)
      throw reject(`entry ${show(name)} is a file but entry ${show(folder)} uses it as a folder`);
  }
  if (files.size === 0) throw reject('the archive contains no files');
  assertNoOverlap(plan);
  return plan;
}

function checkEntry(entry: Entry, name: string, normalised: string, limits: ZipLimits): PlannedEntry {
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
    throw reject(
      `${label} declares ${entry.uncompressedSize} bytes; the per-file limit is ${limits.maxEntryUncompressedBytes}`,
    );
  }
  assertRatio(label, entry.uncompressedSize, entry.compressedSize, limits);
  return { entry, path: normalised, isDirectory, executable: (mode & 0o100) !== 0 };
}

function assertRatio(label: string, uncompressed: number, compressed: number, limits: ZipLimits): void {
  if (uncompressed <= RATIO_CHECK_MIN_BYTES) return;
  const ratio = uncompressed / Math.max(compressed, 1);
  if (ratio > limits.maxCompressionRatio) {
    throw reject(
      `${label} has a suspicious compression ratio (${Math.round(ratio)}:1; the limit is ${limits.maxCompressionRatio}:1)`,
    );
  }
}

/** The whole archive's ratio, from the central directory, so a thousand small bombs are one big one. */
function assertArchiveRatio(declaredTotal: number, compressedTotal: number, limits: ZipLimits): void {
  const limit = limits.maxArchiveCompressionRatio ?? DEFAULT_ZIP_LIMITS.maxArchiveCompressionRatio ?? 100;
  if (declaredTotal <= ARCHIVE_RATIO_CHECK_MIN_BYTES) return;
  const ratio = declaredTotal / Math.max(compressedTotal, 1);
  if (ratio > limit) {
    throw reject(
      `the archive has a suspicious compression ratio (${declaredTotal} bytes from ${compressedTotal} compressed, ${Math.round(ratio)}:1; the limit is ${limit}:1 for archives over ${ARCHIVE_RATIO_CHECK_MIN_BYTES} bytes)`,
    );
  }
}

/** Rejects entries whose data shares bytes, the trick behind overlapping-file zip bombs. */
function assertNoOverlap(plan: readonly PlannedEntry[]): void {
  // 30 bytes of local header + the data is a lower bound on each entry's extent, so no false alarms.
  const spans = plan
    .filter((p) => !p.isDirectory)
    .map((p) => ({
      name: p.path,
      start: p.entry.relativeOffsetOfLocalHeader,
      end: p.entry.relativeOffsetOfLocalHeader + 30 + p.entry.compressedSize,
    }))
    .sort((a, b) => a.start - b.start);
  for (const [i, current] of spans.entries()) {
    const previous = spans[i - 1];
    if (previous !== undefined && current.start < previous.end) {
      throw reject(`entries ${show(previous.name)} and ${show(current.name)} overlap inside the archive`);
    }
  }
}

async function writeEntries(
  zip: ZipFile,
  plan: readonly PlannedEntry[],
  root: string,
  limits: ZipLimits,
): Promise<number> {
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
      if (error instanceof Rejection) throw error;
      if (error instanceof Error && 'syscall' in error) throw error;
      throw reject(`${label} is corrupt (${describeCause(error)})`, error);
    }
  }
  return budget.written;
}

/** Counts the bytes really inflated, so lying headers cannot smuggle a bomb past the declared-size checks. */
function guardEntry(entry: Entry, label: string, limits: ZipLimits, budget: { written: number }) {
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
        throw reject(
          `the archive inflates past the total limit of ${limits.maxTotalUncompressedBytes} bytes at ${label}`,
        );
      }
      assertRatio(label, bytes, entry.compressedSize, limits);
      if (bytes > entry.uncompressedSize)
        throw reject(`${label} inflates to more than the ${entry.uncompressedSize} bytes its header declares`);
      crc = crc32(chunk, crc);
      yield chunk;
    }
    if (bytes !== entry.uncompressedSize)
      throw reject(`${label} is corrupt (${bytes} bytes, header declares ${entry.uncompressedSize})`);
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
