// Placement across browser hosts and a token-holding provider (issue 22), with hosts in network namespaces (needs root: ip netns, as in CI).
// Where a job ran is read from the form server: the address its browser's requests came from.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secretEncodings } from '../../src-main/base/logger.ts';
import { netnsAvailable } from '../helpers/netns.ts';
import { REGISTRATION_SUBMIT, registrationFields } from '../helpers/registrationForm.ts';
import { jsonOf } from '../helpers/service.ts';
import { barrier, type HostRig, startHostRig } from './hostRig.ts';

interface HostView {
  name: string;
  reachable: boolean;
  version: string | null;
  browsers_in_use: number;
  max_browsers: number;
  last_error: string | null;
}

async function adminHosts(rig: HostRig): Promise<HostView[]> {
  const res = await jsonOf(
    await rig.svc.api('/admin/hosts', { key: null, headers: { 'x-console-token': rig.svc.consoleToken } }),
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body as { hosts: HostView[] }).hosts;
}

describe.skipIf(!netnsAvailable())('placement on browser hosts (needs root: ip netns)', { timeout: 120_000 }, () => {
  let rig: HostRig;
  const together = barrier(3);

  beforeAll(async () => {
    rig = await startHostRig({
      hosts: [
        { name: 'pw-1', engine: 'playwright', max_browsers: 1 },
        { name: 'cdp-1', engine: 'cdp', max_browsers: 1, labels: ['eu'] },
      ],
      localMaxBrowsers: 1,
      handlers: { '/together': together.handler },
    });
    await rig.portal('together', {}, '/together');
    await rig.portal('eu-only', { browser_host_labels: ['eu'] });
  });
  afterAll(async () => {
    await rig?.close();
  });

  const submittedBy = (from: number) =>
    rig.forms
      .postsTo(REGISTRATION_SUBMIT)
      .slice(from)
      .map((p) => ({ place: rig.placeOf(p.from), fields: p.fields }));

  it('three jobs at once, room for one browser on each of local and two hosts: one runs in each place', async () => {
    const before = rig.forms.postsTo(REGISTRATION_SUBMIT).length;
    const ids = await Promise.all([1, 2, 3].map((n) => rig.start('together', n)));
    const done = await Promise.all(ids.map((id) => rig.finish('together', id)));
    for (const d of done) expect(d.status, `job ${String(d.job_id)}: ${String(d.error)}`).toBe('completed');
    const posts = submittedBy(before);
    expect(posts.map((p) => p.place).sort()).toEqual(['cdp-1', 'local', 'pw-1']);
    expect(posts.map((p) => p.fields).sort((a, b) => String(a.full_name).localeCompare(String(b.full_name)))).toEqual(
      [1, 2, 3].map(registrationFields),
    );
  });

  it('a portal that asks for label eu runs only on the host labelled eu, though local has room', async () => {
    const before = rig.forms.postsTo(REGISTRATION_SUBMIT).length;
    const done = await rig.finish('eu-only', await rig.start('eu-only', 4));
    expect(done.status, String(done.error)).toBe('completed');
    expect(submittedBy(before).map((p) => p.place)).toEqual(['cdp-1']);
  });
});

describe.skipIf(!netnsAvailable())(
  'a CDP provider that wants a token: the token from the vault is used and shown nowhere (needs root: ip netns)',
  () => {
    let rig: HostRig;
    const TOKEN = 'tok-prov-9f3c2a71e4';

    beforeAll(async () => {
      rig = await startHostRig({
        hosts: [{ name: 'provider', engine: 'cdp-provider', token: TOKEN, max_browsers: 2 }],
        localMaxBrowsers: 0,
        tokens: { provider: TOKEN },
      });
      await rig.portal('hosted');
    });
    afterAll(async () => {
      await rig?.close();
    });

    it('a job runs on the provider (which answers 401 without the token); the token is in no log, setting, answer or job log', async () => {
      const jobId = await rig.start('hosted', 3);
      const done = await rig.finish('hosted', jobId);
      expect(done.status, String(done.error)).toBe('completed');
      expect(rig.forms.postsTo(REGISTRATION_SUBMIT).map((p) => rig.placeOf(p.from))).toEqual(['provider']);
      const hosts = await adminHosts(rig);
      expect(hosts.find((h) => h.name === 'provider')).toMatchObject({ token_stored: true, reachable: true });
      const everything = [
        rig.logs.join(''),
        JSON.stringify(hosts),
        JSON.stringify(done),
        await readFile(join(rig.svc.dataDir, 'settings.json'), 'utf8'),
        await (await rig.svc.api(`/task/default/hosted/logs?job_id=${jobId}`)).text(),
      ].join('\n');
      expect(rig.logs.some((line) => line.includes('provider'))).toBe(true);
      for (const form of secretEncodings(TOKEN)) expect(everything).not.toContain(form);
    });
  },
);
