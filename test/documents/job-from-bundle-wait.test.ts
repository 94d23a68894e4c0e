import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src-main/base/logger.ts';
import { DocumentService, type UploadPart } from '../../src-main/engine/documents/documentService.ts';
import { formDataFromBundle, type BundleJob } from '../../src-main/engine/documents/extractJob.ts';
import { documentReaders } from '../../src-main/engine/documents/readers/index.ts';
import { DocumentRepository } from '../../src-main/store/documents.ts';
import { openStore, type Store } from '../../src-main/store/store.ts';
import { FakeClock } from '../helpers/fakeClock.ts';

// A bundle job against the real bundle store (SQLite file, files on disk, real readers) and the injected clock.

async function* parts(files: { name: string; data: Buffer }[]): AsyncIterable<UploadPart> {
  for (const f of files) yield { type: 'file', fieldname: 'files', filename: f.name, mimetype: 'text/plain', file: Readable.from([f.data]) };
}

const job: BundleJob = {
  org_id: 'acme', orchestrator_model: 'builtin:autofill',
  portal: { form_schema: { type: 'object', properties: { full_name: { type: 'string', title: 'Full name' } }, required: ['full_name'] } },
  options: { document_bundle_id: null, human_in_the_loop: false },
};
const hooks = { ask: async () => '', event: () => {}, log: () => {} };

describe('a bundle job waits for its bundle on the injected clock', () => {
  let dir: string;
  let store: Store;
  let clock: FakeClock;
  const make = (): DocumentService => new DocumentService({
    repo: new DocumentRepository(store.db), paths: { documentsDir: join(dir, 'documents'), tmpDir: join(dir, 'tmp') },
    readers: documentReaders(), logger: createLogger('silent'), clock,
  });
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-bundle-job-'));
    store = openStore(join(dir, 'portico.db'));
    store.principals.createOrg('acme');
    clock = new FakeClock();
  });
  afterEach(async () => {
    store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('fails after 60 s with a clear error while the bundle is still processing; reads it once it is', async () => {
    const writer = make();
    const { document_bundle_id: id } = await writer.upload('acme', parts([{ name: 'a.txt', data: Buffer.from('Full name: Ada Lovelace\n') }]));
    // The writer stops before reading (as a stopped service would): the bundle stays processing.
    await writer.close();
    const documents = make();
    let outcome: unknown;
    const running = formDataFromBundle({ documents }, { ...job, options: { ...job.options, document_bundle_id: id } }, hooks).then(
      (data) => (outcome = data),
      (error: unknown) => (outcome = error),
    );
    clock.advance(59_999);
    await new Promise((resolve) => setImmediate(resolve));
    expect(outcome).toBeUndefined();
    clock.advance(1);
    await running;
    expect(outcome).toBeInstanceOf(Error);
    expect((outcome as Error).message).toBe('The document bundle was still being processed after 60 s; the job did not start');
    await documents.recover();
    expect(await formDataFromBundle({ documents }, { ...job, options: { ...job.options, document_bundle_id: id } }, hooks)).toEqual({ full_name: 'Ada Lovelace' });
    await documents.close();
  }, 60_000);
});
