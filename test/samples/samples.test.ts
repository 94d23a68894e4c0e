/**
 * The samples Portico serves itself (docs/api.md, "Samples"): created at first start in `default`, data
 * like any portal (deleted stays deleted until added again), their start URL following the port, the
 * sample site's validation and records, and real builtin jobs on both samples — one completing with a
 * reference number, one asking a human for a branch the form does not offer.
 */
import { request as httpRequest } from 'node:http';

import { afterEach, describe, expect, it } from 'vitest';

import { runCli } from '../../src-main/cli/main.ts';
import { jsonOf, makeDataDir, startService, waitForJob, type TestService } from '../helpers/service.ts';

const PARKING_DATA = {
  full_name: 'Ada Lovelace',
  email: 'ada@example.com',
  address_line_1: '12 Mill Lane',
  town: 'Riverside',
  postcode: 'RV1 2AB',
  registration: 'AB12 CDE',
  vehicle_type: 'Car',
  zone: 'Zone B',
  start_date: '2027-01-04',
  declaration: true,
};

/** The status of a GET sent with the given Host header (fetch would not let a test choose it). */
function statusWithHost(port: number, path: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('samples', () => {
  const services: TestService[] = [];
  afterEach(async () => {
    for (const svc of services.splice(0)) await svc.dispose();
  });
  /** A service on `dataDir`; a restarted one prints no key, so it is given the first start's (`key`). */
  async function start(dataDir?: string, key?: string): Promise<TestService> {
    const svc = await startService(dataDir, { samples: true });
    services.push(svc);
    if (!key) return svc;
    const api: TestService['api'] = (path, init = {}) => svc.api(path, { key, ...init });
    return { ...svc, orgKey: key, api };
  }
  async function portalNames(svc: TestService): Promise<string[]> {
    const list = (await (await svc.request('listPortals', { params: { org_id: 'default' } })).json()) as
      | { portals?: Array<{ endpoint_name: string }> }
      | Array<{ endpoint_name: string }>;
    const portals = Array.isArray(list) ? list : (list.portals ?? []);
    return portals.map((p) => p.endpoint_name).sort();
  }
  async function postForm(svc: TestService, path: string, fields: Record<string, string>): Promise<Response> {
    return fetch(`${svc.url}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
  }

  it('first start creates both samples in default; a deleted sample stays deleted across a restart until added again', async () => {
    const dataDir = await makeDataDir();
    const first = await startService(dataDir, { samples: true });
    expect(await portalNames(first)).toEqual(['library-card', 'parking-permit']);
    const portal = (await (await first.api('/portals/default/parking-permit')).json()) as {
      start_url: string;
      form_schema: { required: string[] };
    };
    expect(portal.start_url).toBe(`http://samples.localhost:${new URL(first.url).port}/samples/parking-permit/start`);
    expect((await first.api('/portals/default/library-card', { method: 'DELETE' })).status).toBe(204);
    await first.stop();

    const second = await start(dataDir, first.orgKey);
    expect(await portalNames(second)).toEqual(['parking-permit']);
    const listed = (await (await second.api('/sample-portals/default')).json()) as {
      samples: Array<{ sample: string; created: boolean; portal_exists: boolean; example_form_data: unknown }>;
    };
    expect(listed.samples.map((s) => [s.sample, s.created, s.portal_exists])).toEqual([
      ['parking-permit', true, true],
      ['library-card', true, false],
    ]);
    expect(listed.samples[0]?.example_form_data).toEqual(PARKING_DATA);
    // The port changed with the restart: the sample portal follows it.
    const moved = (await (await second.api('/portals/default/parking-permit')).json()) as { start_url: string };
    expect(moved.start_url).toBe(`http://samples.localhost:${new URL(second.url).port}/samples/parking-permit/start`);

    const added = await jsonOf(await second.api('/sample-portals/default', { method: 'POST' }));
    expect(added.status).toBe(200);
    expect(await portalNames(second)).toEqual(['library-card', 'parking-permit']);
  });

  it('a portal the user edited away from the sample page is left alone at restart', async () => {
    const dataDir = await makeDataDir();
    const first = await startService(dataDir, { samples: true });
    await first.api('/portals/default/parking-permit', {
      method: 'PATCH',
      json: { start_url: 'http://127.0.0.1:9/elsewhere' },
    });
    await first.stop();
    const second = await start(dataDir, first.orgKey);
    expect(
      ((await (await second.api('/portals/default/parking-permit')).json()) as { start_url: string }).start_url,
    ).toBe('http://127.0.0.1:9/elsewhere');
  });

  it('the sample site validates like a real one, records what it accepted, and refuses hostile bodies with {detail} or a page', async () => {
    const svc = await start();
    const startPage = await fetch(`${svc.url}/samples/parking-permit/start`);
    expect(startPage.status).toBe(200);
    expect(startPage.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await startPage.text()).toContain('<label for="full_name">Full name</label>');
    // The site's own name (what sample portals open, since Portico's browsers cannot reach the API's
    // names) answers the site only: the API is refused; a path that tries to climb out of /samples/ is
    // routed as a sample page (no such sample: the site's own 404), never to the API.
    const port = Number(new URL(svc.url).port);
    expect(await statusWithHost(port, '/samples/parking-permit/start', `samples.localhost:${port}`)).toBe(200);
    expect(await statusWithHost(port, '/health', `samples.localhost:${port}`)).toBe(403);
    expect(await statusWithHost(port, '/portals/default', `samples.localhost:${port}`)).toBe(403);
    expect(await statusWithHost(port, '/samples/../health', `samples.localhost:${port}`)).toBe(404);
    expect(await statusWithHost(port, '/samples/../../admin/settings', `samples.localhost:${port}`)).toBe(403);

    const invalid = await postForm(svc, '/samples/parking-permit/vehicle', { full_name: '', email: 'nope' });
    expect(invalid.status).toBe(422);
    const invalidText = await invalid.text();
    expect(invalidText).toContain('There is a problem');
    expect(invalidText).toContain('Enter an email address in the correct format');

    const all = {
      full_name: 'Ada Lovelace',
      email: 'ada@example.com',
      address_line_1: '12 Mill Lane',
      town: 'Riverside',
      postcode: 'rv1 2ab',
      registration: 'ab12 cde',
      vehicle_type: 'car',
      zone: 'B',
      'start_date-day': '4',
      'start_date-month': '1',
      'start_date-year': '2027',
      declaration: 'yes',
    };
    const badDate = await postForm(svc, '/samples/parking-permit/submit', {
      ...all,
      'start_date-day': '31',
      'start_date-month': '2',
    });
    expect(badDate.status).toBe(422);
    expect(await badDate.text()).toContain('Permit start date must be a real date');
    const check = await postForm(svc, '/samples/parking-permit/check', all);
    expect(await check.text()).toContain('Check your answers');
    const sent = await postForm(svc, '/samples/parking-permit/submit', all);
    expect(sent.status).toBe(303);
    const location = sent.headers.get('location') ?? '';
    const reference = /ref=(PP-[A-Z0-9]{6})$/.exec(location)?.[1];
    expect(reference).toBeDefined();
    const done = await fetch(`${svc.url}${location}`);
    expect(await done.text()).toContain(reference as string);
    const received = await svc.send('getSampleSubmission', {
      params: { org_id: 'default', reference: reference as string },
    });
    expect(received).toEqual({
      status: 200,
      body: {
        reference,
        sample: 'parking-permit',
        received_at: expect.any(String),
        fields: {
          full_name: 'Ada Lovelace',
          email: 'ada@example.com',
          address_line_1: '12 Mill Lane',
          town: 'Riverside',
          postcode: 'RV1 2AB',
          registration: 'AB12 CDE',
          vehicle_type: 'car',
          zone: 'B',
          start_date: '2027-01-04',
          declaration: 'yes',
        },
      },
    });
    // Another sample's page never shows this reference; an unknown one is 404.
    expect((await fetch(`${svc.url}/samples/library-card/done?ref=${reference}`)).status).toBe(404);
    expect(
      (await svc.request('getSampleSubmission', { params: { org_id: 'default', reference: 'PP-NOPE00' } })).status,
    ).toBe(404);
    expect(
      (
        await svc.request(
          'getSampleSubmission',
          { params: { org_id: 'default', reference: reference as string } },
          { key: null },
        )
      ).status,
    ).toBe(401);

    const huge = await postForm(svc, '/samples/parking-permit/submit', { full_name: 'x'.repeat(70_000) });
    expect(huge.status).toBe(413);
    expect(await huge.json()).toEqual({ detail: expect.any(String) });
    const many = await postForm(
      svc,
      '/samples/parking-permit/submit',
      Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`f${i}`, 'x'])),
    );
    expect(many.status).toBe(400);
    expect((await fetch(`${svc.url}/samples/../admin/settings`)).status).not.toBe(200);
    expect((await fetch(`${svc.url}/samples/no-such-sample/start`)).status).toBe(404);
  });

  it('a builtin job on the parking-permit sample completes with the reference the site gave, and the site received the data', async () => {
    const svc = await start();
    const started = (await (
      await svc.request('startJob', {
        params: { org_id: 'default', endpoint_name: 'parking-permit' },
        body: { form_data: PARKING_DATA },
      })
    ).json()) as { job_id: string };
    const done = await waitForJob(svc, 'parking-permit', started.job_id, ['completed', 'failed'], 90_000);
    expect(done.error ?? null).toBeNull();
    expect(done.status).toBe('completed');
    const result = done.result as { reference: string; submitted: boolean };
    expect(result.reference).toMatch(/^PP-[A-Z0-9]{6}$/);
    const received = (await (
      await svc.request('getSampleSubmission', { params: { org_id: 'default', reference: result.reference } })
    ).json()) as { fields: Record<string, string> };
    expect(received.fields).toEqual({
      full_name: 'Ada Lovelace',
      email: 'ada@example.com',
      address_line_1: '12 Mill Lane',
      town: 'Riverside',
      postcode: 'RV1 2AB',
      registration: 'AB12 CDE',
      vehicle_type: 'car',
      zone: 'B',
      start_date: '2027-01-04',
      declaration: 'yes',
    });
  }, 120_000);

  it('the library-card sample asks which branch (the real options), and completes with the branch the human chose', async () => {
    const svc = await start();
    const started = (await (
      await svc.request('startJob', {
        params: { org_id: 'default', endpoint_name: 'library-card' },
        body: {
          form_data: { full_name: 'Grace Hopper', email: 'grace@example.com', branch: 'Harbour Library' },
          human_in_the_loop: true,
        },
      })
    ).json()) as { job_id: string };
    const waiting = await waitForJob(
      svc,
      'library-card',
      started.job_id,
      ['waiting_for_input', 'completed', 'failed'],
      90_000,
    );
    expect(waiting.status).toBe('waiting_for_input');
    const question = (
      waiting.events as Array<{ type: string; data: { question_id: string; question: string; options: string[] } }>
    ).find((e) => e.type === 'question');
    expect(question?.data.options).toEqual(['Central Library', 'Riverside Library', 'Hillcrest Library']);
    expect(question?.data.question).toContain('Harbour Library');
    const answered = await svc.request('answerJob', {
      params: { org_id: 'default', endpoint_name: 'library-card' },
      query: { job_id: started.job_id },
      body: { question_id: question?.data.question_id, answer: 'Riverside Library' },
    });
    expect(answered.status).toBe(200);
    const done = await waitForJob(svc, 'library-card', started.job_id, ['completed', 'failed'], 90_000);
    expect(done.status).toBe('completed');
    const reference = (done.result as { reference: string }).reference;
    expect(reference).toMatch(/^LC-[A-Z0-9]{6}$/);
    const received = (await (
      await svc.request('getSampleSubmission', { params: { org_id: 'default', reference } })
    ).json()) as { fields: Record<string, string> };
    expect(received.fields).toEqual({ full_name: 'Grace Hopper', email: 'grace@example.com', branch: 'riverside' });
  }, 120_000);

  it('portico samples add creates again what is missing, never over a portal of the same name the user made', async () => {
    const dataDir = await makeDataDir();
    const svc = await startService(dataDir, { samples: true });
    await svc.request('deletePortal', { params: { org_id: 'default', endpoint_name: 'parking-permit' } });
    await svc.request('deletePortal', { params: { org_id: 'default', endpoint_name: 'library-card' } });
    await svc.request('createPortal', {
      params: { org_id: 'default' },
      body: { endpoint_name: 'library-card', start_url: 'https://example.org/mine', task: 'Mine' },
    });
    await svc.stop();
    const out: string[] = [];
    const code = await runCli(['--data-dir', dataDir, 'samples', 'add', '--url', 'http://127.0.0.1:8899'], {
      stdout: (l) => out.push(l),
      stderr: (l) => out.push(l),
      readStdin: async () => '',
      env: {},
    });
    expect(code, out.join('')).toBe(0);
    const printed = JSON.parse(out.join('')) as { samples: Array<{ sample: string; portal_exists: boolean }> };
    expect(printed.samples.map((s) => [s.sample, s.portal_exists])).toEqual([
      ['parking-permit', true],
      ['library-card', true],
    ]);
    const again = await start(dataDir, svc.orgKey);
    const mine = (await (await again.api('/portals/default/library-card')).json()) as { start_url: string };
    expect(mine.start_url).toBe('https://example.org/mine');
    const bad: string[] = [];
    expect(
      await runCli(['--data-dir', dataDir, 'samples', 'add', '--url', 'file:///etc'], {
        stdout: (l) => bad.push(l),
        stderr: (l) => bad.push(l),
        readStdin: async () => '',
        env: {},
      }),
    ).toBe(2);
  });
});
