import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testConfig } from '../helpers/service.ts';
import { snap, useConsoleWorld } from './harness.ts';

// The desktop app's log: a rotating file in the data folder (AppOptions.logFile), at info so Fastify's own start line is in it.
describe('service log: the desktop log file, GET /admin/log and the console view of its tail', () => {
  const world = useConsoleWorld({ service: { logFile: true, config: { ...testConfig(), logLevel: 'info' } } });

  it("the file holds pino's JSON lines, Fastify's own among them; GET /admin/log answers its tail (console token only)", async () => {
    const file = join(world.svc.dataDir, 'logs', 'portico.log');
    const onDisk = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(onDisk).toContainEqual({
      level: 'info',
      time: expect.any(String),
      msg: `Server listening at ${world.svc.url}`,
    });

    const log = await world.api.call('getServiceLog', { query: { lines: 200 } });
    expect(log.file).toBe(file);
    expect(log.level).toBe('info');
    expect(log.entries).toContainEqual({
      time: expect.any(String),
      level: 'info',
      msg: `Server listening at ${world.svc.url}`,
      fields: {},
    });
    expect((await world.api.call('getServiceLog', { query: { lines: 1 } })).entries).toHaveLength(1);

    const asOrg = await world.svc.api('/admin/log');
    expect(asOrg.status).toBe(401);
    const bad = await world.svc.api('/admin/log?lines=0', {
      key: null,
      headers: { 'x-console-token': world.svc.consoleToken },
    });
    expect(bad.status).toBe(422);
    expect(Object.keys(await bad.json())).toEqual(['detail']);
  });

  it('Settings shows where the log is written and its last lines', async () => {
    const page = await world.openConsole({ hash: '#/settings' });
    const section = page.getByRole('region', { name: 'Service log', exact: true });
    await expect
      .poll(() => section.getByTestId('service-log-where').textContent())
      .toContain(`Written to ${join(world.svc.dataDir, 'logs', 'portico.log')}`);
    const lines = section.getByRole('region', { name: 'Service log lines' });
    await expect.poll(() => lines.textContent()).toContain(`INFO Server listening at ${world.svc.url}`);
    await section.scrollIntoViewIfNeeded();
    await snap(page, 'settings-service-log');
  });
});
