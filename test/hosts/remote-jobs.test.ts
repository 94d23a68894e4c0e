// Jobs on remote browser hosts (issue 22), each host in its own network namespace (needs root + iproute2,
// as in CI): a Playwright browser server and a Chromium debugging port. Filling, screenshots, a download
// into the job's artifacts and a recording on a remote browser; a profile's cookies and localStorage
// travelling to a remote host and back; a host that answers 429 handing the job on; a host killed mid-job.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentFailure, type Agent, type AgentContext, type AgentOutcome } from '../../src-main/agent/agentTypes.ts';
import { isoNow } from '../../src-main/base/clock.ts';
import { newId } from '../../src-main/base/ids.ts';
import { openStore } from '../../src-main/store/store.ts';
import { type NetnsBrowserHost, netnsAvailable, startBrowserHosts } from '../helpers/netns.ts';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { jsonOf, makeDataDir, startService, waitForJob, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';

const scripts: Record<string, (ctx: AgentContext) => Promise<AgentOutcome>> = {
  /** Fills the name, downloads the file, reports where the page saw the request come from. */
  async fill(ctx) {
    await ctx.page.goto(ctx.startUrl);
    await ctx.page.fill('#name', String(ctx.formData.name));
    await ctx.recordStep('typed the name');
    const download = ctx.page.waitForEvent('download');
    await ctx.page.click('#dl');
    await (await download).suggestedFilename();
    await ctx.recordStep('downloaded the receipt');
    return { result: { name: await ctx.page.inputValue('#name'), from: await ctx.page.textContent('#from') } };
  },
  /** Writes localStorage when asked; reports cookies and storage. */
  async storage(ctx) {
    await ctx.page.goto(ctx.startUrl);
    if (ctx.formData.write)
      await ctx.page.evaluate((v) => localStorage.setItem('remember', String(v)), ctx.formData.write);
    await ctx.recordStep('read storage');
    return {
      result: await ctx.page.evaluate(() => ({ cookie: document.cookie, remember: localStorage.getItem('remember') })),
    };
  },
  /** Opens the page, takes a step, waits until aborted. */
  async hang(ctx) {
    await ctx.page.goto(ctx.startUrl);
    await ctx.recordStep('opened the start page');
    await new Promise((_, reject) =>
      ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error), { once: true }),
    );
    return { result: {} };
  },
};
const agent: Agent = {
  run(ctx) {
    const script = scripts[/^script:(\w+)/.exec(ctx.task)?.[1] ?? ''];
    if (!script) throw new AgentFailure('no such script');
    return script(ctx);
  },
};
const agents = { get: (model: string) => (model === 'builtin:autofill' ? agent : undefined) };

