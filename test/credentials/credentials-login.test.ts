import { readFile } from 'node:fs/promises';
import { createGuardrails, generateSync } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppOptions } from '../../src-main/app.ts';
import { createLogger, secretEncodings, type Logger } from '../../src-main/base/logger.ts';
import { dataFilesUnder } from '../helpers/files.ts';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { jsonOf, startService, waitForJob, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';

const USER = 'ada@example.com';
const PASSWORD = 'p@ss w0rd/"ü"+=&?';
const SEED = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const SMS_CODE = '482913';

const codeAt = (seconds: number): string =>
  generateSync({ secret: SEED, epoch: seconds, guardrails: createGuardrails({ MIN_SECRET_BYTES: 10 }) });
/** What a site accepts: the code of this 30 s step or the next (the filler moves on when under 5 s remain). */
const validTotp = (code: string): boolean => {
  const now = Math.floor(Date.now() / 1000);
  return [now - 30, now, now + 30].some((t) => codeAt(t) === code);
};

const page = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;
const see = (location: string) => ({ status: 303, headers: { location }, body: '' });

describe('a job with credential_id signs in with the builtin filler: password, TOTP, pushed SMS codes; never leaks them', () => {
  let svc: TestService;
  let site: PageServer;
  let hooks: PageServer;
  const logLines: string[] = [];
  const webhookBodies: string[] = [];
  const typed: Record<string, string> = {};
  let phoneId = '';

  const loginForm = (next: string) =>
    page(
      'Sign in',
      `<h1>Sign in</h1><form method="post" action="${next}">
    <label>Email <input type="email" name="email" autocomplete="username"></label>
    <label>Password <input type="password" name="pw"></label>
    <button type="submit">Sign in</button></form>`,
    );

  beforeAll(async () => {
    site = await startPageServer({
      '/login': (req, body) => {
        if (req.method !== 'POST') return { body: loginForm('/login') };
        const f = new URLSearchParams(body);
        typed.email = f.get('email') ?? '';
        typed.pw = f.get('pw') ?? '';
        return f.get('email') === USER && f.get('pw') === PASSWORD
          ? see('/otp')
          : { body: page('Sign in', '<p>Wrong password</p>') };
      },
      '/otp': (req, body) => {
        if (req.method !== 'POST') {
          return {
            body: page(
              'Two-step verification',
              `<form method="post" action="/otp"><label>Verification code <input name="code" autocomplete="one-time-code" inputmode="numeric" maxlength="6"></label><button type="submit">Verify</button></form>`,
            ),
          };
        }
        typed.totp = new URLSearchParams(body).get('code') ?? '';
        return validTotp(typed.totp) ? see('/account') : { body: page('Two-step verification', '<p>Invalid code</p>') };
      },
      '/sms-login': (req, body) => {
        if (req.method !== 'POST') return { body: loginForm('/sms-login') };
        const f = new URLSearchParams(body);
        return f.get('pw') === PASSWORD ? see('/sms') : { body: page('Sign in', '<p>Wrong password</p>') };
      },
      '/sms': (req, body) => {
        if (req.method !== 'POST') {
          const boxes = Array.from(
            { length: 6 },
            (_, i) =>
              `<input name="d${i}" maxlength="1" inputmode="numeric" aria-label="Digit ${i + 1}" style="width:2em">`,
          ).join('');
          return {
            body: page(
              'Check your phone',
              `<form method="post" action="/sms"><p>We sent a code to your phone</p>${boxes}<button type="submit">Continue</button></form>`,
            ),
          };
        }
        const f = new URLSearchParams(body);
        typed.sms = Array.from({ length: 6 }, (_, i) => f.get(`d${i}`) ?? '').join('');
        return typed.sms === SMS_CODE ? see('/account') : { body: page('Check your phone', '<p>Invalid code</p>') };
      },
      '/id': (req, body) => {
        if (req.method !== 'POST')
          return {
            body: page(
              'Sign in',
              '<form method="post" action="/id"><label>Email or phone <input type="email" name="identifier"></label><button type="submit">Next</button></form>',
            ),
          };
        typed.identifier = new URLSearchParams(body).get('identifier') ?? '';
        return see('/secret');
      },
      '/secret': (req, body) => {
        if (req.method !== 'POST')
          return {
            body: page(
              'Welcome',
              `<form method="post" action="/secret"><p>${USER}</p><label>Enter your password <input type="password" name="secret"></label><button type="submit">Next</button></form>`,
            ),
          };
        typed.secret = new URLSearchParams(body).get('secret') ?? '';
        return see('/verify');
      },
      '/verify': (req, body) => {
        if (req.method !== 'POST')
          return {
            body: page(
              'Verify',
              '<form method="post" action="/verify"><label for="c">Enter the verification code from your app</label><input id="c" name="c" maxlength="6" inputmode="numeric"><button type="submit">Verify</button></form>',
            ),
          };
        typed.verify = new URLSearchParams(body).get('c') ?? '';
        return validTotp(typed.verify) ? see('/account') : { body: page('Verify', '<p>Invalid code</p>') };
      },
      '/account': (req, body) => {
        if (req.method !== 'POST') {
          return {
            body: page(
              'Account',
              `<h1>Your account</h1><form method="post" action="/account"><label>Nickname <input name="nickname"></label><button type="submit">Save</button></form>`,
            ),
          };
        }
        typed.nickname = new URLSearchParams(body).get('nickname') ?? '';
        return { body: page('Saved', '<h1>Saved</h1><p>Your changes were saved. Reference ACC-42</p>') };
      },
    });
    hooks = await startPageServer({
      '/hook': (_req, body) => {
        webhookBodies.push(body);
        return { body: 'ok' };
      },
    });
    // startApp takes a logger beside its options; every line the service logs is kept for the leak search.
    const options: Partial<AppOptions> & { logger: Logger } = {
      logger: createLogger('debug', (line) => void logLines.push(line)),
    };
    svc = await startService(undefined, options);
    expect((await svc.request('createWebhookKey', { params: { org_id: 'default' } })).status).toBe(200);
    const schema = { type: 'object', properties: { nickname: { type: 'string' } } };
    for (const [endpoint_name, path] of [
      ['bank', '/login'],
      ['sms', '/sms-login'],
      ['stepwise', '/id'],
    ] as const) {
      const made = await svc.request('createPortal', {
        params: { org_id: 'default' },
        body: {
          endpoint_name,
          start_url: `${site.url}${path}`,
          task: 'Sign in and set the nickname',
          form_schema: schema,
          webhook_url: `${hooks.url}/hook`,
        },
      });
      expect(made.status).toBe(200);
    }
    phoneId = String(
      (
        (await svc.send('createPhoneNumber', { body: { phone_number: '+15550001111' } }, { key: svc.accountKey }))
          .body as { id: string }
      ).id,
    );
  });
  afterAll(async () => {
    await svc?.dispose();
    await site?.close();
    await hooks?.close();
  });

  const credential = async (json: Record<string, unknown>): Promise<string> => {
    const made = await svc.send('createCredential', { body: json }, { key: svc.accountKey });
    expect(made.status).toBe(200);
    return String((made.body as { id: string }).id);
  };
  const start = (endpoint: string, json: Record<string, unknown>) =>
    svc.request('startJob', {
      params: { org_id: 'default', endpoint_name: endpoint },
      body: { orchestrator_model: 'builtin:autofill', form_data: { nickname: 'ada' }, ...json },
    });

  it('username + password, then a TOTP page: signed in, the form behind it filled; no secret in logs, events, results, webhooks or the data folder', async () => {
    const id = await credential({
      service_name: 'Bank',
      username_or_email: USER,
      password: PASSWORD,
      totp_secret: SEED,
      service_url: `${site.url}/login`,
    });
    const started = await jsonOf(await start('bank', { credential_id: id }));
    expect(started.status).toBe(200);
    const jobId = String((started.body as { job_id: string }).job_id);
    const done = await waitForJob(svc, 'bank', jobId, ['completed', 'failed'], 60_000);
    expect(done.status, String(done.error)).toBe('completed');
    expect(typed).toMatchObject({ email: USER, pw: PASSWORD, nickname: 'ada' });
    expect(validTotp(typed.totp ?? '')).toBe(true);
    await until(() => webhookBodies.some((b) => b.includes(jobId)), 'the completed webhook');

    const secrets = [PASSWORD, SEED, typed.totp ?? ''];
    const haystacks: Array<[string, string]> = [
      ['service log', logLines.join('')],
      ['webhooks', webhookBodies.join('\n')],
      ['status', JSON.stringify(done)],
    ];
    for (const file of await dataFilesUnder(svc.dataDir))
      haystacks.push([file, (await readFile(file)).toString('latin1')]);
    for (const secret of secrets) {
      for (const form of secretEncodings(secret)) {
        for (const [where, text] of haystacks) expect(text.includes(form), `${where} holds ${form}`).toBe(false);
      }
    }
    // The search covered the database itself.
    expect(haystacks.some(([where]) => where.endsWith('portico.db'))).toBe(true);
  });

  it('a code by SMS: pushed as a whole message with POST /public/verification-codes, read and typed into split digit boxes', async () => {
    const id = await credential({
      service_name: 'Phone bank',
      username_or_email: USER,
      password: PASSWORD,
      phone_number_id: phoneId,
    });
    const started = await jsonOf(await start('sms', { credential_id: id }));
    const jobId = String((started.body as { job_id: string }).job_id);
    await until(() => site.hits.includes('GET /sms'), 'the SMS code page');
    const pushed = await svc.send(
      'pushVerificationCode',
      { body: { phone_number_id: phoneId, message: `Your Phone bank code is ${SMS_CODE}. Do not share it.` } },
      { key: svc.accountKey },
    );
    expect(pushed).toMatchObject({ status: 200, body: { accepted: true } });
    const done = await waitForJob(svc, 'sms', jobId, ['completed', 'failed'], 60_000);
    expect(done.status, String(done.error)).toBe('completed');
    expect(typed.sms).toBe(SMS_CODE);
    expect(logLines.join('')).not.toContain(SMS_CODE);
  });

  it('username and password on separate pages, then a code page known only by its "verification code" label', async () => {
    const id = await credential({
      service_name: 'Stepwise',
      username_or_email: USER,
      password: PASSWORD,
      totp_secret: SEED,
    });
    const jobId = String(
      ((await jsonOf(await start('stepwise', { credential_id: id }))).body as { job_id: string }).job_id,
    );
    const done = await waitForJob(svc, 'stepwise', jobId, ['completed', 'failed'], 60_000);
    expect(done.status, String(done.error)).toBe('completed');
    expect(typed).toMatchObject({ identifier: USER, secret: PASSWORD, nickname: 'ada' });
    expect(validTotp(typed.verify ?? '')).toBe(true);
  });

  it('verification-codes: bad input is 4xx with detail; an unknown credential is 404', async () => {
    const res = async (json: unknown) =>
      await svc.send('pushVerificationCode', { body: json }, { key: svc.accountKey });
    expect(await res({ code: '123456' })).toMatchObject({
      status: 422,
      body: { detail: expect.stringContaining('credential_id, phone_number_id or email') },
    });
    expect(await res({ phone_number_id: phoneId })).toMatchObject({
      status: 422,
      body: { detail: expect.stringContaining('send a code or a message') },
    });
    expect(await res({ phone_number_id: phoneId, message: 'no digits here' })).toMatchObject({
      status: 422,
      body: { detail: 'body.message: no 4 to 8 digit code found in the message' },
    });
    expect(await res({ credential_id: '00000000-0000-4000-8000-000000000000', code: '123456' })).toEqual({
      status: 404,
      body: { detail: 'Credential not found' },
    });
    expect((await res({ phone_number_id: phoneId, message: 'x'.repeat(9000) })).status).toBe(422);
    expect((await res({ phone_number_id: phoneId, code: '../../etc' })).status).toBe(422);
  });

  it("credential_id of another organization's workspace, or unknown, is 404 Credential not found and queues nothing", async () => {
    const before = (
      (await svc.send('listJobs', { params: { org_id: 'default' } })).body as { total?: number } | undefined
    )?.total;
    const start404 = await jsonOf(await start('bank', { credential_id: '00000000-0000-4000-8000-000000000000' }));
    expect(start404).toEqual({ status: 404, body: { detail: 'Credential not found' } });
    const after = (
      (await svc.send('listJobs', { params: { org_id: 'default' } })).body as { total?: number } | undefined
    )?.total;
    expect(after).toBe(before);
  });

  it('a login form in a cross-origin iframe is refused: nothing typed there, the job fails saying why', async () => {
    const innerHits: string[] = [];
    const inner = await startPageServer({
      '/inner': (req) => {
        innerHits.push(req.method ?? 'GET');
        return { body: loginForm('/inner') };
      },
    });
    const outer = await startPageServer({
      '/outer': page('Outer', `<h1>Outer</h1><iframe src="${inner.url}/inner" width="600" height="400"></iframe>`),
    });
    try {
      await svc.request('createPortal', {
        params: { org_id: 'default' },
        body: {
          endpoint_name: 'framed2',
          start_url: `${outer.url}/outer`,
          task: 'Sign in',
          form_schema: { type: 'object', properties: { nickname: { type: 'string' } } },
        },
      });
      const id = await credential({
        service_name: 'Outer site',
        username_or_email: USER,
        password: PASSWORD,
        service_url: `${outer.url}/`,
      });
      const jobId = String(
        ((await jsonOf(await start('framed2', { credential_id: id }))).body as { job_id: string }).job_id,
      );
      const done = await waitForJob(svc, 'framed2', jobId, ['completed', 'failed'], 60_000);
      expect(done.status).toBe('failed');
      expect(String(done.error)).toContain(`belongs to ${outer.url}`);
      expect(innerHits).not.toContain('POST');
    } finally {
      await outer.close();
      await inner.close();
    }
  });
});
