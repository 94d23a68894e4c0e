import { existsSync, readdirSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp } from '../../src-main/app.ts';
import { filesForm } from '../documents/builders.ts';
import { makeDataDir, RENDERER_DIR, startService, testConfig } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';

// A reader that spins forever on `spin.txt` (leaving `<stored file>.spinning` when it starts).
const spinReaders = new URL('../documents/fixtures/spinReaders.ts', import.meta.url).href;

// issue 23 item 3: a start that fails half-way releases what it acquired before the failure (base/lifecycle.ts).
describe('a start that fails half-way', () => {
  let blocker: Server;
  let busyPort: number;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await makeDataDir();
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const address = blocker.address();
    busyPort = typeof address === 'object' && address ? address.port : 0;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => blocker.close(() => resolve()));
    await rm(dataDir, { recursive: true, force: true });
  });

  it('reports the listen error and leaves nothing running: the resumed document read stopped, the database closed', async () => {
    // A first run leaves a bundle mid-read: the next start resumes reading it (a worker thread) before it listens.
    const first = await startService(dataDir, { documentReading: { readersModule: spinReaders } });
    const upload = await first.api('/documents/default', {
      method: 'POST',
      body: filesForm([{ name: 'spin.txt', data: Buffer.from('Name: never') }]),
    });
    const bundleId = String(((await upload.json()) as { document_bundle_id: string }).document_bundle_id);
    const marker = join(dataDir, 'documents', bundleId, '0.spinning');
    await until(() => existsSync(marker), 'the first run reading the file');
    await first.stop();
    rmSync(marker);

    const threads = (): number => readdirSync('/proc/self/task').length;
    const before = threads();
    const failed = await startApp({
      config: testConfig(),
      dataDir,
      host: '127.0.0.1',
      port: busyPort,
      rendererDir: RENDERER_DIR,
      notice: () => {},
      warmBrowser: false,
      samples: false,
      documentReading: { readersModule: spinReaders },
    }).then(
      () => 'started',
      (error: unknown) => error,
    );
    expect(failed).toMatchObject({ code: 'EADDRINUSE' });
    // The resumed read was stopped with the failed start: no worker thread is left spinning (Linux lists a
    // process's threads in /proc/self/task; a worker thread is one of them until it has ended).
    expect(threads()).toBeLessThanOrEqual(before);
    // SQLite removes a WAL database's -wal and -shm files when its last connection closes: the store was closed.
    expect(existsSync(join(dataDir, 'portico.db-wal'))).toBe(false);
    expect(existsSync(join(dataDir, 'portico.db-shm'))).toBe(false);
  }, 60_000);
});
