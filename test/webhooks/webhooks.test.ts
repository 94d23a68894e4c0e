import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { scriptedRegistry } from '../helpers/scriptedAgents.ts';
import { startService, testConfig, waitForJob, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';
import { startPythonReceiver, type PythonReceiver } from '../helpers/webhookReceiver.ts';

const TRICKY = {
  text: 'Grüße aus Köln — 東京 · مرحبا · Ελληνικά · हिन्दी · 😀👩‍👩‍👧‍👦🏳️‍🌈 "quoted" \\ back\nline',
  ints: [0, -1, 42, 2 ** 31, 2 ** 53, 1e21, -(2 ** 63)],
  // biome-ignore lint/suspicious/noApproximativeNumericConstant: literal floats are the payload under test, not π
  floats: [0.1, -2.5, 1e-5, 1.5e-7, 3.141592653589793, 2 / 3, 1234567.891, 6.02214076e23, 5e-324],
  nested: { ä: { z: [{ b: 1, a: 2 }], a: null, t: true }, 𐀀: 'astral key', '\uffff': 'bmp key' },
};

describe('webhooks (§6, local-service §4)', () => {
  let svc: TestService;
  let pages: PageServer;
  let receiver: PythonReceiver;
  let secret: string;

  const portal = (name: string, script: string, path: string | null) =>
    svc.request('createPortal', {
      params: { org_id: 'default' },
      body: {
        endpoint_name: name,
        start_url: `${pages.url}/form`,
        task: `script:${script}`,
        webhook_url: path === null ? null : receiver.url(path),
      },
    });
  const start = async (name: string, body: Record<string, unknown> = { form_data: {} }) =>
    String(
      (
        (await svc.send('startJob', { params: { org_id: 'default', endpoint_name: name }, body })).body as {
          job_id: string;
        }
      ).job_id,
    );
  const deliveries = async (jobId: string) =>
    (
      (await svc.send('listDeliveries', { params: { org_id: 'default' }, query: { job_id: jobId } })).body as {
        deliveries: Record<string, unknown>[];
      }
    ).deliveries;

  beforeAll(async () => {
    pages = await startPageServer({ '/form': '<!doctype html><title>Hook form</title><input id="colour">' });
    svc = await startService(undefined, {
      agents: scriptedRegistry,
      webhookTiming: { retryDelaysMs: [1000, 3000, 9000] },
    });
    const key = await svc.send('createWebhookKey', { params: { org_id: 'default' } });
    expect(key.status).toBe(200);
    secret = String((key.body as { secret: string }).secret);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    receiver = await startPythonReceiver(secret);
  });
  afterAll(async () => {
    await svc.dispose();
    await pages.close();
    receiver.close();
  });

  it('a completed job sends one signed webhook that verifies in Python byte for byte and after re-serialization', async () => {
    await portal('done', 'visit', '/ok/done');
    const jobId = await start('done', { form_data: TRICKY });
    const status = await waitForJob(svc, 'done', jobId, ['completed']);
    const [hook] = await receiver.waitFor(1, '/ok/done');
    expect(hook).toMatchObject({ raw_ok: true, reserialized_ok: true, same_bytes: true });
    expect(hook?.headers).toMatchObject({
      'content-type': 'application/json',
      'x-webhook-event': 'completed',
      'x-webhook-attempt': '1',
    });
    expect(hook?.headers['user-agent']).toMatch(/^Portico-Webhooks\//);
    expect(hook?.headers['x-webhook-id']).toMatch(/^[0-9a-f-]{36}$/);
    const { event_type, timestamp, ...rest } = hook!.body as Record<string, unknown>;
    expect(event_type).toBe('completed');
    expect(String(timestamp)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(rest).toEqual({ ...status, updated_at: rest.updated_at, events: rest.events });
    expect((rest.result as { echo: unknown }).echo).toEqual(JSON.parse(JSON.stringify(TRICKY)));
    // Received and answered 200: once the delivery is recorded as succeeded it is final, and was sent once.
    const [delivery] = await until(
      async () => {
        const rows = await deliveries(jobId);
        return rows[0]?.status === 'succeeded' ? rows : undefined;
      },
      'the delivery to be recorded as succeeded',
      30_000,
    );
    expect(receiver.received.filter((r) => r.path === '/ok/done')).toHaveLength(1);
    expect(delivery).toMatchObject({
      status: 'succeeded',
      attempts: 1,
      event_type: 'completed',
      last_status_code: 200,
      last_error: null,
      id: hook?.headers['x-webhook-id'],
    });
  });

  it('a question webhook comes first, with browser_url and the question; answering it leads to the completed webhook', async () => {
    await portal('asks', 'ask', '/ok/asks');
    const jobId = await start('asks', { form_data: {}, human_in_the_loop: true });
    const [question] = await receiver.waitFor(1, '/ok/asks');
    const body = question?.body as Record<string, unknown> & { question: { question_id: string } };
    expect(question).toMatchObject({ raw_ok: true, reserialized_ok: true });
    expect(body).toMatchObject({
      event_type: 'question',
      status: 'waiting_for_input',
      job_id: jobId,
      question: { question: 'Which colour?', options: ['red', 'green'], message: "form_data has no key 'colour'" },
    });
    expect(String(body.browser_url)).toContain('/live/');
    const answer = await svc.request('answerJob', {
      params: { org_id: 'default', endpoint_name: 'asks' },
      query: { job_id: jobId },
      body: { question_id: body.question.question_id, answer: 'red' },
    });
    expect(answer.status).toBe(200);
    const both = await receiver.waitFor(2, '/ok/asks');
    expect(both.map((r) => r.body.event_type)).toEqual(['question', 'completed']);
    expect(both[1]?.body).toMatchObject({ status: 'completed', result: { colour: 'red' } });
  });

  it("a job's events arrive in order even while the first one is being retried", async () => {
    await portal('ordered', 'ask', '/status/500/1');
    const jobId = await start('ordered', { form_data: {}, human_in_the_loop: true });
    const [first] = await receiver.waitFor(1, '/status/500/1');
    const questionId = (first!.body.question as { question_id: string }).question_id;
    await svc.request('answerJob', {
      params: { org_id: 'default', endpoint_name: 'ordered' },
      query: { job_id: jobId },
      body: { question_id: questionId, answer: 'green' },
    });
    await waitForJob(svc, 'ordered', jobId, ['completed']);
    const hits = await receiver.waitFor(3, '/status/500/1', 15_000);
    expect(hits.map((h) => [h.body.event_type, h.answered])).toEqual([
      ['question', 500],
      ['question', 200],
      ['completed', 200],
    ]);
  });

  it('a failed job sends an error webhook with status failed and the error', async () => {
    await portal('fails', 'fail', '/ok/fails');
    const jobId = await start('fails');
    const [hook] = await receiver.waitFor(1, '/ok/fails');
    expect(hook?.body).toMatchObject({
      event_type: 'error',
      status: 'failed',
      job_id: jobId,
      error: "No control on the page matches form_data key 'passport_number'",
    });
  });

  // The exact schedule is tested on a fake clock (delivery-schedule.test.ts); this proves the running
  // service waits on real timers. Lower bounds only: a loaded machine may be late, never early.
  it('a receiver that fails is retried, no sooner than 1 s and then 3 s, with the same delivery id, and every attempt is recorded', async () => {
    await portal('retry', 'visit', '/status/500/2');
    const jobId = await start('retry');
    await waitForJob(svc, 'retry', jobId, ['completed']);
    const hits = await receiver.waitFor(3, '/status/500/2', 20_000);
    expect(hits.map((h) => h.answered)).toEqual([500, 500, 200]);
    expect(new Set(hits.map((h) => h.headers['x-webhook-id'])).size).toBe(1);
    expect(hits.map((h) => h.headers['x-webhook-attempt'])).toEqual(['1', '2', '3']);
    const gaps = [Number(hits[1]?.at) - Number(hits[0]?.at), Number(hits[2]?.at) - Number(hits[1]?.at)];
    expect(gaps[0]).toBeGreaterThan(0.9);
    expect(gaps[1]).toBeGreaterThan(2.9);
    const delivery = await until(async () => {
      const [first] = await deliveries(jobId);
      return first?.status === 'pending' ? undefined : first;
    }, 'the delivery to settle');
    expect(delivery).toMatchObject({ status: 'succeeded', attempts: 3, last_status_code: 200 });
    expect(
      (delivery!.attempt_log as { status_code: number; error: string | null }[]).map((a) => [a.status_code, a.error]),
    ).toEqual([
      [500, 'HTTP 500'],
      [500, 'HTTP 500'],
      [200, null],
    ]);
  });

  it('without a webhook_url nothing is sent', async () => {
    await portal('silent', 'visit', null);
    const jobId = await start('silent');
    // A delivery row is written in the status change's own transaction (webhooks/webhookEmitter.ts): none now, none ever.
    await waitForJob(svc, 'silent', jobId, ['completed']);
    expect(await deliveries(jobId)).toEqual([]);
  });

  it('without a signing key nothing is sent; generating again rotates the key', async () => {
    expect(await svc.send('revokeWebhookKey', { params: { org_id: 'default' } })).toEqual({
      status: 200,
      body: { revoked: true },
    });
    expect((await svc.send('getWebhookKey', { params: { org_id: 'default' } })).body).toEqual({
      org_id: 'default',
      configured: false,
      prefix: null,
      created_at: null,
    });
    await portal('nokey', 'visit', '/ok/nokey');
    const jobId = await start('nokey');
    // No delivery row came with the completed status, so nothing is ever sent for it.
    await waitForJob(svc, 'nokey', jobId, ['completed']);
    expect(receiver.received.filter((r) => r.path === '/ok/nokey')).toEqual([]);
    expect(await deliveries(jobId)).toEqual([]);
    expect((await svc.send('revokeWebhookKey', { params: { org_id: 'default' } })).status).toBe(409);
    const rotated = (await svc.send('createWebhookKey', { params: { org_id: 'default' } })).body as { secret: string };
    expect(rotated.secret).not.toBe(secret);
    const again = (await svc.send('createWebhookKey', { params: { org_id: 'default' } })).body as { secret: string };
    expect(again.secret).not.toBe(rotated.secret);
    // The receiver still verifies with the first secret: re-issue that one for the tests after this.
    const { openAppSecrets } = await import('../../src-main/secrets/index.ts');
    const { openStore } = await import('../../src-main/store/store.ts');
    const store = openStore(`${svc.dataDir}/portico.db`);
    await (await openAppSecrets(svc.dataDir, store.meta.installId(), testConfig())).set('webhook/default', secret);
    store.close();
  });

  it("another org's key can neither read deliveries nor touch the signing key", async () => {
    const { cli } = await import('../helpers/cli.ts');
    const rival = String((await cli(svc.dataDir, ['org', 'create', 'hookrival'])).json.api_key);
    for (const [method, path] of [
      ['GET', '/webhooks/default/deliveries'],
      ['POST', '/webhooks/default/key'],
      ['DELETE', '/webhooks/default/key'],
      ['GET', '/webhooks/default/key'],
    ] as const) {
      expect((await svc.api(path, { method, key: rival })).status, `${method} ${path}`).toBe(403);
    }
  });
});