describe.skipIf(!netnsAvailable())('jobs on remote browser hosts (needs root: ip netns)', { timeout: 120_000 }, () => {
  let hosts: NetnsBrowserHost[] = [];
  let closeHosts = () => {};
  let pages: PageServer;
  let svc: TestService;
  let profileId: string;

  const logsOf = async (endpoint: string, jobId: string) =>
    await (await svc.api(`/task/default/${endpoint}/logs?job_id=${jobId}`)).text();
  const start = async (endpoint: string, body: Record<string, unknown>) => {
    const answer = await jsonOf(
      await svc.api(`/jobs/default/${endpoint}/start`, { method: 'POST', json: { form_data: {}, ...body } }),
    );
    expect(answer.status).toBe(200);
    return (answer.body as { job_id: string }).job_id;
  };
  const hostsNow = async () =>
    (
      (await (
        await svc.api('/admin/hosts', { key: null, headers: { 'x-console-token': svc.consoleToken } })
      ).json()) as { hosts: { name: string; reachable: boolean; browsers_in_use: number; last_error: string | null }[] }
    ).hosts;

  beforeAll(async () => {
    const started = await startBrowserHosts([
      { engine: 'playwright' },
      { engine: 'cdp' },
      { engine: 'cdp-provider', maxConnections: 0 },
    ]);
    hosts = started.hosts;
    closeHosts = started.close;
    const [pw, cdp, full] = hosts as [NetnsBrowserHost, NetnsBrowserHost, NetnsBrowserHost];
    pages = await startPageServer(
      {
        '/form': (req) => ({
          body: `<!doctype html><title>Apply</title><input id="name"><a id="dl" href="/receipt.txt">receipt</a><p id="from">${req.socket.remoteAddress}</p>`,
        }),
        '/receipt.txt': () => ({
          body: 'receipt 42',
          type: 'text/plain',
          headers: { 'content-disposition': 'attachment; filename="receipt.txt"' },
        }),
        '/login': () => ({
          body: '<!doctype html><title>in</title>',
          headers: { 'set-cookie': 'session=kept-123; Max-Age=86400; Path=/' },
        }),
        '/home': '<!doctype html><title>home</title>',
      },
      { host: '0.0.0.0', urlHost: pw.gateway },
    );
    const dataDir = await makeDataDir();
    await writeFile(
      join(dataDir, 'settings.json'),
      JSON.stringify({
        local_max_browsers: 1,
        browser_hosts: [
          // Listed first: with equal load it is tried first, answers 429, and the job moves on.
          { name: 'full', kind: 'cdp', url: full.url, max_browsers: 2, labels: ['eu'] },
          { name: 'pw', kind: 'playwright', url: pw.url, max_browsers: 2, labels: ['pw', 'eu'] },
          { name: 'cdp', kind: 'cdp', url: cdp.url, max_browsers: 2, labels: ['cdp'] },
        ],
      }),
    );
    await mkdir(join(dataDir, 'profiles'), { recursive: true });
    svc = await startService(dataDir, { agents, jobConcurrency: 4, hostProbeIntervalMs: 60_000 });
    const store = openStore(join(dataDir, 'portico.db'));
    profileId = newId();
    store.profiles.insert({
      id: profileId,
      org_id: 'default',
      name: 'p',
      provider_profile_id: `local:${profileId}`,
      created_at: isoNow(),
      updated_at: isoNow(),
    });
    store.close();
    for (const [endpoint_name, path, task] of [
      ['fill', '/form', 'script:fill'],
      ['login', '/login', 'script:storage'],
      ['home', '/home', 'script:storage'],
      ['hang', '/form', 'script:hang'],
    ]) {
      expect(
        (
          await svc.api('/portals/default', {
            method: 'POST',
            json: { endpoint_name, start_url: `${pages.url}${path}`, task },
          })
        ).status,
      ).toBe(200);
    }
    await until(async () => (await hostsNow()).every((host) => host.reachable), 'every host to answer its first probe');
  });

  afterAll(async () => {
    await svc?.dispose();
    closeHosts();
    await pages?.close();
  });

  it('a job on the Playwright server: filled, screenshots, the download in its artifacts, a recording; the page saw the host address', async () => {
    const jobId = await start('fill', { form_data: { name: 'Ada' }, browser_host_labels: ['pw'], record_video: true });
    const done = await waitForJob(svc, 'fill', jobId, ['completed', 'failed'], 60_000);
    expect(done).toMatchObject({
      status: 'completed',
      result: { name: 'Ada', from: expect.stringContaining(hosts[0]!.address) },
    });
    expect(await logsOf('fill', jobId)).toContain("browser on host 'pw'");
    expect((await svc.api(`/task/default/fill/downloads?job_id=${jobId}`)).status).toBe(200);
    expect(await readFile(join(svc.dataDir, 'artifacts', jobId, 'downloads', 'receipt.txt'), 'utf8')).toBe(
      'receipt 42',
    );
    const recording = await svc.api(`/task/default/fill/recording?job_id=${jobId}`);
    expect(recording.status).toBe(200);
    // WebM (EBML) magic.
    expect(
      Buffer.from(await recording.arrayBuffer())
        .subarray(0, 4)
        .toString('hex'),
    ).toBe('1a45dfa3');
    expect(done.steps).toBe(2);
    expect((await svc.api(`/task/default/fill/screenshots/1?job_id=${jobId}`)).headers.get('content-type')).toBe(
      'image/png',
    );
  });

  it('a host answering 429 hands the job to the next host with the labels', async () => {
    const jobId = await start('fill', { form_data: { name: 'Grace' }, browser_host_labels: ['eu'] });
    expect(await waitForJob(svc, 'fill', jobId, ['completed', 'failed'], 60_000)).toMatchObject({
      status: 'completed',
      result: { from: expect.stringContaining(hosts[0]!.address) },
    });
    const logs = await logsOf('fill', jobId);
    expect(logs).toMatch(
      /browser on host 'full'[\s\S]*browser host 'full' refused the browser: .*429[\s\S]*browser on host 'pw'/,
    );
  });

  it("a profile's cookies and localStorage travel to a debugging-port host and back: a second remote job and a local one see them", async () => {
    const first = await start('login', {
      profile_id: profileId,
      browser_host_labels: ['cdp'],
      form_data: { write: 'yes' },
    });
    expect(await waitForJob(svc, 'login', first, ['completed', 'failed'], 60_000)).toMatchObject({
      status: 'completed',
      result: { cookie: 'session=kept-123', remember: 'yes' },
    });
    expect(await logsOf('login', first)).toContain("browser on host 'cdp'");
    const second = await start('home', { profile_id: profileId, browser_host_labels: ['pw'] });
    expect(await waitForJob(svc, 'home', second, ['completed', 'failed'], 60_000)).toMatchObject({
      status: 'completed',
      result: { cookie: 'session=kept-123', remember: 'yes' },
    });
    // Saved back into the profile's folder: the local Chromium reads the same.
    const local = await start('home', { profile_id: profileId, browser_host_labels: ['local'] });
    expect(await waitForJob(svc, 'home', local, ['completed', 'failed'], 60_000)).toMatchObject({
      status: 'completed',
      result: { cookie: 'session=kept-123', remember: 'yes' },
    });
    const fresh = await start('home', { browser_host_labels: ['cdp'] });
    expect(await waitForJob(svc, 'home', fresh, ['completed', 'failed'], 60_000)).toMatchObject({
      status: 'completed',
      result: { cookie: '', remember: null },
    });
  });

  it('a host killed mid-job: the job fails naming it, the host takes no new browsers, other hosts go on', async () => {
    const jobId = await start('hang', { browser_host_labels: ['pw'] });
    await until(
      async () => ((await waitForJob(svc, 'hang', jobId, ['running'], 60_000)).steps as number) >= 1,
      'the job to take its first step',
      60_000,
    );
    hosts[0]!.kill();
    const failed = await waitForJob(svc, 'hang', jobId, ['failed', 'completed'], 30_000);
    expect(failed.status).toBe('failed');
    expect(String(failed.error)).toContain("browser host 'pw' went away");
    expect((await hostsNow()).find((host) => host.name === 'pw')).toMatchObject({
      reachable: false,
      browsers_in_use: 0,
    });
    const other = await start('home', { browser_host_labels: ['cdp'] });
    expect(await waitForJob(svc, 'home', other, ['completed', 'failed'], 60_000)).toMatchObject({
      status: 'completed',
    });
    // Nothing takes it now: a job asking for it waits in the queue.
    const waiting = await start('home', { browser_host_labels: ['pw'] });
    expect(await waitForJob(svc, 'home', waiting, ['queued'])).toMatchObject({ status: 'queued' });
  });
});
