import { spawn, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.ts';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { scriptedRegistry } from '../helpers/scriptedAgents.ts';
import { makeDataDir, startService, waitForJob, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';
import { startPythonReceiver, type PythonReceiver } from '../helpers/webhookReceiver.ts';

const SERVE = fileURLToPath(new URL('../../src-main/serve.ts', import.meta.url));

/** Starts the real headless host as a child process and resolves its URL and first-start keys. */
function serve(dataDir: string): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
  const child = spawn(process.execPath, [SERVE, '--port', '0', '--data-dir', dataDir], {
    env: { ...process.env, PORTICO_HEADLESS: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve, reject) => {
    let stdout = '';
    child.stdout?.on('data', (c: Buffer) => {
      stdout += c.toString();
      const url = /listening on (\S+)\n/.exec(stdout)?.[1];
      if (url) resolve({ child, url, stderr: () => stderr });
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
  });
}

// The exact schedule and the 10 s deadline are tested on a fake clock (delivery-schedule.test.ts);
// here the real host proves the wiring: a retry that comes due while it is down is sent after it restarts.
describe('webhook delivery: redelivery and restarts', () => {
  let pages: PageServer;
  let svc: TestService;
  let receiver: PythonReceiver;

  beforeAll(async () => {
    pages = await startPageServer({
      '/form':
        '<!doctype html><title>Hook form</title><form action="/done" method="post"><label for="n">Name</label><input id="n" name="name"><button>Submit</button></form>',
      '/done':
        '<!doctype html><title>Done</title><h1>Application complete</h1><p>Thank you, your reference is ABC-123</p>',
    });
    // No retries: a failing receiver fails the delivery at once, so redelivery needs no waiting.
    svc = await startService(undefined, { agents: scriptedRegistry, webhookTiming: { retryDelaysMs: [] } });
    const secret = String(
      ((await svc.send('createWebhookKey', { params: { org_id: 'default' } })).body as { secret: string }).secret,
    );
    receiver = await startPythonReceiver(secret);
  });
  afterAll(async () => {
    await svc.dispose();
    await pages.close();
    receiver.close();
  });

  const deliveryOf = async (jobId: string) =>
    (
      (await svc.send('listDeliveries', { params: { org_id: 'default' }, query: { job_id: jobId } })).body as {
        deliveries: Record<string, unknown>[];
      }
    ).deliveries[0];

  it('redeliver sends a failed delivery again under the same id, counting attempts afresh', async () => {
    const path = '/status/503/1';
    await svc.request('createPortal', {
      params: { org_id: 'default' },
      body: {
        endpoint_name: 'again',
        start_url: `${pages.url}/form`,
        task: 'script:visit',
        webhook_url: receiver.url(path),
      },
    });
    const jobId = String(
      (
        (await svc.send('startJob', { params: { org_id: 'default', endpoint_name: 'again' }, body: { form_data: {} } }))
          .body as { job_id: string }
      ).job_id,
    );
    await waitForJob(svc, 'again', jobId, ['completed']);
    const failed = await until(async () => {
      const delivery = await deliveryOf(jobId);
      return delivery?.status === 'failed' ? delivery : undefined;
    }, 'the delivery to fail');
    expect(failed).toMatchObject({ attempts: 1, last_status_code: 503, last_error: 'HTTP 503' });
    const again = await svc.send('redeliver', { params: { org_id: 'default', delivery_id: String(failed.id) } });
    expect(again).toMatchObject({ status: 200, body: { id: failed.id, status: 'pending', attempts: 0 } });
    const hits = await receiver.waitFor(2, path);
    expect(hits[1]).toMatchObject({ answered: 200, raw_ok: true });
    expect(hits[1]?.headers['x-webhook-id']).toBe(failed.id);
    const delivered = await until(async () => {
      const delivery = await deliveryOf(jobId);
      return delivery?.status === 'succeeded' ? delivery : undefined;
    }, 'the redelivery to succeed');
    expect(delivered.attempt_log).toHaveLength(2);
  });

  it('a service killed between retries delivers after it restarts, with the same delivery id', async () => {
    const dataDir = await makeDataDir();
    try {
      const first = await serve(dataDir);
      const orgKey = /Organization API key[^:]*:\s+(\S+)/.exec(first.stderr())?.[1] ?? '';
      const api = (url: string, path: string, body?: unknown) =>
        fetch(`${url}${path}`, {
          method: body ? 'POST' : 'GET',
          headers: { 'x-api-key': orgKey, 'content-type': 'application/json' },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
      const keyOut = await cli(dataDir, ['webhook-key', 'generate', '--org', 'default']);
      expect(keyOut.code).toBe(0);
      const own = await startPythonReceiver(String(keyOut.json.secret));
      try {
        await api(first.url, '/portals/default', {
          endpoint_name: 'crash',
          start_url: `${pages.url}/form`,
          task: 'Submit the form',
          webhook_url: own.url('/status/500/1'),
        });
        const { job_id: jobId } = (await (
          await api(first.url, '/jobs/default/crash/start', { form_data: { name: 'Ada' } })
        ).json()) as { job_id: string };
        await own.waitFor(1, '/status/500/1', 30_000);
        // Kill once the failed first attempt is on record and its retry (due in 1 s) is pending.
        const deliveries = async (url: string) =>
          (
            (await (await api(url, `/webhooks/default/deliveries?job_id=${jobId}`)).json()) as {
              deliveries: { attempts: number; status: string }[];
            }
          ).deliveries;
        await until(
          async () => {
            const [delivery] = await deliveries(first.url);
            return delivery?.attempts === 1 && delivery.status === 'pending';
          },
          'the first attempt on record with its retry pending',
          {
            fail: async () =>
              ((await deliveries(first.url))[0]?.attempts ?? 0) > 1 ? 'the retry was already sent' : undefined,
          },
        );
        const exited = new Promise((r) => first.child.once('exit', r));
        first.child.kill('SIGKILL');
        await exited;
        expect(own.received).toHaveLength(1);
        const second = await serve(dataDir);
        try {
          const hits = await own.waitFor(2, '/status/500/1', 15_000);
          expect(hits[1]).toMatchObject({ answered: 200, raw_ok: true, reserialized_ok: true });
          expect(hits[1]?.headers['x-webhook-id']).toBe(hits[0]?.headers['x-webhook-id']);
          expect(hits[1]?.headers['x-webhook-attempt']).toBe('2');
          expect(hits[1]?.body).toMatchObject({ job_id: jobId, event_type: 'completed', status: 'completed' });
          // Once the restarted service has the delivery as succeeded, the receiver has exactly two attempts:
          // the killed service sent nothing after its first (a retry it had under way would have arrived first).
          await until(
            async () => (await deliveries(second.url))[0]?.status === 'succeeded',
            'the restarted service to record the delivery as succeeded',
          );
          expect(own.received.map((hit) => hit.headers['x-webhook-attempt'])).toEqual(['1', '2']);
        } finally {
          second.child.kill('SIGTERM');
          await new Promise((r) => second.child.once('exit', r));
        }
      } finally {
        own.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
