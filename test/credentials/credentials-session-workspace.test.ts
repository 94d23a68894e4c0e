import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.ts';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { scriptedRegistry } from '../helpers/scriptedAgents.ts';
import { startService, waitForJob, type TestService } from '../helpers/service.ts';

/**
 * Issue 21, finding 5: whoever holds a session's cdp_url sees everything typed in its browser, so a
 * job run in a session (browser_session_id) may type only credentials of that session's workspace.
 */
describe("credentials follow the session's workspace", () => {
  let svc: TestService;
  let pages: PageServer;
  let otherKey: string;

  const createSession = async (key: string): Promise<string> => {
    const made = await svc.send('createSession', { body: {} }, { key });
    expect(made.status).toBe(200);
    return String((made.body as { session_id: string }).session_id);
  };
  const createCredential = async (key: string, service_name: string): Promise<string> => {
    const made = await svc.send(
      'createCredential',
      { body: { service_name, username_or_email: 'ada', password: 'pw-of-workspace' } },
      { key },
    );
    expect(made.status).toBe(200);
    return String((made.body as { id: string }).id);
  };

  beforeAll(async () => {
    pages = await startPageServer({ '/app': '<!doctype html><title>App</title><p>app</p>' });
    svc = await startService(undefined, { agents: scriptedRegistry });
    // A second workspace of the same organization, with its own member.
    otherKey = String((await cli(svc.dataDir, ['user', 'create', 'bob', '--workspace', 'elsewhere'])).json.api_key);
    expect(
      (
        await svc.request('createPortal', {
          params: { org_id: 'default' },
          body: { endpoint_name: 'visit', start_url: `${pages.url}/app`, task: 'script:visit' },
        })
      ).status,
    ).toBe(200);
  });
  afterAll(async () => {
    await svc?.dispose();
    await pages?.close();
  });

  it("a job in workspace B's session with workspace A's credential is 422 naming both; nothing is queued", async () => {
    const credentialOfA = await createCredential(svc.accountKey, 'Bank of A');
    const sessionOfB = await createSession(otherKey);
    const before = await svc.send('listJobs', { params: { org_id: 'default' } });

    const refused = await svc.send('startJob', {
      params: { org_id: 'default', endpoint_name: 'visit' },
      body: { form_data: {}, browser_session_id: sessionOfB, credential_id: credentialOfA },
    });
    expect(refused.status).toBe(422);
    const detail = String((refused.body as { detail: string }).detail);
    expect(detail).toMatch(/^body\.credential_id: /);
    expect(detail).toContain(credentialOfA);
    expect(detail).toContain(sessionOfB);
    expect(detail).toContain("workspace 'elsewhere'");
    expect(await svc.send('listJobs', { params: { org_id: 'default' } })).toEqual(before);

    // A portal that names both is refused the same way at job start, naming the portal's field.
    expect(
      (
        await svc.request('createPortal', {
          params: { org_id: 'default' },
          body: {
            endpoint_name: 'mixed',
            start_url: `${pages.url}/app`,
            task: 'script:visit',
            browser_session_id: sessionOfB,
            credential_id: credentialOfA,
          },
        })
      ).status,
    ).toBe(200);
    const viaPortal = await svc.send('startJob', {
      params: { org_id: 'default', endpoint_name: 'mixed' },
      body: { form_data: {} },
    });
    expect(viaPortal.status).toBe(422);
    expect(String((viaPortal.body as { detail: string }).detail)).toMatch(/^portal 'mixed' credential_id: .*session/);
  });

  it("the same session with its own workspace's credential runs", async () => {
    const credentialOfB = await createCredential(otherKey, 'Bank of B');
    const sessionOfB = await createSession(otherKey);
    const started = await svc.send('startJob', {
      params: { org_id: 'default', endpoint_name: 'visit' },
      body: { form_data: {}, browser_session_id: sessionOfB, credential_id: credentialOfB },
    });
    expect(started.status).toBe(200);
    const done = await waitForJob(svc, 'visit', String((started.body as { job_id: string }).job_id), [
      'completed',
      'failed',
    ]);
    expect(done).toMatchObject({ status: 'completed' });
  });
});
