import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODE_WAIT_MS } from '../../src-main/engine/credentials/codeWaiter.ts';
import { FakeClock } from '../helpers/fakeClock.ts';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { startService, waitForJob, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';

const PASSWORD = 'sms-only-pass-5';
const CODE = '604182';

const page = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;

describe('a job whose SMS code never arrives asks for it after 60 s on the service clock (fake clock, real Chromium)', () => {
  let svc: TestService;
  let site: PageServer;
  const clock = new FakeClock();
  const codes: string[] = [];
  let credentialId = '';

  beforeAll(async () => {
    site = await startPageServer({
      '/login': (req, body) => {
        if (req.method !== 'POST')
          return {
            body: page(
              'Sign in',
              '<form method="post" action="/login"><label>Username <input name="u" autocomplete="username"></label><label>Password <input type="password" name="p"></label><button type="submit">Sign in</button></form>',
            ),
          };
        return new URLSearchParams(body).get('p') === PASSWORD
          ? { status: 303, headers: { location: '/code' }, body: '' }
          : { body: page('Sign in', 'wrong') };
      },
      '/code': (req, body) => {
        if (req.method !== 'POST')
          return {
            body: page(
              'Code',
              '<form method="post" action="/code"><label>We texted you a verification code <input name="code" autocomplete="one-time-code"></label><button type="submit">Verify</button></form>',
            ),
          };
        const code = new URLSearchParams(body).get('code') ?? '';
        codes.push(code);
        return code === CODE ? { body: page('Home', '<h1>Signed in</h1>') } : { body: page('Code', 'Invalid code') };
      },
    });
    svc = await startService(undefined, { clock: clock });
    expect(
      (
        await svc.request('createPortal', {
          params: { org_id: 'default' },
          body: { endpoint_name: 'texted', start_url: `${site.url}/login`, task: 'Sign in' },
        })
      ).status,
    ).toBe(200);
    const phone = (
      await svc.send('createPhoneNumber', { body: { phone_number: '+15550003333' } }, { key: svc.accountKey })
    ).body as { id: string };
    credentialId = String(
      (
        (
          await svc.send(
            'createCredential',
            {
              body: { service_name: 'Texted', username_or_email: 'ada', password: PASSWORD, phone_number_id: phone.id },
            },
            { key: svc.accountKey },
          )
        ).body as { id: string }
      ).id,
    );
  });
  afterAll(async () => {
    await svc?.dispose();
    await site?.close();
  });

  const start = async (hitl: boolean): Promise<string> =>
    String(
      (
        (
          await svc.send('startJob', {
            params: { org_id: 'default', endpoint_name: 'texted' },
            body: {
              orchestrator_model: 'builtin:autofill',
              form_data: {},
              credential_id: credentialId,
              human_in_the_loop: hitl,
            },
          })
        ).body as { job_id: string }
      ).job_id,
    );
  /** The job has started its 60 s wait for a code on the fake clock. */
  const waiting = () => until(() => clock.pending().includes(CODE_WAIT_MS), 'the job to wait for a code', 60_000);

  it('with human_in_the_loop: no question before 60 s; then waiting_for_input asking for the code; the answer is typed and never stored', async () => {
    const jobId = await start(true);
    await waiting();
    clock.advance(CODE_WAIT_MS - 1);
    expect(
      (
        await svc.send('getJobStatus', {
          params: { org_id: 'default', endpoint_name: 'texted' },
          query: { job_id: jobId },
        })
      ).body,
    ).toMatchObject({ status: 'running' });
    clock.advance(1);
    const asked = await waitForJob(svc, 'texted', jobId, ['waiting_for_input', 'failed']);
    expect(asked.status).toBe('waiting_for_input');
    const question = (asked.events as Array<{ type: string; data: Record<string, unknown> }>).find(
      (e) => e.type === 'question',
    )?.data;
    expect(question).toMatchObject({
      question: 'Enter the verification code sent for Texted',
      options: [],
      message: expect.stringContaining('within 60 s'),
    });
    const answered = await svc.send('answerJob', {
      params: { org_id: 'default', endpoint_name: 'texted' },
      query: { job_id: jobId },
      body: { question_id: question?.question_id, answer: CODE },
    });
    expect(answered.status).toBe(200);
    const done = await waitForJob(svc, 'texted', jobId, ['completed', 'failed']);
    expect(done.status, String(done.error)).toBe('completed');
    expect(codes.at(-1)).toBe(CODE);
    expect(
      (done.events as Array<{ type: string; data: Record<string, unknown> }>).find((e) => e.type === 'answer')?.data,
    ).toMatchObject({ answer: '[redacted]' });
    expect(JSON.stringify(done)).not.toContain(CODE);
    for (const file of (await readdir(svc.dataDir)).filter((name) => name.startsWith('portico.db'))) {
      expect((await readFile(join(svc.dataDir, file))).includes(Buffer.from(CODE)), file).toBe(false);
    }
  });

  it('a code pushed while it waits is typed at once, with no question', async () => {
    const jobId = await start(true);
    await waiting();
    clock.advance(30_000);
    const pushed = await svc.send(
      'pushVerificationCode',
      { body: { credential_id: credentialId, code: CODE } },
      { key: svc.accountKey },
    );
    expect(pushed).toEqual({ status: 200, body: { accepted: true, delivered_to_jobs: 1 } });
    const done = await waitForJob(svc, 'texted', jobId, ['completed', 'failed', 'waiting_for_input']);
    expect(done.status, String(done.error)).toBe('completed');
    expect((done.events as Array<{ type: string }>).some((e) => e.type === 'question')).toBe(false);
  });

  it('without human_in_the_loop the job fails after 60 s saying no code arrived and nobody could be asked', async () => {
    const jobId = await start(false);
    await waiting();
    clock.advance(CODE_WAIT_MS);
    const done = await waitForJob(svc, 'texted', jobId, ['completed', 'failed']);
    expect(done).toMatchObject({ status: 'failed' });
    expect(String(done.error)).toBe(
      "No verification code for 'Texted' arrived within 60 s (push one with POST /public/verification-codes); human_in_the_loop is off, so nobody could be asked",
    );
  });
});
