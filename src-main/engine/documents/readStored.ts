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
export async function readStoredDocument(readers: readonly DocumentReader[], file: StoredDocument, limits: ReadLimits): Promise<ReadDocument> {
  const head = await readHead(file.path);
  limits.signal?.throwIfAborted();
  const reader = readers.find((r) => r.accepts(file.contentType, head, file.name));
  if (!reader) {
    throw new DocumentReadError(file.contentType.startsWith('image/')
      ? `${file.name}: an image Portico cannot read (PNG, JPEG, WebP or TIFF are read by OCR)`
      : `${file.name}: not a document Portico can read (PDF, DOCX, XLSX, CSV, JSON, an image or UTF-8 text)`);
  }
  const read = await reader.read(file, limits);
  if (read.fields.length === 0) read.fields = read.pageTexts.flatMap((p) => labelLineFields(p.text, file.name, p.page));
  return read;
}

/** How a bundle's files are read: in this thread (tests with their own readers) or in a worker thread (readingWorker.ts). */
export interface DocumentReading {
  /** Reads one file; rejects with `DocumentReadError` for a file that cannot be read, with `signal.reason` once aborted. */
  read(file: StoredDocument, limits: ReadLimits): Promise<ReadDocument>;
  /** Stops whatever the reading keeps running (workers). */
  close(): Promise<void>;
}

/** Reading on the calling thread with the given readers (tests that bring their own readers). */
export function inProcessReading(readers: readonly DocumentReader[], close: () => Promise<void> = async () => {}): DocumentReading {
  return {
    read: (file, limits) => readStoredDocument(readers, file, limits),
    close,
  };
}
