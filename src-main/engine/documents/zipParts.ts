import type { Readable } from 'node:stream';
import type { Entry, ZipFile } from 'yauzl';
import { lazyRequire } from '../../base/lazyRequire.ts';
import { DocumentReadError } from './types.ts';

const yauzl = lazyRequire<typeof import('yauzl')>('yauzl');

/** What an Office file may unpack to before it is refused as a zip bomb. */
export const OFFICE_MAX_UNCOMPRESSED_BYTES = 200 * 1024 * 1024;
export const OFFICE_MAX_ENTRIES = 10_000;
/** Real Office parts compress far less than this; a bomb's filler compresses ~1000×. */
export const OFFICE_MAX_RATIO = 200;

export interface ZipSummary {
  names: Set<string>;
  uncompressedBytes: number;
}

const bomb = (name: string): DocumentReadError =>
  new DocumentReadError(
    `${name}: would unpack to more than it can hold (${OFFICE_MAX_UNCOMPRESSED_BYTES / (1024 * 1024)} MB, or a part compressed over ${OFFICE_MAX_RATIO}×); refused as a zip bomb`,
  );

/** Inflates one part, discarding the bytes; a part that unpacks past its declared size or the limit is a bomb. */
async function countInflated(zip: ZipFile, entry: Entry, name: string): Promise<void> {
  const stream = await new Promise<Readable>((resolve, reject) =>
    zip.openReadStream(entry, (error, s) => (error ? reject(error) : resolve(s))),
  );
  let bytes = 0;
  try {
    for await (const chunk of stream) {
      bytes += (chunk as Buffer).length;
      if (bytes > OFFICE_MAX_UNCOMPRESSED_BYTES) throw bomb(name);
    }
  } catch (error) {
    stream.destroy();
    if (error instanceof DocumentReadError) throw error;
    if (/too many bytes|exceeds/i.test(error instanceof Error ? error.message : '')) throw bomb(name);
    throw error;
  }
}

function openZip(path: string): Promise<ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl().open(path, { lazyEntries: true, autoClose: false, validateEntrySizes: true }, (error, zip) =>
      error ? reject(error) : resolve(zip),
    );
  });
}

/**
 * The part names of a zip and its unpacked size; refuses archives that would unpack past the limits, first by
 * the central directory's declared sizes, then by inflating each part and counting (before any reader sees it).
 */
export async function inspectZip(path: string, name: string): Promise<ZipSummary> {
  let zip: ZipFile;
  try {
    zip = await openZip(path);
  } catch (error) {
    throw new DocumentReadError(
      `${name}: a broken Office file (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  try {
    if (zip.entryCount > OFFICE_MAX_ENTRIES)
      throw new DocumentReadError(`${name}: has ${zip.entryCount} parts; refused as a zip bomb`);
    const names = new Set<string>();
    let total = 0;
    for await (const entry of zip.eachEntry()) {
      names.add(entry.fileName);
      total += entry.uncompressedSize;
      const ratio =
        entry.compressedSize > 0
          ? entry.uncompressedSize / entry.compressedSize
          : entry.uncompressedSize > 0
            ? Infinity
            : 0;
      if (total > OFFICE_MAX_UNCOMPRESSED_BYTES || (entry.uncompressedSize > 1024 * 1024 && ratio > OFFICE_MAX_RATIO)) {
        throw bomb(name);
      }
      // Declared sizes can lie: inflate the part and count (yauzl also refuses a part longer than declared).
      if (!entry.fileName.endsWith('/')) await countInflated(zip, entry, name);
    }
    return { names, uncompressedBytes: total };
  } catch (error) {
    if (error instanceof DocumentReadError) throw error;
    throw new DocumentReadError(
      `${name}: a broken Office file (${error instanceof Error ? error.message : String(error)})`,
    );
  } finally {
    zip.close();
  }
}
