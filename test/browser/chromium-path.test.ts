import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserRuntime } from '../../src-main/browser/browserRuntime.ts';
import { html, scratchDir, startPageServer, type LocalServer } from '../helpers/browserFixtures.ts';
import { CHROMIUM_PATH } from '../helpers/chromium.ts';
import { scriptedRegistry } from '../helpers/scriptedAgents.ts';
import { jsonOf, startService, waitForJob } from '../helpers/service.ts';

/** A Chromium "install" that is the real one behind a script noting each launch (not `--version` checks). */
function wrappedChromium(dir: string, name: string): { path: string; launches(): number } {
  const path = join(dir, name);
  const marker = `${path}.launches`;
  writeFileSync(
    path,
    `#!/bin/sh\n[ "$1" = "--version" ] || echo launched >> '${marker}'\nexec '${CHROMIUM_PATH}' "$@"\n`,
  );
  chmodSync(path, 0o755);
  return {
    path,
    launches: () => (existsSync(marker) ? readFileSync(marker, 'utf8').split('\n').filter(Boolean).length : 0),
  };
}

describe('changing the Chromium path while the service runs', () => {
  const data = scratchDir('portico-data-');
  const bin = scratchDir('portico-bin-');
  let pages: LocalServer;

  beforeAll(async () => {
    pages = await startPageServer({ '/': html('<title>Home</title><p id="home">home</p>') });
  });
  afterAll(async () => {
    await pages?.close();
    data.cleanup();
    bin.cleanup();
  });

  it('the next lease launches the new Chromium; a running lease keeps its browser until it ends', async () => {
    const first = wrappedChromium(bin.path, 'chromium-a');
    const second = wrappedChromium(bin.path, 'chromium-b');
    const runtime = new BrowserRuntime({ dataDir: data.path, executablePath: first.path, spareContext: true });
    try {
      await runtime.warm();
      const running = await runtime.lease({ downloadsDir: join(data.path, 'dl-1') });
      await running.page.goto(pages.url('/'));
      expect(first.launches()).toBe(1);

      await runtime.setExecutablePath(second.path);
      // The warm runtime re-warms on the new Chromium; the old browser stays for the running lease.
      await expect.poll(() => second.launches()).toBe(1);
      expect(await running.page.locator('#home').textContent()).toBe('home');
      const next = await runtime.lease({ downloadsDir: join(data.path, 'dl-2') });
      expect(next.context.browser()).not.toBe(running.context.browser());
      await next.page.goto(pages.url('/'));
      expect(await next.page.title()).toBe('Home');
      expect(runtime.resources().browsers).toBe(2);

      // The old browser closes with its last lease.
      await running.close();
      await expect.poll(() => runtime.resources().browsers).toBe(1);
      await next.close();
      expect(first.launches()).toBe(1);
      expect(second.launches()).toBe(1);

      // Back to discovery (undefined): an idle shared browser is closed and relaunched from the usual paths.
      await runtime.setExecutablePath(undefined);
      const discovered = await runtime.lease({});
      await discovered.page.goto(pages.url('/'));
      await discovered.close();
      expect(second.launches()).toBe(1);
    } finally {
      await runtime.close();
    }
    expect(runtime.resources()).toMatchObject({ browsers: 0, contexts: 0, leases: 0 });
  });

  it('saved from the console (PATCH /admin/settings), the path is used by the next job; a bad path is 422', async () => {
    const chosen = wrappedChromium(bin.path, 'chromium-console');
    const svc = await startService(undefined, { agents: scriptedRegistry });
    try {
      const asConsole = { key: null, headers: { 'x-console-token': svc.consoleToken } };
      expect(
        (
          await svc.request('createPortal', {
            params: { org_id: 'default' },
            body: { endpoint_name: 'visit', start_url: pages.url('/'), task: 'script:visit' },
          })
        ).status,
      ).toBe(200);
      const runVisit = async () => {
        const { job_id } = (await (
          await svc.request('startJob', {
            params: { org_id: 'default', endpoint_name: 'visit' },
            body: { form_data: {} },
          })
        ).json()) as { job_id: string };
        expect(await waitForJob(svc, 'visit', job_id, ['completed', 'failed'])).toMatchObject({
          status: 'completed',
          result: { title: 'Home' },
        });
      };
      // A browser is already running on the discovered Chromium: the change must not wait for a restart.
      await runVisit();
      const bad = await jsonOf(
        await svc.api('/admin/settings', {
          ...asConsole,
          method: 'PATCH',
          json: { chromium_path: join(bin.path, 'missing') },
        }),
      );
      expect(bad.status).toBe(422);
      const saved = await jsonOf(
        await svc.api('/admin/settings', { ...asConsole, method: 'PATCH', json: { chromium_path: chosen.path } }),
      );
      expect(saved).toMatchObject({ status: 200, body: { chromium: { configured_path: chosen.path, error: null } } });
      expect(chosen.launches()).toBe(0);
      await runVisit();
      expect(chosen.launches()).toBe(1);
    } finally {
      await svc.dispose();
    }
  });
});
