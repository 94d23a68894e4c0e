import { readdirSync, readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../helpers/fakeClock.ts';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { scriptedRegistry } from '../helpers/scriptedAgents.ts';
import { startService, waitForJob, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';

// browsers_idle_minutes (docs/decisions.md, "Idle browsers close"): with nothing running and no session open
// for that while, the jobs' shared browser and the sessions' warm pool close; they reopen on demand. Time
// moves only on the fake clock; what is observed is the Chromium processes themselves.

const MINUTE = 60_000;

/** Main Chromium processes (not their helpers) started for this data folder: kind by their command line. */
function browsers(dataDir: string): { pid: number; kind: 'session' | 'job' }[] {
  const found: { pid: number; kind: 'session' | 'job' }[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let line: string;
    try {
      // A running Chromium rewrites its command line as one string: read it as one.
      line = readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ');
    } catch {
      continue; // exited while listing
    }
    // Helpers (--type=…) and the forks of the distribution's wrapper script are not browsers.
    if (/(^| )--type=/.test(line) || /^\S*\/(ba|da)?sh /.test(line) || !alive(Number(name))) continue;
    if (line.includes(` --user-data-dir=${dataDir}/tmp/sessions/`)) found.push({ pid: Number(name), kind: 'session' });
    else if (line.includes(' --portico-browser=') && line.includes(dataDir))
      found.push({ pid: Number(name), kind: 'job' });
  }
  // A browser's own forks carry its command line until they exec (a helper being launched, crashpad's
  // short-lived middle fork): a process whose parent is a browser found here is not one more browser.
  const pids = new Set(found.map((b) => b.pid));
  return found.filter((b) => !pids.has(parentOf(b.pid)));
}

function parentOf(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[1]);
  } catch {
    return 0;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie is gone too (its parent has not reaped it yet).
  try {
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z');
  } catch {
    return false;
  }
}

describe('idle browsers close after browsers_idle_minutes (default 5) and reopen on demand', () => {
  const clock = new FakeClock();
  let svc: TestService;
  let pages: PageServer;
  const kinds = () => new Set(browsers(svc.dataDir).map((b) => b.kind));

  const startJob = async (name: string): Promise<string> => {
    const res = await svc.send('startJob', {
      params: { org_id: 'default', endpoint_name: name },
      body: { form_data: {} },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return String((res.body as { job_id: string }).job_id);
  };

  beforeAll(async () => {
    pages = await startPageServer({ '/form': '<!doctype html><title>Idle form</title><input id="colour">' });
    // Warm as a user's app is: one pooled session browser (the jobs' shared browser opens at the first job).
    svc = await startService(undefined, { clock, warmBrowser: true, sessionPoolSize: 1, agents: scriptedRegistry });
    for (const script of ['visit', 'hang'])
      expect(
        (
          await svc.request('createPortal', {
            params: { org_id: 'default' },
            body: { endpoint_name: script, start_url: `${pages.url}/form`, task: `script:${script}` },
          })
        ).status,
      ).toBe(200);
  });
  afterAll(async () => {
    await svc?.dispose();
    await pages?.close();
  });

  it('with nothing in use, the warm session browser closes once the idle period has passed, not before', async () => {
    // At start only the sessions' warm browser opens; the jobs' shared browser waits for a job.
    await until(() => kinds().has('session'), 'the warm session browser', 30_000);
    const warm = browsers(svc.dataDir);
    clock.advance(5 * MINUTE - 1_000);
    // The timer has not fired: every warm browser is still the same live process. (More may have appeared
    // meanwhile on a loaded machine — a browser seen while still starting — so this asserts none went, not
    // that the list is equal.)
    for (const b of warm) expect(alive(b.pid), `pid ${b.pid} (${b.kind})`).toBe(true);
    expect(kinds()).toEqual(new Set(['session']));
    clock.advance(1_000);
    await until(
      () => warm.every((b) => !alive(b.pid)) && browsers(svc.dataDir).length === 0,
      'the warm browsers to exit',
      30_000,
    );
    expect(browsers(svc.dataDir)).toEqual([]);
  });

  it('a running job and an open session keep them open; once both end, they close; the next job and session reopen them and work', async () => {
    // A session after the close launches its own browser, and the pool is made warm again behind it.
    const first = await svc.send('createSession', { body: {} }, { key: svc.accountKey });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const firstId = (first.body as { session_id: string }).session_id;
    // The pool refills once the session has got going, at most 3 s after it took its browser (on the app's clock;
    // docs/decisions.md, "The warm pool refills once a session has got going"): no client connects here.
    clock.advance(3_000);
    await until(
      () => browsers(svc.dataDir).filter((b) => b.kind === 'session').length === 2,
      'the session browser and the refilled pool',
      30_000,
    );
    await svc.send('terminateSession', { params: { session_id: firstId } }, { key: svc.accountKey });
    const pooled = await until(() => {
      const found = browsers(svc.dataDir).filter((b) => b.kind === 'session');
      return found.length === 1 ? found[0] : undefined;
    }, 'the ended session browser to exit');

    // A job reopens the shared browser on demand; while it runs, nothing closes.
    const hang = await startJob('hang');
    await waitForJob(svc, 'hang', hang, ['running']);
    const jobBrowser = await until(
      () => browsers(svc.dataDir).find((b) => b.kind === 'job'),
      'the job browser',
      30_000,
    );
    clock.advance(10 * MINUTE);
    expect(alive(jobBrowser.pid)).toBe(true);
    expect(alive(pooled.pid), 'the warm session browser').toBe(true);
    expect(await waitForJob(svc, 'hang', hang, ['running'])).toMatchObject({ status: 'running' });

    // A session opened while the job runs; the job ends; the session alone keeps everything open.
    const created = await svc.send('createSession', { body: {} }, { key: svc.accountKey });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const session = created.body as { session_id: string; cdp_url: string };
    await svc.send('cancelJob', { params: { org_id: 'default', endpoint_name: 'hang' }, query: { job_id: hang } });
    await waitForJob(svc, 'hang', hang, ['cancelled']);
    clock.advance(3_000); // the pool's refill (above)
    const sessionBrowsers = await until(
      () => {
        const found = browsers(svc.dataDir).filter((b) => b.kind === 'session');
        return found.length === 2 ? found : undefined; // the session's own and the pool's refill
      },
      'the session browser and the refilled pool',
      30_000,
    );
    // The session took the warm browser the running job's hold kept.
    expect(sessionBrowsers.map((b) => b.pid)).toContain(pooled.pid);
    clock.advance(10 * MINUTE);
    for (const b of [jobBrowser, ...sessionBrowsers]) expect(alive(b.pid), `pid ${b.pid}`).toBe(true);
    const client = await chromium.connectOverCDP(session.cdp_url);
    const page = client.contexts()[0]!.pages()[0] ?? (await client.contexts()[0]!.newPage());
    await page.goto(`${pages.url}/form`);
    expect(await page.title()).toBe('Idle form');
    await client.close();

    // Nothing in use: after the idle period no Chromium of this service is left.
    const terminated = await svc.send(
      'terminateSession',
      { params: { session_id: session.session_id } },
      { key: svc.accountKey },
    );
    expect(terminated.status).toBe(200);
    const before = browsers(svc.dataDir);
    clock.advance(5 * MINUTE);
    await until(
      () => before.every((b) => !alive(b.pid)) && browsers(svc.dataDir).length === 0,
      'every browser to exit',
      30_000,
    );

    // Reopened on demand: a job completes, a session (cold) drives its page.
    const visit = await startJob('visit');
    expect(await waitForJob(svc, 'visit', visit, ['completed', 'failed'])).toMatchObject({
      status: 'completed',
      result: { title: 'Idle form' },
    });
    const again = await svc.send('createSession', { body: {} }, { key: svc.accountKey });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    const second = await chromium.connectOverCDP((again.body as { cdp_url: string }).cdp_url);
    const secondPage = second.contexts()[0]!.pages()[0] ?? (await second.contexts()[0]!.newPage());
    await secondPage.goto(`${pages.url}/form`);
    expect(await secondPage.title()).toBe('Idle form');
    await second.close();
    // And the pool is warm again behind it (its refill on the app's clock, above).
    clock.advance(3_000);
    await until(
      () => browsers(svc.dataDir).filter((b) => b.kind === 'session').length === 2,
      'the pool refilled after the cold session',
      30_000,
    );
    await svc.send(
      'terminateSession',
      { params: { session_id: (again.body as { session_id: string }).session_id } },
      { key: svc.accountKey },
    );
  });
});
