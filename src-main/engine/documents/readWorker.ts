/**
 * The document read worker (a `node:worker_threads` thread): reads one stored file at a time with the
 * built-in readers (pdf.js/unpdf, pdf-lib, mammoth, exceljs, csv, tesseract.js OCR) and stores what was read
 * (readStored.ts storeRead), so a CPU-heavy, hanging or huge file never blocks the HTTP server; the main
 * thread terminates it past the read time limit. It runs from the TypeScript sources under Node's type stripping and as `out/main/readWorker.js` in the
 * electron-vite bundle (a build input of electron.vite.config.ts). Protocol: workerReading.ts.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { basename } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { documentReaders } from './readers/index.ts';
import { readStoredDocument, storeRead } from './readStored.ts';
import type { ReadRequest, ReadResponse, ReadWorkerData } from './workerReading.ts';
import { DocumentReadError, type DocumentReader } from './types.ts';

const data = (workerData ?? {}) as ReadWorkerData;

// On Linux a thread has its own nice value: this one yields the CPU to the service's thread when both want
// it, so /health and the API answer first on a busy machine and documents take the rest (issue 21, item 7).
if (process.platform === 'linux') {
  try {
    setPriority(Number(basename(readlinkSync('/proc/thread-self'))), 10);
  } catch {
    // Not allowed or no /proc: the read runs at the service's priority.
  }
}

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
      // Stored here, so the service's thread never serializes (or even receives) the document's text.
      if (request.store) return { id: request.id, ok: true, stored: await storeRead(read, request.store) };
      return { id: request.id, ok: true, read };
    } catch (error) {
      return {
        id: request.id,
        ok: false,
        readError: error instanceof DocumentReadError,
        message: error instanceof Error ? error.message : String(error),
      };
    }
  })().then((response) => port.postMessage(response));
});
