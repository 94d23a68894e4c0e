import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src-main/base/logger.ts';
import { DOCUMENT_READ_TIMEOUT_MS, DocumentService, type UploadPart } from '../../src-main/engine/documents/documentService.ts';
import type { DocumentReader } from '../../src-main/engine/documents/types.ts';
import { documentReaders } from '../../src-main/engine/documents/readers/index.ts';
import { DocumentRepository } from '../../src-main/store/documents.ts';
import { openStore, type Store } from '../../src-main/store/store.ts';
import { FakeClock } from '../helpers/fakeClock.ts';
import { textPdf } from './builders.ts';

async function* parts(files: { name: string; data: Buffer }[]): AsyncIterable<UploadPart> {
  for (const f of files) yield { type: 'file', fieldname: 'files', filename: f.name, mimetype: 'application/pdf', file: Readable.from([f.data]) };
}

describe('DocumentService', () => {
  let dir: string;
  let store: Store;
  let clock: FakeClock;
  const make = (): DocumentService => new DocumentService({
    repo: new DocumentRepository(store.db), paths: { documentsDir: join(dir, 'documents'), tmpDir: join(dir, 'tmp') },
    readers: documentReaders(), logger: createLogger('silent'), clock,
  });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-docs-'));
    store = openStore(join(dir, 'portico.db'));
    store.principals.createOrg('acme');
    store.principals.createOrg('other');
    clock = new FakeClock();
  });
  afterEach(async () => {
    store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('waitUntilProcessed resolves when the bundle is read, and read() gives the documents with their sources', async () => {
    const documents = make();
    const { document_bundle_id: id } = await documents.upload('acme', parts([{ name: 'a.pdf', data: await textPdf([['Name: Ada']]) }]));
    const bundle = await documents.waitUntilProcessed('acme', id, 60_000);
    expect(bundle.status).toBe('completed');
    expect(bundle.created_at).toBe(clock.now().toISOString());
    const read = await documents.read('acme', id);
    expect(read).toHaveLength(1);
    expect(read[0]?.fields).toEqual([{ name: 'Name', value: 'Ada', kind: 'label_line', source: { document: 'a.pdf', page: 1, text: 'Name: Ada' } }]);
    await expect(documents.read('other', id)).rejects.toMatchObject({ status: 404, detail: 'Document bundle not found' });
    await documents.close();
  }, 60_000);

  it('a job waits up to 60 s on the injected clock for a bundle still processing, then sees it still processing', async () => {
    const writer = make();
    const { document_bundle_id: id } = await writer.upload('acme', parts([{ name: 'a.pdf', data: await textPdf([['Name: Ada']]) }]));
    // The writer stops before reading (as a stopped service would): the bundle stays processing.
    await writer.close();
    const waiter = make();
    await expect(waiter.read('acme', id)).rejects.toMatchObject({ status: 409 });
    let settled: string | undefined;
    const waiting = waiter.waitUntilProcessed('acme', id, 60_000).then((b) => {
      settled = b.status;
      return b;
    });
    clock.advance(59_999);
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBeUndefined();
    clock.advance(1);
    expect((await waiting).status).toBe('processing');
    expect(clock.pending()).toEqual([]);
    // Recovery reads it; a new wait resolves with the result, no clock needed.
    await waiter.recover();
    expect((await waiter.waitUntilProcessed('acme', id, 60_000)).status).toBe('completed');
    await waiter.close();
  }, 60_000);
});

describe('DocumentService read time limit', () => {
  it('a document that never finishes reading fails its bundle after 5 minutes on the service clock, and the reader is aborted', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'portico-docs-'));
    const store = openStore(join(dir, 'portico.db'));
    store.principals.createOrg('acme');
    const clock = new FakeClock();
    let aborted = false;
    let started = false;
    // A reader that waits for its abort signal, as pdf.js stuck on a hostile file would keep the queue.
    const stuck: DocumentReader = {
      accepts: () => true,
      read: (_file, limits) => new Promise((_, reject) => {
        started = true;
        limits.signal?.addEventListener('abort', () => {
          aborted = true;
          reject(limits.signal?.reason);
        });
      }),
    };
    const documents = new DocumentService({
      repo: new DocumentRepository(store.db), paths: { documentsDir: join(dir, 'documents'), tmpDir: join(dir, 'tmp') },
      readers: [stuck], logger: createLogger('silent'), clock,
    });
    try {
      const { document_bundle_id: id } = await documents.upload('acme', parts([{ name: 'slow.pdf', data: Buffer.from('%PDF-1.7\n') }]));
      const waiting = documents.waitUntilProcessed('acme', id, 10 * 60_000);
      while (!started || clock.pending().length < 2) await new Promise((resolve) => setImmediate(resolve));
      clock.advance(DOCUMENT_READ_TIMEOUT_MS - 1);
      await new Promise((resolve) => setImmediate(resolve));
      expect(documents.get('acme', id).status).toBe('processing');
      clock.advance(1);
      const bundle = await waiting;
      expect(bundle).toMatchObject({ status: 'failed', error: 'slow.pdf: took longer than 5 minutes to read' });
      expect(bundle.documents[0]?.error).toBe('slow.pdf: took longer than 5 minutes to read');
      expect(aborted).toBe(true);
    } finally {
      await documents.close();
      store.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
