import { rm } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { startApp } from '../../src-main/app.ts';
import { FakeClock } from '../helpers/fakeClock.ts';
import { jsonOf, makeDataDir, RENDERER_DIR, startService, testConfig } from '../helpers/service.ts';

describe('first start and restart', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('first start prints both keys and the console URL once; a restart prints no keys and keeps every row', async () => {
    const dataDir = await makeDataDir();
    dirs.push(dataDir);
    const first = await startService(dataDir);
    expect(first.orgKey).toMatch(/^pk_org_/);
    expect(first.accountKey).toMatch(/^pk_acct_/);
    await first.api('/portals/default', {
      method: 'POST',
      json: { endpoint_name: 'kept', start_url: 'https://k.test', task: 'stay', form_schema: { type: 'object' } },
    });
    await first.stop();

    const notices: string[] = [];
    const second = await startApp({
      config: testConfig(),
      dataDir,
      port: 0,
      rendererDir: RENDERER_DIR,
      notice: (line) => notices.push(line),
    });
    try {
      expect(notices.join('\n')).not.toMatch(/pk_/);
      const res = await fetch(`${second.url}/portals/default/kept`, { headers: { 'x-api-key': first.orgKey } });
      expect(await jsonOf(res)).toMatchObject({
        status: 200,
        body: { endpoint_name: 'kept', task: 'stay', form_schema: { type: 'object' } },
      });
    } finally {
      await second.close();
    }
  });

  it('the first-start notice names the console URL with the real port', async () => {
    const dataDir = await makeDataDir();
    dirs.push(dataDir);
    const notices: string[] = [];
    const app = await startApp({
      config: testConfig(),
      dataDir,
      port: 0,
      rendererDir: RENDERER_DIR,
      notice: (line) => notices.push(line),
    });
    try {
      expect(app.port).toBeGreaterThan(0);
      expect(notices.join('\n')).toContain(`Console: ${app.url}/`);
    } finally {
      await app.close();
    }
  });

  it('a start on a busy port fails with EADDRINUSE and leaves nothing running behind it', async () => {
    const svc = await startService();
    dirs.push(svc.dataDir);
    const other = await makeDataDir();
    dirs.push(other);
    // Every timer the app sets goes through its clock (AppOptions.clock): a manual one shows what is left.
    const clock = new FakeClock();
    try {
      await expect(
        startApp({
          config: testConfig(),
          dataDir: other,
          port: svc.app.port,
          rendererDir: RENDERER_DIR,
          notice: () => undefined,
          warmBrowser: false,
          clock,
        }),
      ).rejects.toMatchObject({ code: 'EADDRINUSE' });
      // The failed start must leave no timer polling its closed database (it would throw from a timer).
      expect(clock.pending()).toEqual([]);
      const running = new FakeClock();
      const retry = await startApp({
        config: testConfig(),
        dataDir: other,
        port: 0,
        rendererDir: RENDERER_DIR,
        notice: () => undefined,
        warmBrowser: false,
        clock: running,
      });
      // A start that succeeded does poll (the job queue's, at least): the check above can see one.
      expect(running.pending().length).toBeGreaterThan(0);
      await retry.close();
      expect(running.pending()).toEqual([]);
    } finally {
      await svc.stop();
    }
  });

  it('close is idempotent and frees the port', async () => {
    const svc = await startService();
    dirs.push(svc.dataDir);
    await svc.stop();
    await svc.stop();
    await expect(fetch(`${svc.url}/health`)).rejects.toThrow();
  });
});
