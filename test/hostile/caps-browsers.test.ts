import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.ts';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { scriptedRegistry } from '../helpers/scriptedAgents.ts';
import { jsonOf, startService, waitForJob, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';

const previousHeadless = process.env.PORTICO_HEADLESS;
process.env.PORTICO_HEADLESS = '1';

const PER_ORG = 2;
const TOTAL = 3;
const HOW_TO_RAISE =
  'To free one, close a session or profile login, or raise browsers_per_org / browsers_total in settings.json in the data folder and restart';

/**
 * Chromium browser processes (not their renderers) whose profile folder is under `dataDir`; without
 * `includeJobBrowser`, not the one browser jobs share (a throwaway profile Playwright makes under
 * `<data>/tmp/playwright`), which stays up between jobs until the service stops.
 */
function browsersUnder(dataDir: string, includeJobBrowser = false): number {
  const out = execFileSync('ps', ['-eo', 'args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter(
      (line) =>
        line.includes(`--user-data-dir=${dataDir}`) &&
        !line.includes('--type=') &&
        (includeJobBrowser || !line.includes(`--user-data-dir=${dataDir}/tmp/playwright/`)),
    ).length;
}

describe('live browsers per organization and overall', () => {
  let svc: TestService;
  let pages: PageServer;
  let rivalKey: string;

  const openSession = async () =>
    jsonOf(await svc.api('/public/sessions', { method: 'POST', json: {}, key: svc.accountKey }));
  const openLogin = async (org: string, key?: string) =>
    jsonOf(await svc.api(`/profiles/${org}`, { method: 'POST', json: { timeout_minutes: 1440 }, ...(key && { key }) }));
  const closeLogin = async (org: string, sessionId: string, key?: string) =>
    (await svc.api(`/profiles/${org}/sessions/${sessionId}/close`, { method: 'POST', ...(key && { key }) })).status;

  beforeAll(async () => {
    pages = await startPageServer({ '/form': '<!doctype html><title>Caps</title><input id="colour">' });
    svc = await startService(undefined, {
      agents: scriptedRegistry,
      limits: { browsersPerOrg: PER_ORG, browsersTotal: TOTAL },
    });
    rivalKey = String((await cli(svc.dataDir, ['org', 'create', 'rival'])).json.api_key);
    expect(
      (
        await svc.api('/portals/default', {
          method: 'POST',
          json: { endpoint_name: 'visit', start_url: `${pages.url}/form`, task: 'script:visit' },
        })
      ).status,
    ).toBe(200);
  });
  afterAll(async () => {
    const dataDir = svc.dataDir;
    await svc.dispose();
    await pages.close();
    if (previousHeadless === undefined) delete process.env.PORTICO_HEADLESS;
    else process.env.PORTICO_HEADLESS = previousHeadless;
    // Shutdown closed every browser it had opened, the jobs' shared one too: none is left running on the data folder.
    expect(browsersUnder(dataDir, true)).toBe(0);
  });

  it('sessions, profile logins and running jobs share the limits: past them sessions and logins are 429, a job waits queued, and closing one frees a slot', async () => {
    // Organization `default`: a session and a profile login fill its two slots.
    const session = await openSession();
    expect(session.status).toBe(200);
    const login = await openLogin('default');
    expect(login.status).toBe(200);
    const perOrgDetail = `Browser limit reached: organization 'default' has ${PER_ORG} live browsers (sessions, profile logins and running jobs); the limit is ${PER_ORG} per organization (browsers_per_org). ${HOW_TO_RAISE}`;
    expect(await openSession()).toEqual({ status: 429, body: { detail: perOrgDetail } });
    expect(await openLogin('default')).toEqual({ status: 429, body: { detail: perOrgDetail } });
    // A workflow run that would open its own session is refused the same way, and records no execution.
    const workflow = await jsonOf(
      await svc.api('/public/workflows', {
        method: 'POST',
        key: svc.accountKey,
        json: { name: 'caps', steps: [{ action: `go to ${pages.url}/form` }] },
      }),
    );
    const workflowId = String((workflow.body as { id: string }).id);
    expect(
      await jsonOf(
        await svc.api(`/public/workflows/${workflowId}/run`, { method: 'POST', key: svc.accountKey, json: {} }),
      ),
    ).toEqual({ status: 429, body: { detail: perOrgDetail } });
    expect((await jsonOf(await svc.api(`/public/workflows/${workflowId}`, { key: svc.accountKey }))).body).toEqual({
      executions: [],
    });
    // The refused login left no empty profile behind, and no browser was started for either.
    expect(((await jsonOf(await svc.api('/profiles/default'))).body as unknown[]).length).toBe(1);
    expect(browsersUnder(svc.dataDir)).toBe(2);

    // Another organization has its own slots, until the service's total is reached.
    const rivalLogin = await openLogin('rival', rivalKey);
    expect(rivalLogin.status).toBe(200);
    expect(await openLogin('rival', rivalKey)).toEqual({
      status: 429,
      body: {
        detail: `Browser limit reached: the service has ${TOTAL} live browsers (sessions, profile logins and running jobs of every organization); the limit is ${TOTAL} in total (browsers_total). ${HOW_TO_RAISE}`,
      },
    });
    expect(browsersUnder(svc.dataDir)).toBe(3);

    // Terminating the session frees its slot at once: the rival's second login now opens.
    const sessionId = String((session.body as { session_id: string }).session_id);
    expect(
      (await svc.api(`/public/sessions/${sessionId}/terminate`, { method: 'POST', key: svc.accountKey })).status,
    ).toBe(200);
    const rivalSecond = await openLogin('rival', rivalKey);
    expect(rivalSecond.status).toBe(200);
    expect(browsersUnder(svc.dataDir)).toBe(3);

    // A job is never refused: with every slot taken it waits queued (the scheduler admits synchronously,
    // so an admitted job would already read `running`) and runs once a browser closes.
    const started = await jsonOf(
      await svc.api('/jobs/default/visit/start', { method: 'POST', json: { form_data: {} } }),
    );
    expect(started.status).toBe(200);
    const jobId = String((started.body as { job_id: string }).job_id);
    expect((await jsonOf(await svc.api(`/task/default/visit/status?job_id=${jobId}`))).body).toMatchObject({
      status: 'queued',
    });
    expect(await closeLogin('default', String((login.body as { session_id: string }).session_id))).toBe(200);
    expect(await waitForJob(svc, 'visit', jobId, ['completed', 'failed'])).toMatchObject({ status: 'completed' });

    // Its slot came back too: `default` may open a session again, within its limit.
    const again = await openSession();
    expect(again.status).toBe(200);

    for (const opened of [rivalLogin, rivalSecond])
      expect(await closeLogin('rival', String((opened.body as { session_id: string }).session_id), rivalKey)).toBe(200);
    expect(
      (
        await svc.api(`/public/sessions/${String((again.body as { session_id: string }).session_id)}/terminate`, {
          method: 'POST',
          key: svc.accountKey,
        })
      ).status,
    ).toBe(200);
    // Every session and login browser closed with its session: only the jobs' shared browser is left running.
    await until(
      () => browsersUnder(svc.dataDir) === 0 || undefined,
      'every session and login browser on the data folder to exit',
      15_000,
    );
    expect(browsersUnder(svc.dataDir, true)).toBe(1);
  });
});
