import { existsSync, readdirSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp } from '../../src-main/app.ts';
import { filesForm } from '../documents/builders.ts';
import { makeDataDir, RENDERER_DIR, startService, testConfig } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';
import { expectNoProcessesUnder, listeningPorts } from '../helpers/leaks.ts';

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

  it('a failure at the very last step of a start releases every service acquired before it, each one observed', async () => {
    // By the console notice, the start has opened the store, started the browser host probes, listened,
    // recovered the queue (its poll), launched the warm job browser and the warm session browser: the
    // notice failing (as a write to a closed stderr would) must take all of them down again.
    const ports = listeningPorts();
    let port = 0;
    const failed = await startApp({
      config: testConfig(),
      dataDir,
      host: '127.0.0.1',
      port: 0,
      rendererDir: RENDERER_DIR,
      notice: (line) => {
        const listening = /^Console: http:\/\/127\.0\.0\.1:(\d+)\//.exec(line);
        if (!listening) return;
        port = Number(listening[1]);
        // Everything is up by now: the server listens and the warm session browser is launching.
        expect(listeningPorts()).toContain(port);
        throw new Error('injected: the console notice could not be written');
      },
      warmBrowser: true,
      sessionPoolSize: 1,
      samples: false,
      documentReading: { readersModule: spinReaders },
    }).then(
      () => 'started',
      (error: unknown) => error,
    );
    expect(String(failed)).toContain('injected: the console notice could not be written');
    expect(port).toBeGreaterThan(0);
    // The HTTP server: nothing listens on its port any more (and this process listens on what it did before).
    expect(listeningPorts()).toEqual(ports);
    // The warm session browser, launched or still launching: no Chromium on the data folder.
    await expectNoProcessesUnder(dataDir, 'no Chromium on the data folder');
    // The store: closed (SQLite removes a WAL database's -wal and -shm files when its last connection closes).
    expect(existsSync(join(dataDir, 'portico.db-wal'))).toBe(false);
    expect(existsSync(join(dataDir, 'portico.db-shm'))).toBe(false);
    // The timers (browser host probes, the queue's poll) are unref'd; that they were cleared is not observable from here.
  }, 60_000);
});
