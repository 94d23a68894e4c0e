import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { scriptedRegistry } from '../helpers/scriptedAgents.ts';
import { startService, waitForJob, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';

const EXAMPLES = fileURLToPath(new URL('../../docs/examples/', import.meta.url));

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The receiver examples in docs/ verify real deliveries (so the docs cannot rot). */
describe('documented webhook receivers', () => {
  let svc: TestService;
  let pages: PageServer;
  let secret: string;

  beforeAll(async () => {
    pages = await startPageServer({ '/form': '<!doctype html><title>ex</title>' });
    svc = await startService(undefined, { agents: scriptedRegistry });
    secret = String(
      ((await svc.send('createWebhookKey', { params: { org_id: 'default' } })).body as { secret: string }).secret,
    );
  });
  afterAll(async () => {
    await svc.dispose();
    await pages.close();
  });

  it.each([
    ['python3', 'webhook_receiver.py'],
    [process.execPath, 'webhook-receiver.mjs'],
  ])('%s %s accepts a signed delivery and rejects a forged one', async (runtime, file) => {
    const port = await freePort();
    const child = spawn(runtime, [`${EXAMPLES}${file}`], {
      env: { ...process.env, PORT: String(port), PORTICO_WEBHOOK_SECRET: secret },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    try {
      const exited = (): string | undefined =>
        child.exitCode !== null || child.signalCode !== null
          ? `the receiver exited (${child.exitCode ?? child.signalCode}); it printed: ${out}`
          : undefined;
      await until(
        () =>
          fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' }).then(
            () => true,
            () => false,
          ),
        `${file} to listen on port ${port}`,
        { fail: exited },
      );
      const forged = await fetch(`http://127.0.0.1:${port}/hook`, {
        method: 'POST',
        headers: { 'x-webhook-signature': '00'.repeat(32) },
        body: '{"event_type":"completed"}',
      });
      expect(forged.status).toBe(401);
      const name = file.replace(/\W/g, '');
      await svc.request('createPortal', {
        params: { org_id: 'default' },
        body: {
          endpoint_name: name,
          start_url: `${pages.url}/form`,
          task: 'script:visit',
          webhook_url: `http://127.0.0.1:${port}/hook`,
        },
      });
      const jobId = String(
        (
          (
            await svc.send('startJob', {
              params: { org_id: 'default', endpoint_name: name },
              body: { form_data: { note: 'héllo 😀', n: 0.1 } },
            })
          ).body as { job_id: string }
        ).job_id,
      );
      await waitForJob(svc, name, jobId, ['completed']);
      await until(() => out.includes(jobId), `${file} to print the delivery of job ${jobId}`, { fail: exited });
      expect(out).toContain(`completed ${jobId} completed`);
      const [delivery] = (
        (await svc.send('listDeliveries', { params: { org_id: 'default' }, query: { job_id: jobId } })).body as {
          deliveries: { status: string; last_status_code: number }[];
        }
      ).deliveries;
      expect(delivery).toMatchObject({ status: 'succeeded', last_status_code: 204 });
    } finally {
      child.kill('SIGKILL');
    }
  });
});
