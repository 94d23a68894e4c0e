// tier: unit
import { describe, expect, it } from 'vitest';
import { formDataFromBundle, type BundleJob } from '../../src-main/engine/documents/extractJob.ts';
import { uploadParts, useDocumentServiceRig } from './serviceRig.ts';

// A bundle job against the real bundle store (SQLite file, files on disk, real readers) and the injected clock.

const parts = (files: { name: string; data: Buffer }[]) => uploadParts(files, 'text/plain');

const job: BundleJob = {
  org_id: 'acme',
  orchestrator_model: 'builtin:autofill',
  portal: {
    form_schema: {
      type: 'object',
      properties: { full_name: { type: 'string', title: 'Full name' } },
      required: ['full_name'],
    },
  },
  options: { document_bundle_id: null, human_in_the_loop: false },
};
const hooks = { ask: async () => '', event: () => {}, log: () => {} };

describe('a bundle job waits for its bundle on the injected clock', () => {
  const rig = useDocumentServiceRig('portico-bundle-job-', ['acme']);
  const make = () => rig.make();

  it('fails after 60 s with a clear error while the bundle is still processing; reads it once it is', async () => {
    const writer = make();
    const { document_bundle_id: id } = await writer.upload(
      'acme',
      parts([{ name: 'a.txt', data: Buffer.from('Full name: Ada Lovelace\n') }]),
    );
    // The writer stops before reading (as a stopped service would): the bundle stays processing.
    await writer.close();
    const documents = make();
    let outcome: unknown;
    const running = formDataFromBundle(
      { documents },
      { ...job, options: { ...job.options, document_bundle_id: id } },
      hooks,
    ).then(
      (data) => (outcome = data),
      (error: unknown) => (outcome = error),
    );
    rig.clock.advance(59_999);
    await new Promise((resolve) => setImmediate(resolve));
    expect(outcome).toBeUndefined();
    rig.clock.advance(1);
    await running;
    expect(outcome).toBeInstanceOf(Error);
    expect((outcome as Error).message).toBe(
      'The document bundle was still being processed after 60 s; the job did not start',
    );
    await documents.recover();
    expect(
      await formDataFromBundle({ documents }, { ...job, options: { ...job.options, document_bundle_id: id } }, hooks),
    ).toEqual({ full_name: 'Ada Lovelace' });
    await documents.close();
  }, 60_000);
});
