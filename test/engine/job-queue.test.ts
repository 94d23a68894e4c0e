import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isoNow } from '../../src-main/base/clock.ts';
import { newId } from '../../src-main/base/ids.ts';
import { openStore } from '../../src-main/store/store.ts';
import { startRecordingProxy } from '../helpers/browserFixtures.ts';
import { FakeClock } from '../helpers/fakeClock.ts';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { scriptedRegistry } from '../helpers/scriptedAgents.ts';
import { makeDataDir, startService, waitForJob, type TestService } from '../helpers/service.ts';
import { ENDED_JOB_STATUSES, until } from '../helpers/wait.ts';

function addProfile(dataDir: string): string {
  const store = openStore(`${dataDir}/portico.db`);
  const id = newId();
  store.profiles.insert({
    id,
    org_id: 'default',
    name: 'p',
    provider_profile_id: `local:${id}`,
    created_at: isoNow(),
    updated_at: isoNow(),
  });
  store.close();
  return id;
}

describe('the job queue', () => {
  let pages: PageServer;
  beforeAll(async () => {
    pages = await startPageServer({ '/form': '<!doctype html><title>Q</title><input id="colour">' });
  });
  afterAll(() => pages.close());

  const setUp = async (svc: TestService) => {
    for (const script of ['hang', 'visit']) {
      await svc.request('createPortal', {
        params: { org_id: 'default' },
        body: { endpoint_name: script, start_url: `${pages.url}/form`, task: `script:${script}` },
      });
    }
  };
  const start = async (svc: TestService, endpoint: string, body: Record<string, unknown> = {}) =>
    String(
      (
        (
          await svc.send('startJob', {
            params: { org_id: 'default', endpoint_name: endpoint },
            body: { form_data: {}, ...body },
          })
        ).body as { job_id: string }
      ).job_id,
    );
  const statusOf = async (svc: TestService, endpoint: string, jobId: string) =>
    String(
      (
        (
          await svc.send('getJobStatus', {
            params: { org_id: 'default', endpoint_name: endpoint },
            query: { job_id: jobId },
          })
        ).body as { status: string }
      ).status,
    );

  it('runs at most `concurrency` jobs; the next starts when one ends', async () => {
    // The scheduler looks at the queue when a job is queued and on each poll (pollMs, 1 s on the app's clock).
    const clock = new FakeClock();
    const svc = await startService(undefined, { agents: scriptedRegistry, jobConcurrency: 1, clock });
    try {
      await setUp(svc);
      const first = await start(svc, 'hang');
      await waitForJob(svc, 'hang', first, ['running']);
      const second = await start(svc, 'visit');
      clock.advance(1000);
      expect(await statusOf(svc, 'visit', second)).toBe('queued');
      await svc.request('cancelJob', {
        params: { org_id: 'default', endpoint_name: 'hang' },
        query: { job_id: first },
      });
      expect((await waitForJob(svc, 'visit', second, ['completed', 'failed'])).status).toBe('completed');
    } finally {
      await svc.dispose();
    }
  });

  it('a queued job can be cancelled before it starts', async () => {
    const svc = await startService(undefined, { agents: scriptedRegistry, jobConcurrency: 0 });
    try {
      await setUp(svc);
      const jobId = await start(svc, 'visit');
      expect(
        (
          await svc.request('cancelJob', {
            params: { org_id: 'default', endpoint_name: 'visit' },
            query: { job_id: jobId },
          })
        ).status,
      ).toBe(200);
      expect(await waitForJob(svc, 'visit', jobId, ['cancelled'])).toMatchObject({
        status: 'cancelled',
        started_at: null,
        error: 'Cancelled by user',
      });
    } finally {
      await svc.dispose();
    }
  });

  it('two jobs never open one profile: the second waits queued; save_profile false runs at once on a copy', async () => {
    const svc = await startService(undefined, { agents: scriptedRegistry, jobConcurrency: 3 });
    try {
      await setUp(svc);
      const profileId = addProfile(svc.dataDir);
      const holder = await start(svc, 'hang', { profile_id: profileId });
      await waitForJob(svc, 'hang', holder, ['running']);
      const waiter = await start(svc, 'visit', { profile_id: profileId });
      const copy = await start(svc, 'visit', { profile_id: profileId, save_profile: false });
      expect((await waitForJob(svc, 'visit', copy, ['completed', 'failed'])).status).toBe('completed');
      expect(await statusOf(svc, 'visit', waiter)).toBe('queued');
      await svc.request('cancelJob', {
        params: { org_id: 'default', endpoint_name: 'hang' },
        query: { job_id: holder },
      });
      expect((await waitForJob(svc, 'visit', waiter, ['completed', 'failed'])).status).toBe('completed');
    } finally {
      await svc.dispose();
    }
  });

  it('a profile keeps cookies and local storage from one job to the next', async () => {
    const site = await startPageServer({
      '/login': () => ({
        body: '<!doctype html><title>in</title>',
        headers: { 'set-cookie': 'session=kept-123; Max-Age=86400; Path=/' },
      }),
      '/home': '<!doctype html><title>home</title>',
    });
    const svc = await startService(undefined, { agents: scriptedRegistry });
    try {
      const profileId = addProfile(svc.dataDir);
      for (const [name, path] of [
        ['login', '/login'],
        ['home', '/home'],
      ]) {
        await svc.request('createPortal', {
          params: { org_id: 'default' },
          body: { endpoint_name: name, start_url: `${site.url}${path}`, task: 'script:storage' },
        });
      }
      const first = await start(svc, 'login', { profile_id: profileId, form_data: { write: 'yes' } });
      expect(await waitForJob(svc, 'login', first, ['completed', 'failed'])).toMatchObject({
        status: 'completed',
        result: { cookie: 'session=kept-123', remember: 'yes' },
      });
      const second = await start(svc, 'home', { profile_id: profileId });
      expect(await waitForJob(svc, 'home', second, ['completed', 'failed'])).toMatchObject({
        status: 'completed',
        result: { cookie: 'session=kept-123', remember: 'yes' },
      });
      const fresh = await start(svc, 'home');
      expect(await waitForJob(svc, 'home', fresh, ['completed', 'failed'])).toMatchObject({
        status: 'completed',
        result: { cookie: '', remember: null },
      });
    } finally {
      await svc.dispose();
      await site.close();
    }
  });

  it('a job with a proxy browses through it, authenticating with the password it was given', async () => {
    const proxy = await startRecordingProxy({ username: 'jobuser', password: 'proxy-pass-1' });
    const svc = await startService(undefined, { agents: scriptedRegistry });
    try {
      await svc.request('createPortal', {
        params: { org_id: 'default' },
        body: { endpoint_name: 'proxied', start_url: 'http://portal.invalid/apply', task: 'script:visit' },
      });
      const jobId = await start(svc, 'proxied', {
        proxy: { server: proxy.server, username: 'jobuser', password: 'proxy-pass-1' },
      });
      expect(await waitForJob(svc, 'proxied', jobId, ['completed', 'failed'])).toMatchObject({
        status: 'completed',
        result: { title: 'via proxy' },
      });
      const authed = proxy.requests.filter(
        (r) => r.url === 'http://portal.invalid/apply' && r.proxyAuthorization !== undefined,
      );
      expect(authed.length).toBeGreaterThan(0);
      expect(authed[0]?.proxyAuthorization).toBe(`Basic ${Buffer.from('jobuser:proxy-pass-1').toString('base64')}`);
    } finally {
      await svc.dispose();
      await proxy.close();
    }
  });

  it('profile browsers and throwaway copies are gone once their jobs end', async () => {
    const svc = await startService(undefined, { agents: scriptedRegistry, jobConcurrency: 2 });
    try {
      await setUp(svc);
      const profileId = addProfile(svc.dataDir);
      const kept = await start(svc, 'visit', { profile_id: profileId });
      const copied = await start(svc, 'visit', { profile_id: profileId, save_profile: false });
      const hung = await start(svc, 'hang', { profile_id: profileId, save_profile: false });
      await waitForJob(svc, 'visit', kept, ['completed']);
      await waitForJob(svc, 'visit', copied, ['completed']);
      await waitForJob(svc, 'hang', hung, ['running']);
      await svc.request('cancelJob', { params: { org_id: 'default', endpoint_name: 'hang' }, query: { job_id: hung } });
      await waitForJob(svc, 'hang', hung, ['cancelled']);
      const { readdir } = await import('node:fs/promises');
      expect(await readdir(`${svc.dataDir}/tmp/browser`).catch(() => [])).toEqual([]);
      const profileBrowsers = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
        .split('\n')
        .filter((l) => l.includes(`${svc.dataDir}/`) && l.includes('--user-data-dir'));
      expect(profileBrowsers).toEqual([]);
    } finally {
      await svc.dispose();
    }
  });

  it('a crashed browser fails its job with a clear error, and the next job gets a fresh browser', async () => {
    const svc = await startService(undefined, { agents: scriptedRegistry, jobConcurrency: 2 });
    try {
      await setUp(svc);
      const jobId = await start(svc, 'hang');
      // waitForJob fails at once if the job ends instead of running.
      await until(
        async () => Number((await waitForJob(svc, 'hang', jobId, ['running'])).steps) >= 1,
        'the hang job to record its first step',
        30_000,
      );
      // Chromium's main process is a direct child of this process (playwright-core spawns it).
      const mine = execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(process.pid)], { encoding: 'utf8' })
        .split('\n')
        .map((line) => line.trim().split(/\s+/))
        .filter(([, comm]) => comm !== undefined && /chrom/i.test(comm))
        .map(([pid]) => String(pid));
      expect(mine.length).toBeGreaterThan(0);
      for (const pid of mine) process.kill(Number(pid), 'SIGKILL');
      const failed = await waitForJob(svc, 'hang', jobId, ['failed', 'completed', 'cancelled']);
      expect(failed.status).toBe('failed');
      expect(String(failed.error)).toMatch(/^The browser closed unexpectedly/);
      const next = await start(svc, 'visit');
      expect((await waitForJob(svc, 'visit', next, ['completed', 'failed'])).status).toBe('completed');
    } finally {
      await svc.dispose();
    }
  });

  it('after a restart, jobs that were running fail as interrupted by restart and queued jobs run', async () => {
    const dataDir = await makeDataDir();
    const first = await startService(dataDir, { agents: scriptedRegistry, jobConcurrency: 0 });
    await setUp(first);
    const queued = await start(first, 'visit');
    await first.stop();
    // A previous process died mid-run: its row still says running.
    const store = openStore(`${dataDir}/portico.db`);
    const interrupted = await (async () => {
      const id = newId();
      const template = store.jobs.get(queued);
      if (!template) throw new Error('missing job');
      store.jobs.insert({
        id,
        org_id: 'default',
        endpoint_name: 'hang',
        portal_id: String(template.portal_id),
        portal: template.portal,
        options: template.options,
        orchestrator_model: 'builtin:autofill',
        vision_model: template.vision_model,
        profile_id: null,
        view_token: `lv_${id}`,
      });
      store.jobs.move(id, ['queued'], 'running', { started_at: isoNow() });
      return id;
    })();
    store.close();
    const second = await startService(dataDir, { agents: scriptedRegistry, jobConcurrency: 2 });
    try {
      Object.assign(second, { orgKey: first.orgKey });
      const api = (path: string) =>
        fetch(`${second.url}${path}`, { headers: { 'x-api-key': first.orgKey } }).then(
          (r) => r.json() as Promise<Record<string, unknown>>,
        );
      expect(await api(`/task/default/hang/status?job_id=${interrupted}`)).toMatchObject({
        status: 'failed',
        error: 'interrupted by restart',
      });
      const ended = await until(
        async () => {
          const job = await api(`/task/default/visit/status?job_id=${queued}`);
          return ENDED_JOB_STATUSES.includes(String(job.status)) ? job : undefined;
        },
        'the queued visit job to end',
        30_000,
      );
      expect(ended).toMatchObject({ status: 'completed' });
    } finally {
      await second.dispose();
    }
  });
});
