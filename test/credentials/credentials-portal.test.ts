import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.ts';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { startService, waitForJob, type TestService } from '../helpers/service.ts';

const page = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;

describe('a portal with credential_id: its jobs sign in with it unless the job names its own', () => {
  let svc: TestService;
  let site: PageServer;
  const signIns: string[] = [];

  beforeAll(async () => {
    site = await startPageServer({
      '/login': (req, body) => {
        if (req.method !== 'POST') {
          return {
            body: page(
              'Sign in',
              '<form method="post" action="/login"><label>Username <input name="username" autocomplete="username"></label><label>Password <input type="password" name="password"></label><button type="submit">Log in</button></form>',
            ),
          };
        }
        const f = new URLSearchParams(body);
        signIns.push(`${f.get('username') ?? ''}:${f.get('password') ?? ''}`);
        return { body: page('Home', '<h1>Welcome back</h1><p>Signed in.</p>') };
      },
    });
    svc = await startService();
  });
  afterAll(async () => {
    await svc?.dispose();
    await site?.close();
  });

  const credential = async (username: string, password: string, key = svc.accountKey): Promise<string> =>
    String(
      (
        (
          await svc.send(
            'createCredential',
            { body: { service_name: 'Site', username_or_email: username, password } },
            { key },
          )
        ).body as { id: string }
      ).id,
    );
  const run = async (json: Record<string, unknown>) => {
    const started = await svc.send('startJob', {
      params: { org_id: 'default', endpoint_name: 'site' },
      body: { orchestrator_model: 'builtin:autofill', form_data: {}, ...json },
    });
    expect(started.status).toBe(200);
    return waitForJob(
      svc,
      'site',
      String((started.body as { job_id: string }).job_id),
      ['completed', 'failed'],
      60_000,
    );
  };

  it("create, read and patch credential_id; the portal's credential signs its jobs in; a job's own credential_id wins", async () => {
    const portalCred = await credential('portal-user', 'portal-pass-1');
    const jobCred = await credential('job-user', 'job-pass-2');
    const made = await svc.send('createPortal', {
      params: { org_id: 'default' },
      body: { endpoint_name: 'site', start_url: `${site.url}/login`, task: 'Sign in', credential_id: portalCred },
    });
    expect(made).toMatchObject({ status: 200, body: { credential_id: portalCred } });

    expect(await run({})).toMatchObject({ status: 'completed' });
    expect(await run({ credential_id: jobCred })).toMatchObject({ status: 'completed' });
    expect(signIns).toEqual(['portal-user:portal-pass-1', 'job-user:job-pass-2']);

    expect(
      await svc.send('updatePortal', {
        params: { org_id: 'default', endpoint_name: 'site' },
        body: { credential_id: null },
      }),
    ).toMatchObject({ status: 200, body: { credential_id: null } });
    expect((await svc.send('getPortal', { params: { org_id: 'default', endpoint_name: 'site' } })).body).toMatchObject({
      credential_id: null,
    });
  });

  it("a credential of another organization's workspace is 404 Credential not found on create and patch, and the portal keeps what it had", async () => {
    await cli(svc.dataDir, ['org', 'create', 'acme']);
    const foreignKey = String(
      (await cli(svc.dataDir, ['user', 'create', 'wile', '--workspace', 'acme-team', '--org', 'acme'])).json.api_key,
    );
    const foreign = await credential('wile', 'acme-pass-3', foreignKey);
    expect(
      await svc.send('createPortal', {
        params: { org_id: 'default' },
        body: { endpoint_name: 'stolen', start_url: `${site.url}/login`, task: 'Sign in', credential_id: foreign },
      }),
    ).toEqual({ status: 404, body: { detail: 'Credential not found' } });
    expect((await svc.request('getPortal', { params: { org_id: 'default', endpoint_name: 'stolen' } })).status).toBe(
      404,
    );
    expect(
      await svc.send('updatePortal', {
        params: { org_id: 'default', endpoint_name: 'site' },
        body: { credential_id: foreign },
      }),
    ).toEqual({ status: 404, body: { detail: 'Credential not found' } });
    expect(
      await svc.send('startJob', {
        params: { org_id: 'default', endpoint_name: 'site' },
        body: { form_data: {}, credential_id: foreign },
      }),
    ).toEqual({ status: 404, body: { detail: 'Credential not found' } });
    expect((await svc.send('getPortal', { params: { org_id: 'default', endpoint_name: 'site' } })).body).toMatchObject({
      credential_id: null,
    });
  });

  it('a portal whose credential was deleted since: its jobs are refused with 404 and nothing is queued', async () => {
    const gone = await credential('gone-user', 'gone-pass-4');
    expect(
      (
        await svc.request('updatePortal', {
          params: { org_id: 'default', endpoint_name: 'site' },
          body: { credential_id: gone },
        })
      ).status,
    ).toBe(200);
    expect(
      (await svc.request('deleteCredential', { params: { credential_id: gone } }, { key: svc.accountKey })).status,
    ).toBe(204);
    const before = ((await svc.send('listJobs', { params: { org_id: 'default' } })).body as { total: number }).total;
    expect(
      await svc.send('startJob', { params: { org_id: 'default', endpoint_name: 'site' }, body: { form_data: {} } }),
    ).toEqual({ status: 404, body: { detail: 'Credential not found' } });
    expect(((await svc.send('listJobs', { params: { org_id: 'default' } })).body as { total: number }).total).toBe(
      before,
    );
  });
});
