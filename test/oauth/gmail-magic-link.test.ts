import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppOptions } from '../../src-main/app.ts';
import { createLogger, type Logger } from '../../src-main/base/logger.ts';
import { CODE_WAIT_MS } from '../../src-main/engine/credentials/codeWaiter.ts';
import { FakeClock } from '../helpers/fakeClock.ts';
import { dataFilesUnder } from '../helpers/files.ts';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { startService, waitForJob, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';
import { type GoogleMail, page, passwordLogin, see, startGoogleMail } from './helpers/googleMail.ts';

const USER = 'ada@example.com';
const PASSWORD = 'magic-login-pw-7720';
// Letters only: the mail must hold no 4-8 digit run that could read as a code.
const TOKEN = 'mlkQzXwVbNyTrEuPiOaSdFgH';

const signedIn = (cookie: string | undefined) => (cookie ?? '').includes('session=magic');

describe("a mail with only a sign-in link: the login flow opens it in the job's browser, only when it is of the credential's site", () => {
  let google: GoogleMail;
  let site: PageServer;
  let svc: TestService;
  let credentialId = '';
  const clock = new FakeClock(Date.now());
  const logLines: string[] = [];
  const typed: Record<string, string> = {};

  const magicMail = (id: string, origin: string) => {
    const link = `${origin}/magic-login?token=${TOKEN}`;
    google.gmail.add({
      // Received just after the job began waiting, on the credentials' (fake) clock.
      id,
      receivedAt: new Date(clock.now().getTime() + 1000),
      subject: 'Sign in to Mail bank',
      plain: `Hi Ada,\n\nClick this link to sign in to Mail bank:\n${link}\n\nIt works once.`,
      html: `<p>Hi Ada,</p><p><a href="${link}">Sign in to Mail bank</a></p><p>It works once.</p>`,
    });
  };
  const runJob = async (endpoint = 'magicbank'): Promise<string> => {
    const job = await svc.send('startJob', {
      params: { org_id: 'default', endpoint_name: endpoint },
      body: { orchestrator_model: 'builtin:autofill', form_data: { nickname: 'ada' }, credential_id: credentialId },
    });
    expect(job.status).toBe(200);
    return String((job.body as { job_id: string }).job_id);
  };

  beforeAll(async () => {
    google = await startGoogleMail('google-client-secret-m2');
    site = await startPageServer({
      '/login': passwordLogin(USER, PASSWORD, '/mail-code'),
      '/mail-code': (req, body) => {
        if (req.method !== 'POST') {
          return {
            body: page(
              'Check your email',
              '<form method="post" action="/mail-code"><p>We emailed you a verification code, or a link that signs you in</p><label>Verification code <input name="code" autocomplete="one-time-code" inputmode="numeric"></label><button type="submit">Verify</button></form>',
            ),
          };
        }
        typed.code = new URLSearchParams(body).get('code') ?? '';
        return { body: page('Check your email', '<p>Invalid code</p>') };
      },
      // A site that signs in by link only: the email, then "check your inbox" with no field at all.
      '/login-by-link': (req, body) => {
        if (req.method !== 'POST') {
          return {
            body: page(
              'Sign in',
              `<form method="post" action="/login-by-link"><label>Email <input type="email" name="email" autocomplete="username"></label><button type="submit">Email me a sign-in link</button></form>`,
            ),
          };
        }
        return new URLSearchParams(body).get('email') === USER
          ? see('/check-inbox')
          : { body: page('Sign in', '<p>Unknown address</p>') };
      },
      '/check-inbox': () => ({
        body: page('Check your inbox', '<h1>Check your email</h1><p>We sent you a sign-in link. It works once.</p>'),
      }),
      '/magic-login': (req) => {
        const token = new URL(req.url ?? '/', 'http://x').searchParams.get('token');
        typed.link = `${req.headers.host ?? ''} ${token === TOKEN ? 'valid' : 'invalid'}`;
        return token === TOKEN
          ? see('/account', { 'set-cookie': 'session=magic; Path=/; HttpOnly' })
          : { body: page('Sign in', '<p>Link expired</p>') };
      },
      '/account': (req, body) => {
        if (!signedIn(req.headers.cookie)) return see('/login');
        if (req.method !== 'POST')
          return {
            body: page(
              'Account',
              '<h1>Your account</h1><form method="post" action="/account"><label>Nickname <input name="nickname"></label><button type="submit">Save</button></form>',
            ),
          };
        typed.nickname = new URLSearchParams(body).get('nickname') ?? '';
        return { body: page('Saved', '<h1>Saved</h1><p>Your changes were saved.</p>') };
      },
    });
    const options: Partial<AppOptions> & { logger: Logger } = {
      logger: createLogger('debug', (line) => void logLines.push(line)),
      clock: clock,
    };
    svc = await startService(undefined, options);

    const { account } = await google.connect(svc);
    const credential = await svc.send(
      'createCredential',
      {
        body: {
          service_name: 'Magic bank',
          username_or_email: USER,
          password: PASSWORD,
          gmail_oauth_account_id: account?.id,
          service_url: `${site.url}/login`,
        },
      },
      { key: svc.accountKey },
    );
    expect(credential.status).toBe(200);
    credentialId = (credential.body as { id: string }).id;
    const portal = await svc.request('createPortal', {
      params: { org_id: 'default' },
      body: {
        endpoint_name: 'magicbank',
        start_url: `${site.url}/login`,
        task: 'Sign in and set the nickname',
        form_schema: { type: 'object', properties: { nickname: { type: 'string' } } },
      },
    });
    expect(portal.status).toBe(200);
    const byLink = await svc.request('createPortal', {
      params: { org_id: 'default' },
      body: {
        endpoint_name: 'linkbank',
        start_url: `${site.url}/login-by-link`,
        task: 'Sign in and set the nickname',
        form_schema: { type: 'object', properties: { nickname: { type: 'string' } } },
      },
    });
    expect(byLink.status).toBe(200);
  });
  afterAll(async () => {
    await svc?.dispose();
    await site?.close();
    await google?.stop();
  });

  it("a link of another origin than the credential's service_url is never opened: the job waits for a code and fails saying none came", async () => {
    const jobId = await runJob();
    await until(() => site.hits.includes('GET /mail-code'), 'the mailed-code page', 60_000);
    // Same server, another origin (localhost is not 127.0.0.1): not the credential's site.
    magicMail('foreign', site.url.replace('127.0.0.1', 'localhost'));
    await until(
      () => google.gmail.requests.some((r) => r.path === '/gmail/v1/users/me/messages/foreign?format=full'),
      'the foreign mail to be read',
      30_000,
    );
    clock.advance(CODE_WAIT_MS + 1);
    const done = await waitForJob(svc, 'magicbank', jobId, ['completed', 'failed'], 60_000);
    expect(done.status).toBe('failed');
    expect(String(done.error)).toContain("No verification code for 'Magic bank' arrived");
    expect(site.hits).not.toContain('GET /magic-login');
    expect(typed.link).toBeUndefined();
  });

  it("a link of the credential's site is opened in the job's page: signed in, the form filled, nothing typed as a code, the link never shown", async () => {
    const jobId = await runJob();
    await until(
      () => site.hits.filter((hit) => hit === 'GET /mail-code').length === 2,
      'the mailed-code page again',
      60_000,
    );
    magicMail('own', site.url);
    const done = await waitForJob(svc, 'magicbank', jobId, ['completed', 'failed'], 60_000);
    expect(done.status, String(done.error)).toBe('completed');
    expect(typed).toEqual({ link: `${new URL(site.url).host} valid`, nickname: 'ada' });

    // The job's log stream (replayed, ends with the job) says what happened, without the link.
    const jobLog = await (
      await svc.request('streamJobLogs', {
        params: { org_id: 'default', endpoint_name: 'magicbank' },
        query: { job_id: jobId },
      })
    ).text();
    expect(jobLog).toContain('sign-in link received');
    expect(jobLog).toContain('login: opening the sign-in link mailed for Magic bank');
    const haystacks: Array<[string, string]> = [
      ['service log', logLines.join('')],
      ['status', JSON.stringify(done)],
      ['job log', jobLog],
    ];
    for (const file of await dataFilesUnder(svc.dataDir))
      haystacks.push([file, (await readFile(file)).toString('latin1')]);
    for (const [where, text] of haystacks) expect(text.includes(TOKEN), `${where} holds the sign-in link`).toBe(false);
  });

  it('a site that signs in by link only ("check your email", no field): the link mailed after the email was submitted is opened and the form behind it filled', async () => {
    delete typed.link;
    delete typed.nickname;
    const jobId = await runJob('linkbank');
    await until(() => site.hits.includes('GET /check-inbox'), 'the check-your-inbox page', 60_000);
    magicMail('by-link', site.url);
    const done = await waitForJob(svc, 'linkbank', jobId, ['completed', 'failed'], 60_000);
    expect(done.status, String(done.error)).toBe('completed');
    expect(typed).toMatchObject({ link: `${new URL(site.url).host} valid`, nickname: 'ada' });
    const jobLog = await (
      await svc.request('streamJobLogs', {
        params: { org_id: 'default', endpoint_name: 'linkbank' },
        query: { job_id: jobId },
      })
    ).text();
    expect(jobLog).toContain('login: opening the sign-in link mailed for Magic bank');
    expect(jobLog.includes(TOKEN)).toBe(false);
  });
});
