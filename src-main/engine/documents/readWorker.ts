/**
 * The document read worker (a `node:worker_threads` thread): reads one stored file at a time with the
 * built-in readers (pdf.js/unpdf, pdf-lib, mammoth, exceljs, csv, tesseract.js OCR) so a CPU-heavy or
 * hanging file never blocks the HTTP server; the main thread terminates it past the read time limit.
 * It runs from the TypeScript sources under Node's type stripping and as `out/main/readWorker.js` in the
 * electron-vite bundle (a build input of electron.vite.config.ts). Protocol: readingWorker.ts.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { documentReaders } from './readers/index.ts';
import { readStoredDocument } from './readStored.ts';
import type { ReadRequest, ReadResponse, ReadWorkerData } from './readingWorker.ts';
import { DocumentReadError, type DocumentReader } from './types.ts';

const data = (workerData ?? {}) as ReadWorkerData;

async function loadReaders(): Promise<readonly DocumentReader[]> {
  if (!data.readersModule) return documentReaders();
  // Tests only: a module whose `documentReaders()` adds readers (e.g. one that spins) to the built-in ones.
  const module = (await import(data.readersModule)) as { documentReaders(): DocumentReader[] };
  return module.documentReaders();
}

const readers = loadReaders();
const port = parentPort;
if (!port) throw new Error('readWorker.ts runs only as a worker thread');

port.on('message', (request: ReadRequest) => {
  void (async (): Promise<ReadResponse> => {
    try {
      const read = await readStoredDocument(await readers, request.file, { maxPages: request.maxPages });
      return { id: request.id, ok: true, read };
    } catch (error) {
      return { id: request.id, ok: false, readError: error instanceof DocumentReadError, message: error instanceof Error ? error.message : String(error) };
    }
  })().then((response) => port.postMessage(response));
});
