import { createGuardrails, generateSync } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secretEncodings } from '../../src-main/base/logger.ts';
import { KeychainSecretStore, scopedSecretStore } from '../../src-main/secrets/index.ts';
import {
  startModelServer,
  type ModelServer,
  type RecordedRequest,
  type ScriptedReply,
} from '../helpers/modelServer.ts';
import { elementIndex, lastTurnText, toolResults } from '../helpers/modelTurns.ts';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { startService, waitForJob, type TestService } from '../helpers/service.ts';
import { setEnv } from '../helpers/env.ts';

const MODEL = 'anthropic:claude-sonnet-4-6';
const PASSWORD = 'Model-Agent-Pass/"9"';
const OTHER_PASSWORD = 'Someone-Elses-Pass-7';
const SEED = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

const loginPage = `<!doctype html><title>Bank login</title><form method="post" action="/login">
  <label>Username <input name="username"></label>
  <label>Password <input name="password" type="password"></label>
  <label>One-time code <input name="otp" inputmode="numeric"></label>
  <button type="submit">Sign in</button></form>`;

const codesAroundNow = (): string[] => {
  const epoch = Math.floor(Date.now() / 1000);
  return [-30, 0, 30].map((d) =>
    generateSync({ secret: SEED, epoch: epoch + d, guardrails: createGuardrails({ MIN_SECRET_BYTES: 10 }) }),
  );
};

