import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { labelLineFields } from './labelLines.ts';
import { readHead } from './sniff.ts';
import { DocumentReadError, type DocumentReader, type ReadDocument } from './types.ts';

/** One stored file of a bundle, its content type already sniffed from its bytes. */
export interface StoredDocument {
  path: string;
  name: string;
  contentType: string;
  size: number;
}

export interface ReadLimits {
  maxPages: number;
  signal?: AbortSignal;
}

/**
 * Reads one stored file with the first reader that takes it (the same steps in-process and in the read
 * worker): a file no reader takes is a `DocumentReadError`; text read by OCR states its `Label: value` lines too.
 */
export async function readStoredDocument(
  readers: readonly DocumentReader[],
  file: StoredDocument,
  limits: ReadLimits,
): Promise<ReadDocument> {
  const head = await readHead(file.path);
  limits.signal?.throwIfAborted();
  const reader = readers.find((r) => r.accepts(file.contentType, head, file.name));
  if (!reader) {
    throw new DocumentReadError(
      file.contentType.startsWith('image/')
        ? `${file.name}: an image Portico cannot read (PNG, JPEG, WebP or TIFF are read by OCR)`
        : `${file.name}: not a document Portico can read (PDF, DOCX, XLSX, CSV, JSON, an image or UTF-8 text)`,
    );
  }
  const read = await reader.read(file, limits);
  if (read.fields.length === 0) read.fields = read.pageTexts.flatMap((p) => labelLineFields(p.text, file.name, p.page));
  return read;
}

/** Where a read is kept: the bundle's folder and the file's index (`<index>.read.json`, `<index>.p<page>.jpg`). */
export interface ReadTarget {
  dir: string;
  fileIndex: number;
}

/** What storing a read leaves for the service's thread: counts, never the text. */
export interface StoredRead {
  pages: number;
  textChars: number;
}

/**
 * Keeps what was read beside the file: page images (pages read by OCR, for a model's extraction) as
 * `<index>.p<page>.jpg`, and the read itself as `<index>.read.json` (written whole, then renamed).
 * Runs where the read was made — the read worker — so a 50 MB document's text is never serialized on the
 * service's thread (issue 21, item 7).
 */
export async function storeRead(read: ReadDocument, target: ReadTarget): Promise<StoredRead> {
  for (const page of read.pageTexts) {
    const bytes = page.imageBytes;
    delete page.imageBytes;
    delete page.imageBase64;
    if (!bytes || page.page === null) continue;
    const image = `${target.fileIndex}.p${page.page}.jpg`;
    await writeFile(join(target.dir, image), bytes, { mode: 0o600 });
    page.image = image;
  }
  const file = join(target.dir, `${target.fileIndex}.read.json`);
  await writeFile(`${file}.tmp`, JSON.stringify(read), { mode: 0o600 });
  await rename(`${file}.tmp`, file);
  return { pages: read.pages, textChars: read.pageTexts.reduce((n, p) => n + p.text.length, 0) };
}

/** How a bundle's files are read: in this thread (tests with their own readers) or in a worker thread (workerReading.ts). */
export interface DocumentReading {
  /** Reads one file; rejects with `DocumentReadError` for a file that cannot be read, with `signal.reason` once aborted. */
  read(file: StoredDocument, limits: ReadLimits): Promise<ReadDocument>;
  /** Reads one file and stores what was read at `target` (storeRead), answering only counts; rejects as `read` does. */
  readAndStore(file: StoredDocument, limits: ReadLimits, target: ReadTarget): Promise<StoredRead>;
  /** Stops whatever the reading keeps running (workers). */
  close(): Promise<void>;
}

/** Reading on the calling thread with the given readers (tests that bring their own readers). */
export function inProcessReading(
  readers: readonly DocumentReader[],
  close: () => Promise<void> = async () => {},
): DocumentReading {
  return {
    read: (file, limits) => readStoredDocument(readers, file, limits),
    readAndStore: async (file, limits, target) => {
      const read = await readStoredDocument(readers, file, limits);
      limits.signal?.throwIfAborted();
      return storeRead(read, target);
    },
    close,
  };
}
