// tier: unit
import { describe, expect, it } from 'vitest';
import { DOCUMENT_READ_TIMEOUT_MS } from '../../src-main/engine/documents/documentService.ts';
import type { DocumentReader } from '../../src-main/engine/documents/types.ts';
import { textPdf } from './builders.ts';
import { uploadParts, useDocumentServiceRig } from './serviceRig.ts';

const parts = (files: { name: string; data: Buffer }[]) => uploadParts(files, 'application/pdf');

describe('DocumentService', () => {
  const rig = useDocumentServiceRig('portico-docs-', ['acme', 'other']);
  const make = () => rig.make();

  it('waitUntilProcessed resolves when the bundle is read, and read() gives the documents with their sources', async () => {
    const documents = make();
    const { document_bundle_id: id } = await documents.upload(
      'acme',
      parts([{ name: 'a.pdf', data: await textPdf([['Name: Ada']]) }]),
    );
    const bundle = await documents.waitUntilProcessed('acme', id, 60_000);
    expect(bundle.status).toBe('completed');
    expect(bundle.created_at).toBe(rig.clock.now().toISOString());
    const read = await documents.read('acme', id);
    expect(read).toHaveLength(1);
    expect(read[0]?.fields).toEqual([
      { name: 'Name', value: 'Ada', kind: 'label_line', source: { document: 'a.pdf', page: 1, text: 'Name: Ada' } },
    ]);
    await expect(documents.read('other', id)).rejects.toMatchObject({
      status: 404,
      detail: 'Document bundle not found',
    });
    await documents.close();
  }, 60_000);

  it('a job waits up to 60 s on the injected clock for a bundle still processing, then sees it still processing', async () => {
    const writer = make();
    const { document_bundle_id: id } = await writer.upload(
      'acme',
      parts([{ name: 'a.pdf', data: await textPdf([['Name: Ada']]) }]),
    );
    // The writer stops before reading (as a stopped service would): the bundle stays processing.
    await writer.close();
    const waiter = make();
    await expect(waiter.read('acme', id)).rejects.toMatchObject({ status: 409 });
    let settled: string | undefined;
    const waiting = waiter.waitUntilProcessed('acme', id, 60_000).then((b) => {
      settled = b.status;
      return b;
    });
    rig.clock.advance(59_999);
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBeUndefined();
    rig.clock.advance(1);
    expect((await waiting).status).toBe('processing');
    expect(rig.clock.pending()).toEqual([]);
    // Recovery reads it; a new wait resolves with the result, no clock needed.
    await waiter.recover();
    expect((await waiter.waitUntilProcessed('acme', id, 60_000)).status).toBe('completed');
    await waiter.close();
  }, 60_000);
});

describe('DocumentService read time limit', () => {
  const rig = useDocumentServiceRig('portico-docs-', ['acme']);

  it('a document that never finishes reading fails its bundle after 5 minutes on the service clock, and the reader is aborted', async () => {
    const { clock } = rig;
    let aborted = false;
    let started = false;
    // A reader that waits for its abort signal, as pdf.js stuck on a hostile file would keep the queue.
    const stuck: DocumentReader = {
      accepts: () => true,
      read: (_file, limits) =>
        new Promise((_, reject) => {
          started = true;
          limits.signal?.addEventListener('abort', () => {
            aborted = true;
            reject(limits.signal?.reason);
          });
        }),
    };
    const documents = rig.make([stuck]);
    try {
      const { document_bundle_id: id } = await documents.upload(
        'acme',
        parts([{ name: 'slow.pdf', data: Buffer.from('%PDF-1.7\n') }]),
      );
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
    }
  }, 60_000);
});
