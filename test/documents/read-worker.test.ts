import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkerReading } from '../../src-main/engine/documents/workerReading.ts';
import { FakeClock } from '../helpers/fakeClock.ts';
import { jsonOf, makeDataDir, startService, type TestService } from '../helpers/service.ts';
import { filesForm, textPdf } from './builders.ts';

const spinReaders = new URL('./fixtures/spinReaders.ts', import.meta.url).href;
const builtWorker = new URL('../../out/main/readWorker.js', import.meta.url);

interface Bundle {
  id: string;
  status: string;
  documents: { name: string; pages: number | null; error: string | null }[];
  error: string | null;
}

async function upload(svc: TestService, files: Parameters<typeof filesForm>[0]): Promise<string> {
  const res = await jsonOf(await svc.api('/documents/default', { method: 'POST', body: filesForm(files) }));
  expect(res.status).toBe(200);
  return String((res.body as { document_bundle_id: string }).document_bundle_id);
}

async function bundleOf(svc: TestService, id: string): Promise<Bundle> {
  return (await (
    await svc.request('getDocumentBundle', { params: { org_id: 'default', document_bundle_id: id } })
  ).json()) as Bundle;
}

async function settled(svc: TestService, id: string): Promise<Bundle> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const bundle = await bundleOf(svc, id);
    if (bundle.status !== 'processing') return bundle;
    if (Date.now() > deadline) throw new Error(`bundle ${id} still processing`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Waits until the spinning reader runs on the bundle's file `index` (the fixture leaves `<index>.spinning`). */
async function spinning(dataDir: string, id: string, index: number): Promise<void> {
  const marker = join(dataDir, 'documents', id, `${index}.spinning`);
  const deadline = Date.now() + 60_000;
  while (!existsSync(marker)) {
    if (Date.now() > deadline) throw new Error('the spinning reader never ran');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('documents are read in a worker thread', () => {
  let svc: TestService;
  let dataDir: string;
  const clock = new FakeClock();
  const timeoutMs = 90_000;

  beforeAll(async () => {
    dataDir = await makeDataDir();
    // The read time limit comes from settings.json (document_read_timeout_s), on the service clock.
    await writeFile(join(dataDir, 'settings.json'), JSON.stringify({ document_read_timeout_s: timeoutMs / 1000 }));
    svc = await startService(dataDir, { clock: clock, documentReading: { readersModule: spinReaders } });
  }, 60_000);
  afterAll(async () => svc?.dispose());

  it('a file whose reader spins the CPU does not block the server; past the time limit its bundle fails and the next bundle reads', async () => {
    const id = await upload(svc, [
      { name: 'ok.txt', data: Buffer.from('Name: fine') },
      { name: 'spin.txt', data: Buffer.from('Name: never') },
    ]);
    await spinning(dataDir, id, 1);
    // ok.txt was read first; spin.txt now holds the worker busy. The server keeps answering.
    for (let i = 0; i < 3; i += 1) {
      const health = await svc.request('getHealth', {}, { key: null });
      expect(health.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect((await bundleOf(svc, id)).status).toBe('processing');
    }
    clock.advance(timeoutMs);
    const bundle = await settled(svc, id);
    expect(bundle.status).toBe('failed');
    expect(bundle.error).toBe('spin.txt: took longer than 90 seconds to read');
    expect(bundle.documents.map((d) => d.error)).toEqual([null, 'spin.txt: took longer than 90 seconds to read']);
    // Nothing half-written: the readable file's result went with the failed bundle.
    expect(existsSync(join(dataDir, 'documents', id, '0.read.json'))).toBe(false);

    const next = await upload(svc, [{ name: 'letter.pdf', data: await textPdf([['Full name: Ada Lovelace']]) }]);
    const read = await settled(svc, next);
    expect(read).toMatchObject({ status: 'completed', error: null });
    expect(read.documents[0]?.pages).toBe(1);
  }, 120_000);

  it('a reader that ends its worker fails only its bundle, clearly; the next bundle is read by a new worker', async () => {
    const id = await upload(svc, [{ name: 'crash.txt', data: Buffer.from('Name: gone') }]);
    const bundle = await settled(svc, id);
    expect(bundle).toMatchObject({
      status: 'failed',
      error: 'crash.txt: could not be read (the reader stopped: exit code 3)',
    });
    const next = await upload(svc, [{ name: 'fine.txt', data: Buffer.from('Name: fine') }]);
    expect(await settled(svc, next)).toMatchObject({ status: 'completed', error: null });
    expect((await svc.request('getHealth', {}, { key: null })).status).toBe(200);
  }, 60_000);

  it('a stop mid-read leaves the bundle processing; after the restart it is read again and completes', async () => {
    const id = await upload(svc, [{ name: 'spin.txt', data: Buffer.from('Full name: Grace Hopper') }]);
    await spinning(dataDir, id, 0);
    expect((await bundleOf(svc, id)).status).toBe('processing');
    const key = svc.orgKey;
    await svc.stop();
    // Restarted without the spinning reader: the same file is now plain text.
    svc = await startService(dataDir, { clock: clock });
    const res = await fetch(`${svc.url}/documents/default/${id}`, { headers: { 'x-api-key': key } });
    let bundle = (await res.json()) as Bundle;
    const deadline = Date.now() + 60_000;
    while (bundle.status === 'processing' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      bundle = (await (
        await fetch(`${svc.url}/documents/default/${id}`, { headers: { 'x-api-key': key } })
      ).json()) as Bundle;
    }
    expect(bundle).toMatchObject({ status: 'completed', error: null });
    expect(bundle.documents[0]).toMatchObject({ name: 'spin.txt', pages: 1, error: null });
  }, 120_000);
});

describe('document_read_timeout_s in settings.json', () => {
  it('out of range stops start-up naming the file and the field', async () => {
    const dataDir = await makeDataDir();
    try {
      const file = join(dataDir, 'settings.json');
      await writeFile(file, JSON.stringify({ document_read_timeout_s: 0 }));
      await expect(startService(dataDir)).rejects.toThrow(`${file}: document_read_timeout_s: `);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('the bundled read worker (out/main/readWorker.js, electron-vite build)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-readworker-'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it.runIf(existsSync(fileURLToPath(builtWorker)))(
    'is one self-contained file: it imports only Node built-ins and runtime dependencies',
    () => {
      const code = readFileSync(builtWorker, 'utf8');
      const dependencies = (
        JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
          dependencies: Record<string, string>;
        }
      ).dependencies;
      const specifiers = new Set(
        [...code.matchAll(/^\s*import\s[^'"]*?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm)].map(
          (m) => m[1] ?? m[2] ?? '',
        ),
      );
      expect(specifiers.has('unpdf')).toBe(true);
      const packageOf = (s: string): string =>
        s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : (s.split('/')[0] ?? s);
      const builtins = new Set(builtinModules);
      expect(
        [...specifiers].filter((s) => !(s.startsWith('node:') || builtins.has(s) || packageOf(s) in dependencies)),
      ).toEqual([]);
    },
  );

  it.runIf(existsSync(fileURLToPath(builtWorker)))(
    'reads a text PDF with its sources, as the desktop app does',
    async () => {
      const path = join(dir, 'letter.pdf');
      writeFileSync(path, await textPdf([['Full name: Ada Lovelace']]));
      const reading = new WorkerReading({ workerUrl: builtWorker });
      try {
        const read = await reading.read(
          { path, name: 'letter.pdf', contentType: 'application/pdf', size: 1 },
          { maxPages: 200 },
        );
        expect(read.pages).toBe(1);
        expect(read.fields[0]).toMatchObject({
          name: 'Full name',
          value: 'Ada Lovelace',
          source: { document: 'letter.pdf', page: 1 },
        });
      } finally {
        await reading.close();
      }
    },
    60_000,
  );
});
