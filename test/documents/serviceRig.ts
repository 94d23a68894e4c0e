import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach } from 'vitest';
import { createLogger } from '../../src-main/base/logger.ts';
import { DocumentService, type UploadPart } from '../../src-main/engine/documents/documentService.ts';
import { documentReaders } from '../../src-main/engine/documents/readers/index.ts';
import type { DocumentReader } from '../../src-main/engine/documents/types.ts';
import { DocumentRepository } from '../../src-main/store/documents.ts';
import { openStore, type Store } from '../../src-main/store/store.ts';
import { FakeClock } from '../helpers/fakeClock.ts';

/** Files as the multipart upload hands them to DocumentService, all of one content type. */
export async function* uploadParts(
  files: { name: string; data: Buffer }[],
  mimetype: string,
): AsyncIterable<UploadPart> {
  for (const f of files)
    yield { type: 'file', fieldname: 'files', filename: f.name, mimetype, file: Readable.from([f.data]) };
}

/** A real bundle store for one test: a SQLite file and a documents folder in a fresh temp folder, on a fake clock. */
export interface DocumentServiceRig {
  readonly clock: FakeClock;
  /** A DocumentService over the rig's store and folders; the real readers in this thread unless others are given. */
  make(readers?: readonly DocumentReader[]): DocumentService;
}

/** Registers beforeEach/afterEach that make (with `orgs`) and remove a fresh rig around every test of the suite. */
export function useDocumentServiceRig(prefix: string, orgs: readonly string[]): DocumentServiceRig {
  let dir = '';
  let store: Store | undefined;
  let clock = new FakeClock();
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
    store = openStore(join(dir, 'portico.db'));
    for (const org of orgs) store.principals.createOrg(org);
    clock = new FakeClock();
  });
  afterEach(async () => {
    store?.close();
    store = undefined;
    await rm(dir, { recursive: true, force: true });
  });
  const current = (): Store => {
    if (!store) throw new Error('the document service rig is used outside a test');
    return store;
  };
  return {
    get clock() {
      return clock;
    },
    make: (readers = documentReaders()) =>
      new DocumentService({
        repo: new DocumentRepository(current().db),
        paths: { documentsDir: join(dir, 'documents'), tmpDir: join(dir, 'tmp') },
        readers,
        logger: createLogger('silent'),
        clock,
      }),
  };
}
