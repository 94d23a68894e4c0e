import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppOptions } from '../../src-main/app.ts';
import { createLogger, type Logger } from '../../src-main/base/logger.ts';
import { dataFilesUnder } from '../helpers/files.ts';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { startService, waitForJob, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';
import { type GoogleMail, page, passwordLogin, see, startGoogleMail } from './helpers/googleMail.ts';

const USER = 'ada@example.com';
const PASSWORD = 'mail-login-pw-3381';
const MAIL_CODE = '705214';
const MAIL_MARKER = 'confidential-mail-body-marker-9d1';

describe('a job signs in with a code the site mailed: the credential reads it from its linked Gmail account', () => {
  let google: GoogleMail;
  let site: PageServer;
  let svc: TestService;
  const logLines: string[] = [];
  const typed: Record<string, string> = {};

  beforeAll(async () => {
    // Hosts read the environment once at start: the service started below calls the stand-in as the Gmail API.
    google = await startGoogleMail('google-client-secret-x1');
    site = await startPageServer({
      '/login': passwordLogin(USER, PASSWORD, '/mail-code'),
      '/mail-code': (req, body) => {
        if (req.method !== 'POST') {
          return {
            body: page(
              'Check your email',
              '<form method="post" action="/mail-code"><p>We emailed you a verification code</p><label>Verification code <input name="code" autocomplete="one-time-code" inputmode="numeric"></label><button type="submit">Verify</button></form>',
            ),
          };
        }
        typed.code = new URLSearchParams(body).get('code') ?? '';
        return typed.code === MAIL_CODE ? see('/account') : { body: page('Check your email', '<p>Invalid code</p>') };
      },
      '/account': (req, body) => {
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
    // startApp takes a logger besides AppOptions; passed as a variable, as the credentials tests do.
    const options: Partial<AppOptions> & { logger: Logger } = {
      logger: createLogger('debug', (line) => void logLines.push(line)),
    };
    svc = await startService(undefined, options);
  });
  afterAll(async () => {
    await svc?.dispose();
    await site?.close();
    await google?.stop();
  });

  it('connect Google, link it to a credential, run the job: the mailed code is read through the Gmail API and typed', async () => {
    const { authorizationUrl, account } = await google.connect(svc);
    expect(new URL(authorizationUrl).searchParams.get('scope')).toContain(
      'https://www.googleapis.com/auth/gmail.readonly',
    );
    expect(account?.oauth_user_name).toBe('ada@gmail.example');

    const credential = await svc.send(
      'createCredential',
      {
        body: {
          service_name: 'Mail bank',
          username_or_email: USER,
          password: PASSWORD,
          gmail_oauth_account_id: account?.id,
        },
      },
      { key: svc.accountKey },
    );
    expect(credential).toMatchObject({ status: 200, body: { has_gmail_oauth: true } });
    const portal = await svc.request('createPortal', {
      params: { org_id: 'default' },
      body: {
        endpoint_name: 'mailbank',
        start_url: `${site.url}/login`,
        task: 'Sign in and set the nickname',
        form_schema: { type: 'object', properties: { nickname: { type: 'string' } } },
      },
    });
    expect(portal.status).toBe(200);
    const job = await svc.send('startJob', {
      params: { org_id: 'default', endpoint_name: 'mailbank' },
      body: {
        orchestrator_model: 'builtin:autofill',
        form_data: { nickname: 'ada' },
        credential_id: (credential.body as { id: string }).id,
      },
    });
    expect(job.status).toBe(200);
    const jobId = String((job.body as { job_id: string }).job_id);

    await until(() => site.hits.includes('GET /mail-code'), 'the mailed-code page', 60_000);
    // An older mail with another code must not be taken: only mail since the wait began counts.
    google.gmail.add({
      id: 'old',
      receivedAt: new Date(Date.now() - 3_600_000),
      subject: 'Old code',
      plain: 'Your verification code is 111111',
    });
    google.gmail.add({
      id: 'new',
      receivedAt: new Date(),
      subject: 'Your Mail bank code',
      plain: `Hi Ada,\n\nYour verification code is ${MAIL_CODE}.\n\n${MAIL_MARKER}`,
    });
    const done = await waitForJob(svc, 'mailbank', jobId, ['completed', 'failed'], 60_000);
    expect(done.status, String(done.error)).toBe('completed');
    expect(typed).toEqual({ code: MAIL_CODE, nickname: 'ada' });
    expect(google.gmail.requests.some((r) => r.path === '/gmail/v1/users/me/messages/new?format=full')).toBe(true);

    const haystacks: Array<[string, string]> = [
      ['service log', logLines.join('')],
      ['status', JSON.stringify(done)],
    ];
    for (const file of await dataFilesUnder(svc.dataDir))
      haystacks.push([file, (await readFile(file)).toString('latin1')]);
    for (const secret of [MAIL_MARKER, 'google-client-secret-x1', ...google.provider.issuedTokens()]) {
      for (const [where, text] of haystacks)
        expect(text.includes(secret), `${where} holds ${secret.slice(0, 16)}…`).toBe(false);
    }
  });
});