describe("the model agent signs in with the job's stored credential (real keychain, scripted model server, real Chromium)", () => {
  let svc: TestService;
  let model: ModelServer;
  let pages: PageServer;
  const posted: URLSearchParams[] = [];

  const credential = async (json: Record<string, unknown>): Promise<string> => {
    const made = await svc.send('createCredential', { body: json }, { key: svc.accountKey });
    expect(made.status).toBe(200);
    return String((made.body as { id: string }).id);
  };
  const runJob = async (credentialId: string) => {
    const started = await svc.send('startJob', {
      params: { org_id: 'default', endpoint_name: 'bank' },
      body: { orchestrator_model: MODEL, replay: false, form_data: {}, credential_id: credentialId },
    });
    expect(started.status).toBe(200);
    return waitForJob(svc, 'bank', (started.body as { job_id: string }).job_id, ['completed', 'failed'], 60_000);
  };
  /** Types the username, the password and a code of the credential the prompt names, then signs in. */
  const signInScript =
    () =>
    (request: RecordedRequest): ScriptedReply => {
      if (lastTurnText(request).includes('Welcome back'))
        return { toolCalls: [{ name: 'done', input: { result: { signed_in: true } } }] };
      const id = /credential_id ([0-9a-f-]{36})/.exec(String(request.body.system))?.[1] ?? 'none';
      return {
        toolCalls: [
          { name: 'type', input: { index: elementIndex(request, 'Username'), text: 'ada' } },
          { name: 'use_credential', input: { index: elementIndex(request, 'Password'), credential_id: id } },
          { name: 'totp_code', input: { index: elementIndex(request, 'One-time code'), credential_id: id } },
          { name: 'click', input: { index: elementIndex(request, 'Sign in') } },
        ],
      };
    };

  let restoreEnv: (() => void) | undefined;
  beforeAll(async () => {
    model = await startModelServer();
    pages = await startPageServer({
      '/login': (req, body) => {
        if (req.method !== 'POST') return { body: loginPage };
        posted.push(new URLSearchParams(body));
        return { body: '<!doctype html><title>Accounts</title><h1>Welcome back</h1>' };
      },
    });
    restoreEnv = setEnv({ PORTICO_ANTHROPIC_BASE_URL: model.anthropicBaseUrl });
    const secrets = scopedSecretStore(new KeychainSecretStore(), `test-model-credentials-${Date.now()}`);
    await secrets.set('provider/anthropic', 'sk-ant-test');
    svc = await startService(undefined, { secrets, llmRetry: { maxRetries: 1, timeoutMs: 10_000 }, jobConcurrency: 1 });
    expect(
      (
        await svc.request('createPortal', {
          params: { org_id: 'default' },
          body: { endpoint_name: 'bank', start_url: `${pages.url}/login`, task: 'Sign in to the bank' },
        })
      ).status,
    ).toBe(200);
  });
  afterAll(async () => {
    await svc?.dispose();
    await model?.close();
    await pages?.close();
    restoreEnv?.();
  });

  it('the prompt names the credential (id, username), the tools type its password and a TOTP code; no model request carries a secret in any encoding', async () => {
    const id = await credential({
      service_name: 'Bank',
      username_or_email: 'ada',
      password: PASSWORD,
      totp_secret: SEED,
      service_url: `${pages.url}/`,
    });
    model.reset(signInScript());
    const job = await runJob(id);
    expect(job).toMatchObject({ status: 'completed', result: { signed_in: true } });
    expect(String(model.requests[0]!.body.system)).toContain(
      `Stored credential for Bank: credential_id ${id}, username ada.`,
    );
    const login = posted.at(-1)!;
    expect(login.get('password')).toBe(PASSWORD);
    const code = login.get('otp') ?? '';
    expect(codesAroundNow()).toContain(code);
    expect(toolResults(model.requests[1]!)).toEqual(
      expect.arrayContaining([
        `typed {{credential:${id}.password}} into [1]`,
        `typed {{credential:${id}.totp}} into [2]`,
      ]),
    );
    for (const secret of [PASSWORD, SEED, code]) {
      for (const form of secretEncodings(secret))
        for (const request of model.requests) expect(request.raw).not.toContain(form);
    }
  });

  it("another credential of the workspace, named by the model, is refused as not the job's: its password is never typed", async () => {
    const mine = await credential({
      service_name: 'Bank',
      username_or_email: 'ada',
      password: PASSWORD,
      totp_secret: SEED,
    });
    const other = await credential({
      service_name: 'Other',
      username_or_email: 'eve',
      password: OTHER_PASSWORD,
      totp_secret: SEED,
    });
    const before = posted.length;
    model.reset((request: RecordedRequest): ScriptedReply => {
      if (toolResults(request).some((r) => r.includes("is not this job's credential")))
        return { toolCalls: [{ name: 'fail', input: { reason: 'that credential is not available' } }] };
      return {
        toolCalls: [
          { name: 'use_credential', input: { index: elementIndex(request, 'Password'), credential_id: other } },
        ],
      };
    });
    const job = await runJob(mine);
    expect(job).toMatchObject({ status: 'failed', error: 'that credential is not available' });
    expect(toolResults(model.requests[1]!)).toEqual([
      `credential '${other}' is not this job's credential: this job may use only credential_id ${mine}`,
    ]);
    expect(posted.length).toBe(before);
    for (const request of model.requests) expect(request.raw).not.toContain(OTHER_PASSWORD);
  });

  it('a credential for another site is never typed into this one: the job fails saying whose site it is', async () => {
    const foreign = await credential({
      service_name: 'Elsewhere',
      username_or_email: 'ada',
      password: OTHER_PASSWORD,
      service_url: 'https://elsewhere.example/',
    });
    const before = posted.length;
    model.reset(signInScript());
    const job = await runJob(foreign);
    expect(job.status).toBe('failed');
    expect(String(job.error)).toContain('belongs to https://elsewhere.example');
    expect(posted.length).toBe(before);
  });

  it("a {{credential:…}} placeholder in the type tool obeys the same site rule: never typed into another site's page", async () => {
    const foreign = await credential({
      service_name: 'Elsewhere',
      username_or_email: 'ada',
      password: OTHER_PASSWORD,
      service_url: 'https://elsewhere.example/',
    });
    const before = posted.length;
    model.reset(
      (request: RecordedRequest): ScriptedReply => ({
        toolCalls: [
          {
            name: 'type',
            input: { index: elementIndex(request, 'Password'), text: `{{credential:${foreign}.password}}` },
          },
          { name: 'click', input: { index: elementIndex(request, 'Sign in') } },
        ],
      }),
    );
    const job = await runJob(foreign);
    expect(job.status).toBe('failed');
    expect(String(job.error)).toContain('refused to type the credential for Elsewhere');
    expect(String(job.error)).toContain('belongs to https://elsewhere.example');
    expect(posted.length).toBe(before);
    for (const request of model.requests) expect(request.raw).not.toContain(OTHER_PASSWORD);
  });
});
