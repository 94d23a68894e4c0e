import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeDataDir, startService } from '../helpers/service.ts';

describe('limits come from settings.json', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('a limit out of range stops start-up naming the file and the field', async () => {
    const dataDir = await makeDataDir();
    dirs.push(dataDir);
    const file = join(dataDir, 'settings.json');
    await writeFile(file, JSON.stringify({ browsers_per_org: 0 }));
    await expect(startService(dataDir)).rejects.toThrow(`${file}: browsers_per_org: `);
    await writeFile(file, JSON.stringify({ requests_per_minute: 'lots' }));
    await expect(startService(dataDir)).rejects.toThrow(
      `${file}: requests_per_minute: must be of type number; fix it or delete it to go back to the defaults`,
    );
  });

  it('requests_per_minute in settings.json limits each key, and a console settings change keeps the limits in the file', async () => {
    const dataDir = await makeDataDir();
    dirs.push(dataDir);
    const file = join(dataDir, 'settings.json');
    await writeFile(file, JSON.stringify({ requests_per_minute: 2, browsers_total: 5 }));
    // No test override: the file decides.
    const svc = await startService(dataDir, { limits: { requestsPerMinute: undefined } });
    try {
      const patched = await svc.api('/admin/settings', {
        method: 'PATCH',
        key: null,
        headers: { 'x-console-token': svc.consoleToken },
        json: { job_concurrency: 3 },
      });
      expect(patched.status).toBe(200);
      expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({
        requests_per_minute: 2,
        browsers_total: 5,
        job_concurrency: 3,
      });

      expect((await svc.api('/portals/default')).status).toBe(200);
      expect((await svc.api('/portals/default')).status).toBe(200);
      const refused = await svc.api('/portals/default');
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(((await refused.json()) as { detail: string }).detail).toMatch(
        /^Rate limit exceeded: 2 requests a minute per API key \(requests_per_minute\); retry in \d+ s/,
      );
    } finally {
      await svc.stop();
    }
  });

  it('240 concurrent PATCH /admin/settings all answer 200, none is lost, and settings.json stays valid with no temp file left', async () => {
    const dataDir = await makeDataDir();
    dirs.push(dataDir);
    const file = join(dataDir, 'settings.json');
    await writeFile(file, JSON.stringify({ browsers_total: 5 }));
    const svc = await startService(dataDir);
    try {
      const patch = (json: unknown) =>
        svc.api('/admin/settings', {
          method: 'PATCH',
          key: null,
          headers: { 'x-console-token': svc.consoleToken },
          json,
        });
      // Half change the concurrency, half the recording default: a lost update would drop one field.
      const answers = await Promise.all(
        Array.from({ length: 240 }, (_, i) =>
          patch(i % 2 === 0 ? { job_concurrency: 1 + (i % 8) } : { record_video: i % 4 === 1 }),
        ),
      );
      expect(answers.map((answer) => answer.status).filter((status) => status !== 200)).toEqual([]);
      const stored = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
      expect(Object.keys(stored).sort()).toEqual(['browsers_total', 'job_concurrency', 'record_video']);
      expect(stored.browsers_total).toBe(5);
      const shown = (await (
        await svc.api('/admin/settings', { key: null, headers: { 'x-console-token': svc.consoleToken } })
      ).json()) as Record<string, unknown>;
      expect({ job_concurrency: shown.job_concurrency, record_video: shown.record_video }).toEqual({
        job_concurrency: stored.job_concurrency,
        record_video: stored.record_video,
      });
      expect(
        (await readdir(dataDir)).filter((name) => name.startsWith('settings.json') && name !== 'settings.json'),
      ).toEqual([]);
    } finally {
      await svc.stop();
    }
  });
});
