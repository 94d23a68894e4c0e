import { createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { isoNow, systemClock, type Clock, type TimerHandle } from '../../base/clock.ts';
import { ConflictError, NotFoundError, PayloadTooLargeError, ValidationError } from '../../base/errors.ts';
import type { DiskQuotas } from '../limits/diskQuotas.ts';
import { newId } from '../../base/ids.ts';
import type { Logger } from '../../base/logger.ts';
import {
  DOCUMENT_MAX_FILES,
  DOCUMENT_MAX_PAGES,
  documentMessages,
  type DocumentBundle,
  type DocumentBundleCreated,
  type DocumentBundleList,
  type DocumentBundleListQuery,
} from '../../contract/document.ts';
import type { BundleRow, DocumentRepository, FileOutcome } from '../../store/documents.ts';
import {
  inProcessReading,
  type DocumentReading,
  type ReadTarget,
  type StoredDocument,
  type StoredRead,
} from './readStored.ts';
import { sniffContentType } from './sniff.ts';
import { DocumentReadError, MODEL_MAX_PAGE_IMAGES, type DocumentReader, type ReadDocument } from './types.ts';

/** The longest one document may take to read by default (service clock); past it the document fails and reading moves on. */
export const DOCUMENT_READ_TIMEOUT_MS = 5 * 60_000;

/** "5 minutes", "90 seconds": a read time limit as the bundle's error states it. */
function durationText(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000} minute${ms === 60_000 ? '' : 's'}`;
  const seconds = Math.max(1, Math.round(ms / 1000));
  return `${seconds} second${seconds === 1 ? '' : 's'}`;
}

/** One multipart part as the route hands it over (a file, or a plain field that is ignored). */
export interface UploadPart {
  type: 'file' | 'field';
  fieldname: string;
  filename?: string;
  mimetype?: string;
  /** The file's bytes (file parts only); `truncated` is set when the transport cut it at the size limit. */
  file?: Readable & { truncated?: boolean };
}

export interface DocumentPaths {
  /** `<dataDir>/documents`: one folder per bundle holding `<index>` (the bytes) and `<index>.read.json`. */
  documentsDir: string;
  /** Same filesystem, so an upload moves in with one rename. */
  tmpDir: string;
}

export interface DocumentServiceDeps {
  repo: DocumentRepository;
  paths: DocumentPaths;
  /** How files are read: the app reads in a worker thread (workerReading.ts); without it, `readers` in this thread. */
  reading?: DocumentReading;
  /** Readers run in this thread when `reading` is not given (tests with their own readers). */
  readers?: readonly DocumentReader[];
  logger: Logger;
  clock?: Clock;
  /** Stops what in-thread readers keep running (the OCR worker), when the service closes. */
  closeReaders?: () => Promise<void>;
  /** The longest one file may take to read (service clock); default DOCUMENT_READ_TIMEOUT_MS. */
  readTimeoutMs?: number;
  /** The org's documents disk quota (engine/limits/diskQuotas.ts): an upload that would pass it is 413 and nothing is kept. */
  quotas?: Pick<DiskQuotas, 'used' | 'quota' | 'refusal'>;
}

/** The name a client gave, safe to show and store: no folders, control or bidi characters, NUL; NFC; at most 200 characters. */
export function sanitiseDocumentName(raw: string | undefined, index: number): string {
  const base = basename((raw ?? '').normalize('NFC').replace(/\\/g, '/'));
  const cleaned = base
    .replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g, '')
    .replace(/^[.\s]+/, '')
    .trim()
    .slice(0, 200);
  return cleaned === '' ? `document-${index + 1}` : cleaned;
}

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));

function isFramework(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}

/**
 * Document bundles (local-service.md §7): uploads are stored under the data folder, read one bundle at a
 * time off the request path, and what was read is kept next to the files for the extractor. A bundle
 * left `processing` by a stopped service is read again on the next start.
 */
export class DocumentService {
  readonly #repo: DocumentRepository;
  readonly #paths: DocumentPaths;
  readonly #reading: DocumentReading;
  readonly #readTimeoutMs: number;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #quotas: DocumentServiceDeps['quotas'];
  readonly #queue: string[] = [];
  readonly #waiters = new Map<string, Set<() => void>>();
  #current: { id: string; abort: AbortController } | undefined;
  #draining: Promise<void> | undefined;
  #closed = false;

  constructor(deps: DocumentServiceDeps) {
    this.#repo = deps.repo;
    this.#paths = deps.paths;
    this.#reading = deps.reading ?? inProcessReading(deps.readers ?? [], deps.closeReaders);
    this.#readTimeoutMs = deps.readTimeoutMs ?? DOCUMENT_READ_TIMEOUT_MS;
    this.#logger = deps.logger;
    this.#clock = deps.clock ?? systemClock;
    this.#quotas = deps.quotas;
  }

  bundleDir(id: string): string {
    return join(this.#paths.documentsDir, id);
  }

  /** At start: removes half-finished uploads and folders without a bundle, then queues bundles left `processing`. */
  async recover(): Promise<void> {
    await mkdir(this.#paths.documentsDir, { recursive: true });
    await mkdir(this.#paths.tmpDir, { recursive: true });
    for (const entry of await readdir(this.#paths.tmpDir)) {
      if (entry.startsWith('documents-')) await rm(join(this.#paths.tmpDir, entry), { recursive: true, force: true });
    }
    const pending = this.#repo.processing();
    for (const entry of await readdir(this.#paths.documentsDir)) {
      if (!this.#repo.exists(entry)) await rm(join(this.#paths.documentsDir, entry), { recursive: true, force: true });
    }
    for (const bundle of pending) {
      this.#logger.info('document bundle resumed after restart', { bundle: bundle.id });
      this.#enqueue(bundle.id);
    }
  }

  /**
   * Stores the uploaded files (each to a temp folder, moved in whole), records the bundle `processing`
   * and queues it. Over a limit, or on any failure, nothing is kept.
   */
  async upload(orgId: string, parts: AsyncIterable<UploadPart>): Promise<DocumentBundleCreated> {
    const id = newId();
    const staging = join(this.#paths.tmpDir, `documents-${id}`);
    await mkdir(staging, { recursive: true, mode: 0o700 });
    const files: { name: string; contentType: string; size: number }[] = [];
    const quotas = this.#quotas;
    const used = quotas ? await quotas.used('documents', orgId) : 0;
    try {
      try {
        for await (const part of parts) {
          if (part.type !== 'file' || !part.file) continue;
          if (part.fieldname !== 'files') {
            part.file.resume();
            throw new ValidationError(
              `body.${part.fieldname}: unexpected file field; send files in the multipart field 'files'`,
            );
          }
          if (files.length >= DOCUMENT_MAX_FILES) {
            part.file.resume();
            throw new PayloadTooLargeError(documentMessages.tooManyFiles);
          }
          if (quotas && used >= quotas.quota('documents')) {
            part.file.resume();
            throw quotas.refusal('documents', orgId, used);
          }
          const index = files.length;
          const target = join(staging, String(index));
          await pipeline(part.file, createWriteStream(target, { mode: 0o600 }));
          if (part.file.truncated) throw new PayloadTooLargeError(documentMessages.fileTooLarge);
          const { size } = await stat(target);
          files.push({
            name: sanitiseDocumentName(part.filename, index),
            contentType: (part.mimetype ?? 'application/octet-stream').slice(0, 200),
            size,
          });
          const adding = files.reduce((sum, file) => sum + file.size, 0);
          if (quotas && used + adding > quotas.quota('documents'))
            throw quotas.refusal('documents', orgId, used, adding);
        }
      } catch (error) {
        if (isFramework(error, 'FST_REQ_FILE_TOO_LARGE')) throw new PayloadTooLargeError(documentMessages.fileTooLarge);
        if (isFramework(error, 'FST_FILES_LIMIT')) throw new PayloadTooLargeError(documentMessages.tooManyFiles);
        throw error;
      }
      if (files.length === 0) throw new ValidationError(documentMessages.noFiles);
      if (this.#closed) throw new ConflictError('The service is shutting down');
      await mkdir(this.#paths.documentsDir, { recursive: true });
      await rename(staging, this.bundleDir(id));
      try {
        this.#repo.insert({ id, orgId, createdAt: isoNow(this.#clock) }, files);
      } catch (error) {
        await rm(this.bundleDir(id), { recursive: true, force: true });
        throw error;
      }
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
    this.#enqueue(id);
    return { document_bundle_id: id, status: 'processing' };
  }

  #row(orgId: string, id: string): BundleRow {
    const row = this.#repo.get(orgId, id);
    if (!row) throw new NotFoundError(documentMessages.bundleNotFound);
    return row;
  }

  /** The bundle as GET shows it; another org's bundle is 404. */
  get(orgId: string, id: string): DocumentBundle {
    return this.#view(this.#row(orgId, id));
  }

  /** The org's bundles, newest first, one page at a time (GET /documents/{org_id}). */
  list(orgId: string, query: DocumentBundleListQuery): DocumentBundleList {
    const { rows, total } = this.#repo.list(orgId, query);
    return { document_bundles: rows.map((row) => this.#view(row)), total };
  }

  #view(row: BundleRow): DocumentBundle {
    return {
      id: row.id,
      status: row.status,
      documents: this.#repo.files(row.id).map((f) => ({
        name: f.name,
        content_type: f.content_type,
        size: f.size,
        pages: f.pages,
        text_chars: f.text_chars,
        error: f.error,
      })),
      error: row.error,
      created_at: row.created_at,
    };
  }

  /** What was read from a completed bundle, in upload order (for the extractor). */
  async read(orgId: string, id: string): Promise<ReadDocument[]> {
    const row = this.#row(orgId, id);
    if (row.status === 'processing') throw new ConflictError(documentMessages.stillProcessing);
    if (row.status === 'failed') throw new ValidationError(documentMessages.bundleFailed(row.error ?? 'unknown error'));
    const out: ReadDocument[] = [];
    let images = 0;
    for (const file of this.#repo.files(row.id)) {
      const read = JSON.parse(
        await readFile(join(this.bundleDir(row.id), `${file.file_index}.read.json`), 'utf8'),
      ) as ReadDocument;
      // The first pages without a text layer go to a model as images too (at most MODEL_MAX_PAGE_IMAGES a bundle).
      for (const page of read.pageTexts) {
        if (!page.image || images >= MODEL_MAX_PAGE_IMAGES) continue;
        const bytes = await readFile(join(this.bundleDir(row.id), basename(page.image))).catch(() => null);
        if (!bytes) continue;
        page.imageBase64 = bytes.toString('base64');
        images += 1;
      }
      out.push(read);
    }
    return out;
  }

  /**
   * Resolves with the bundle once it is no longer `processing`, or as it is after `timeoutMs` on the injected
   * clock (still `processing`: the caller fails the job with `documentMessages.stillProcessing`).
   */
  async waitUntilProcessed(orgId: string, id: string, timeoutMs: number): Promise<DocumentBundle> {
    const first = this.get(orgId, id);
    if (first.status !== 'processing') return first;
    await new Promise<void>((resolve) => {
      let timer: TimerHandle | undefined;
      const waiters = this.#waiters.get(id) ?? new Set<() => void>();
      const done = (): void => {
        this.#clock.clearTimeout(timer);
        waiters.delete(done);
        if (waiters.size === 0) this.#waiters.delete(id);
        resolve();
      };
      waiters.add(done);
      this.#waiters.set(id, waiters);
      timer = this.#clock.setTimeout(done, timeoutMs);
    });
    const row = this.#repo.get(orgId, id);
    if (!row) throw new NotFoundError(documentMessages.bundleNotFound);
    return this.get(orgId, id);
  }

  /** Removes the bundle and its files (stopping its reading first). */
  async delete(orgId: string, id: string): Promise<void> {
    this.#row(orgId, id);
    const index = this.#queue.indexOf(id);
    if (index >= 0) this.#queue.splice(index, 1);
    if (this.#current?.id === id) this.#current.abort.abort();
    this.#repo.delete(orgId, id);
    await rm(this.bundleDir(id), { recursive: true, force: true });
    this.#notify(id);
  }

  /** Stops reading (the bundle being read stays `processing` and resumes at the next start). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#queue.length = 0;
    this.#current?.abort.abort();
    await this.#draining;
    await this.#reading.close();
  }

  #notify(id: string): void {
    for (const waiter of [...(this.#waiters.get(id) ?? [])]) waiter();
  }

  #enqueue(id: string): void {
    if (this.#closed) return;
    this.#queue.push(id);
    this.#draining ??= this.#drain().finally(() => {
      this.#draining = undefined;
    });
  }

  async #drain(): Promise<void> {
    // Let the request that queued the bundle answer first.
    await new Promise<void>((resolve) => setImmediate(resolve));
    for (let id = this.#queue.shift(); id !== undefined && !this.#closed; id = this.#queue.shift()) {
      const abort = new AbortController();
      this.#current = { id, abort };
      try {
        await this.#process(id, abort.signal);
      } catch (error) {
        if (!abort.signal.aborted)
          this.#logger.error('document bundle processing failed', { bundle: id, error: describe(error) });
      } finally {
        this.#current = undefined;
      }
    }
  }

  /** Reads one document, aborting it (a clear error; a read worker is terminated) when it runs past the read time limit or the bundle is stopped. */
  async #readWithTimeout(
    file: StoredDocument,
    maxPages: number,
    target: ReadTarget,
    bundle: AbortSignal,
  ): Promise<StoredRead> {
    const controller = new AbortController();
    const stop = (): void => controller.abort(bundle.reason);
    bundle.addEventListener('abort', stop, { once: true });
    let timer: TimerHandle | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = this.#clock.setTimeout(() => {
        const error = new DocumentReadError(
          `${file.name}: took longer than ${durationText(this.#readTimeoutMs)} to read`,
        );
        controller.abort(error);
        reject(error);
      }, this.#readTimeoutMs);
    });
    try {
      return await Promise.race([
        this.#reading.readAndStore(file, { maxPages, signal: controller.signal }, target),
        timedOut,
      ]);
    } finally {
      this.#clock.clearTimeout(timer);
      bundle.removeEventListener('abort', stop);
    }
  }

  async #process(id: string, signal: AbortSignal): Promise<void> {
    const files = this.#repo.files(id);
    const dir = this.bundleDir(id);
    const outcomes: FileOutcome[] = [];
    let pagesLeft = DOCUMENT_MAX_PAGES;
    let bundleError: string | null = null;
    for (const file of files) {
      signal.throwIfAborted();
      const path = join(dir, String(file.file_index));
      let contentType = file.content_type;
      try {
        contentType = await sniffContentType(path, file.name, file.content_type);
        if (pagesLeft <= 0) throw new DocumentReadError(documentMessages.tooManyPages);
        // Read and stored off this thread (the read worker): only counts come back, never the text.
        const stored = await this.#readWithTimeout(
          { path, name: file.name, contentType, size: file.size },
          pagesLeft,
          { dir, fileIndex: file.file_index },
          signal,
        );
        signal.throwIfAborted();
        pagesLeft -= stored.pages;
        if (pagesLeft < 0) throw new DocumentReadError(documentMessages.tooManyPages);
        outcomes.push({
          fileIndex: file.file_index,
          contentType,
          pages: stored.pages,
          textChars: stored.textChars,
          error: null,
        });
      } catch (error) {
        if (signal.aborted) throw error;
        const message =
          error instanceof DocumentReadError ? error.message : `${file.name}: could not be read (${describe(error)})`;
        bundleError ??= message;
        outcomes.push({ fileIndex: file.file_index, contentType, pages: null, textChars: null, error: message });
      }
    }
    if (bundleError !== null) {
      // A failed bundle keeps no half of what was read (nor what a reader cut off mid-write left): only the uploads.
      for (const entry of await readdir(dir)) if (!/^\d+$/.test(entry)) await rm(join(dir, entry), { force: true });
      for (const outcome of outcomes) {
        outcome.pages = outcome.error ? null : outcome.pages;
      }
    }
    signal.throwIfAborted();
    this.#repo.finish(id, bundleError === null ? 'completed' : 'failed', bundleError, outcomes, isoNow(this.#clock));
    this.#notify(id);
  }
}
