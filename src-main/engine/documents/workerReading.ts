import { Worker } from 'node:worker_threads';
import type { Logger } from '../../base/logger.ts';
import type { DocumentReading, ReadLimits, ReadTarget, StoredDocument, StoredRead } from './readStored.ts';
import { DocumentReadError, type ReadDocument } from './types.ts';

/** What the read worker is started with. */
export interface ReadWorkerData {
  /** Tests only: a module URL whose `documentReaders()` replaces the built-in readers. */
  readersModule?: string;
}

/** Main thread → worker: read one file (and, with `store`, keep what was read there and answer counts only). */
export interface ReadRequest {
  id: number;
  file: StoredDocument;
  maxPages: number;
  store?: ReadTarget;
}

/** Worker → main thread: what was read (or, for a `store` request, its counts), or why not (`readError`: a user-facing DocumentReadError message). */
export type ReadResponse =
  | { id: number; ok: true; read: ReadDocument }
  | { id: number; ok: true; stored: StoredRead }
  | { id: number; ok: false; readError: boolean; message: string };

export interface WorkerReadingOptions {
  logger?: Logger;
  /** The worker's entry; default `readWorker.ts` next to this source, or `readWorker.js` next to the bundle (out/main). */
  workerUrl?: URL;
  readersModule?: string;
  /** The worker's JavaScript heap (MB): a file that needs more fails its bundle instead of the service. Default 2048. */
  maxHeapMb?: number;
}

/**
 * The read worker's entry for this build. From sources (`node src-main/serve.ts`, vitest) this module is a
 * `.ts` file and the worker is its sibling `readWorker.ts`; in the electron-vite bundle this code is part of
 * `out/main/index.js` and the worker is `out/main/readWorker.js` beside it (a self-contained bundle made by the
 * `portico-read-worker` plugin of electron.vite.config.ts).
 */
export function defaultReadWorkerUrl(): URL {
  const here = import.meta.url;
  return new URL(here.endsWith('.ts') ? 'readWorker.ts' : 'readWorker.js', here);
}

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * Reads bundle files in one worker thread, one file at a time, so the HTTP server keeps answering while a
 * file is read. The worker is started on first use and kept (the OCR engine stays loaded); an abort (the read
 * time limit, DELETE, shutdown) terminates it and the next file starts a new one. A worker that dies (out of
 * memory, a crash in a reader) fails only the file it was reading.
 */
export class WorkerReading implements DocumentReading {
  readonly #options: WorkerReadingOptions;
  #worker: Worker | undefined;
  #nextId = 1;
  #pending:
    | {
        id: number;
        resolve: (response: ReadResponse & { ok: true }) => void;
        reject: (error: unknown) => void;
        name: string;
      }
    | undefined;

  constructor(options: WorkerReadingOptions = {}) {
    this.#options = options;
  }

  #start(): Worker {
    const data: ReadWorkerData = this.#options.readersModule ? { readersModule: this.#options.readersModule } : {};
    const worker = new Worker(this.#options.workerUrl ?? defaultReadWorkerUrl(), {
      workerData: data,
      resourceLimits: { maxOldGenerationSizeMb: this.#options.maxHeapMb ?? 2048 },
      stdout: false,
      stderr: false,
    });
    worker.unref();
    worker.on('message', (response: ReadResponse) => {
      const pending = this.#pending;
      if (!pending || pending.id !== response.id) return;
      this.#pending = undefined;
      if (response.ok) pending.resolve(response);
      else pending.reject(response.readError ? new DocumentReadError(response.message) : new Error(response.message));
    });
    const died = (reason: string): void => {
      if (this.#worker === worker) this.#worker = undefined;
      const pending = this.#pending;
      if (!pending) return;
      this.#pending = undefined;
      this.#options.logger?.warn('document read worker stopped', { document: pending.name, reason });
      pending.reject(new DocumentReadError(`${pending.name}: could not be read (the reader stopped: ${reason})`));
    };
    worker.on('error', (error) => died(describe(error)));
    worker.on('exit', (code) => died(`exit code ${code}`));
    this.#worker = worker;
    return worker;
  }

  async read(file: StoredDocument, limits: ReadLimits): Promise<ReadDocument> {
    const response = await this.#ask(file, limits, undefined);
    if (!('read' in response)) throw new Error('the read worker answered a read with counts');
    return response.read;
  }

  /** The worker reads and stores the file itself: only counts cross to this thread, never the text. */
  async readAndStore(file: StoredDocument, limits: ReadLimits, target: ReadTarget): Promise<StoredRead> {
    const response = await this.#ask(file, limits, target);
    if (!('stored' in response)) throw new Error('the read worker answered a store request with the whole read');
    return response.stored;
  }

  #ask(file: StoredDocument, limits: ReadLimits, store: ReadTarget | undefined): Promise<ReadResponse & { ok: true }> {
    limits.signal?.throwIfAborted();
    if (this.#pending) return Promise.reject(new Error('the read worker is already reading a file'));
    const worker = this.#worker ?? this.#start();
    const id = this.#nextId++;
    return new Promise<ReadResponse & { ok: true }>((resolve, reject) => {
      const signal = limits.signal;
      const onAbort = (): void => {
        if (this.#pending?.id !== id) return;
        this.#pending = undefined;
        if (this.#worker === worker) this.#worker = undefined;
        void worker.terminate();
        reject(signal?.reason);
      };
      this.#pending = {
        id,
        name: file.name,
        resolve: (response) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(response);
        },
        reject: (error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const request: ReadRequest = {
        id,
        file: { path: file.path, name: file.name, contentType: file.contentType, size: file.size },
        maxPages: limits.maxPages,
        ...(store && { store: { dir: store.dir, fileIndex: store.fileIndex } }),
      };
      worker.postMessage(request);
    });
  }

  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    const pending = this.#pending;
    this.#pending = undefined;
    pending?.reject(new Error('the document reader is closing'));
    await worker?.terminate();
  }
}
