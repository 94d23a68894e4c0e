import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newId, newSecretToken } from '../../src-main/base/ids.ts';
import { silentLogger } from '../../src-main/base/logger.ts';
import { openStore, type Store } from '../../src-main/store/store.ts';
import type { DeliveryRow } from '../../src-main/store/webhooks.ts';
import { canonicalJson } from '../../src-main/webhooks/canonicalJson.ts';
import { ConflictError, NotFoundError } from '../../src-main/base/errors.ts';
import { WebhookDeliveryService } from '../../src-main/webhooks/webhookDeliveries.ts';
import { WebhookDispatcher, type DispatcherOptions } from '../../src-main/webhooks/webhookDispatcher.ts';
import { WebhookKeyService } from '../../src-main/webhooks/webhookKeys.ts';
import { FakeClock } from '../helpers/fakeClock.ts';
import { memorySecrets } from '../helpers/memorySecrets.ts';
import { startPythonReceiver, type PythonReceiver } from '../helpers/webhookReceiver.ts';

const SECRET = newSecretToken('whsec_');

interface Outbox {
  store: Store;
  clock: FakeClock;
  dispatcher: WebhookDispatcher;
  /** Writes a delivery to `path` on the receiver and pokes the dispatcher, as the emitter does. */
  deliver(path: string): DeliveryRow;
  /** Lets time run timer by timer, each attempt finishing against the real receiver before time moves on. */
  runOut(): Promise<void>;
  /** Start times of the delivery's attempts, in ms after the first. */
  offsets(id: string): number[];
}

/**
 * The real dispatcher on a real SQLite outbox and a real receiver; only time is fake. Time moves
 * only between attempts, so every attempt takes 0 ms of fake time and started_at is exact.
 */
describe('webhook delivery schedule (fake clock, real receiver)', () => {
  let receiver: PythonReceiver;
  const cleanups: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    receiver = await startPythonReceiver(SECRET);
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });
  afterAll(() => receiver.close());

  const outbox = async (options: Partial<DispatcherOptions> = {}): Promise<Outbox> => {
    const dir = await mkdtemp(join(tmpdir(), 'portico-outbox-'));
    const store = openStore(join(dir, 'portico.db'));
    store.principals.createOrg('default');
    store.webhooks.setKey('default', SECRET.slice(0, 12));
    const secrets = memorySecrets({ 'webhook/default': SECRET });
    const clock = new FakeClock();
    const dispatcher = new WebhookDispatcher(store, new WebhookKeyService(store, async () => secrets), silentLogger, {
      userAgent: 'Portico-Webhooks/test',
      clock,
      ...options,
    });
    cleanups.push(async () => {
      await dispatcher.close();
      store.close();
      await rm(dir, { recursive: true, force: true });
    });
    return {
      store,
      clock,
      dispatcher,
      deliver: (path) => {
        const jobId = newId();
        const row = store.webhooks.insertDelivery({
          id: newId(),
          org_id: 'default',
          job_id: jobId,
          event_type: 'completed',
          url: receiver.url(path),
          body: canonicalJson({ job_id: jobId, event_type: 'completed' }),
        });
        dispatcher.poke();
        return row;
      },
      runOut: async () => {
        for (let round = 0; round < 50 && clock.next(); round += 1) await dispatcher.idle();
        expect(clock.pending(), 'timers left after 50 rounds').toEqual([]);
      },
      offsets: (id) => {
        const starts = store.webhooks.attempts(id).map((attempt) => Date.parse(attempt.started_at));
        return starts.map((start) => start - (starts[0] ?? 0));
      },
    };
  };

  it('a failing receiver is retried exactly 1 s, 3 s and 9 s after each failure; after the fourth the delivery is failed with the reason', async () => {
    const { store, deliver, runOut, offsets } = await outbox();
    const path = '/status/503/4/schedule';
    const row = deliver(path);
    await runOut();
    expect(offsets(row.id)).toEqual([0, 1_000, 1_000 + 3_000, 1_000 + 3_000 + 9_000]);
    expect(store.webhooks.attempts(row.id).map((a) => [a.attempt, a.status_code, a.error])).toEqual([
      [1, 503, 'HTTP 503'],
      [2, 503, 'HTTP 503'],
      [3, 503, 'HTTP 503'],
      [4, 503, 'HTTP 503'],
    ]);
    expect(store.webhooks.get(row.id)).toMatchObject({
      status: 'failed',
      attempts: 4,
      last_status_code: 503,
      last_error: 'HTTP 503',
      next_attempt_at: null,
    });
    const hits = await receiver.waitFor(4, path);
    expect(hits.map((hit) => [hit.headers['x-webhook-id'], hit.headers['x-webhook-attempt'], hit.raw_ok])).toEqual(
      ['1', '2', '3', '4'].map((attempt) => [row.id, attempt, true]),
    );
  });

  it('every attempt carries its own time of sending as timestamp, and is signed over that body', async () => {
    const { clock, deliver, runOut } = await outbox({ retryDelaysMs: [1_000, 3_000] });
    const path = '/status/503/3/stamped';
    const start = clock.now().getTime();
    deliver(path);
    await runOut();
    const hits = await receiver.waitFor(3, path);
    // The receiver checked each signature over the body it got (raw_ok); the stamps are the attempts' own times.
    expect(hits.map((hit) => hit.raw_ok)).toEqual([true, true, true]);
    expect(
      hits.map((hit) => Date.parse(String(hit.body.timestamp).replace(/(\.\d{3})\d{3}Z$/, '$1Z')) - start),
    ).toEqual([0, 1_000, 4_000]);
    expect(hits.every((hit) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/.test(String(hit.body.timestamp)))).toBe(true);
  });

  it('a receiver that does not answer within 10 s is a failed attempt, retried 1 s later', async () => {
    const { store, clock, dispatcher, deliver, runOut, offsets } = await outbox();
    const path = '/hang/1/deadline';
    const row = deliver(path);
    clock.next();
    const startedAt = clock.now().getTime();
    // The receiver has the request and holds it (for 12 real seconds); only the fake clock can end the wait.
    await receiver.waitFor(1, path);
    clock.advance(9_999);
    expect(clock.pending(), 'the deadline, still ahead at 9.999 s').toEqual([1]);
    clock.advance(1);
    await dispatcher.idle();
    expect(store.webhooks.attempts(row.id)).toEqual([
      {
        attempt: 1,
        started_at: new Date(startedAt).toISOString(),
        duration_ms: 10_000,
        status_code: null,
        error: 'no answer within 10 s',
      },
    ]);
    expect(store.webhooks.get(row.id)).toMatchObject({
      status: 'pending',
      next_attempt_at: new Date(startedAt + 10_000 + 1_000).toISOString(),
    });
    await runOut();
    expect(offsets(row.id)).toEqual([0, 10_000 + 1_000]);
    expect(store.webhooks.get(row.id)).toMatchObject({
      status: 'succeeded',
      attempts: 2,
      last_status_code: 200,
      last_error: null,
    });
  });

  it('a delivery that succeeds leaves no timer behind: its deadline is cleared', async () => {
    const { store, clock, dispatcher, deliver } = await outbox();
    const row = deliver('/ok/no-timers');
    clock.next();
    await dispatcher.idle();
    // Left: the dispatcher's look at the outbox after the attempt, and nothing else (no 10 s deadline).
    expect(clock.pending()).toEqual([0]);
    clock.next();
    expect(clock.pending()).toEqual([]);
    expect(store.webhooks.get(row.id)).toMatchObject({ status: 'succeeded', attempts: 1 });
  });

  it('a failed delivery queued again keeps its id and gets a fresh set of retries', async () => {
    const { store, dispatcher, deliver, runOut, offsets } = await outbox({ retryDelaysMs: [1_000] });
    const path = '/status/503/3/again';
    const row = deliver(path);
    await runOut();
    expect(store.webhooks.get(row.id)).toMatchObject({ status: 'failed', attempts: 2 });
    // The service behind POST /webhooks/{org}/deliveries/{id}/redeliver.
    const requeued = new WebhookDeliveryService(store, dispatcher).redeliver('default', row.id);
    expect(requeued).toMatchObject({
      id: row.id,
      status: 'pending',
      attempts: 0,
      payload: { event_type: 'completed' },
    });
    await runOut();
    expect(store.webhooks.attempts(row.id).map((a) => [a.attempt, a.status_code])).toEqual([
      [1, 503],
      [2, 503],
      [1, 503],
      [2, 200],
    ]);
    const [third, fourth] = offsets(row.id).slice(2);
    expect(Number(fourth) - Number(third), 'the retry after the redelivery').toBe(1_000);
    expect(store.webhooks.get(row.id)).toMatchObject({ status: 'succeeded', last_status_code: 200 });
    const hits = await receiver.waitFor(4, path);
    expect(new Set(hits.map((hit) => hit.headers['x-webhook-id']))).toEqual(new Set([row.id]));
  });
  it("redelivery refuses a delivery still pending (409), another org's or an unknown one (404), and changes nothing", async () => {
    const { store, clock, dispatcher, deliver } = await outbox();
    store.principals.createOrg('rival');
    const service = new WebhookDeliveryService(store, dispatcher);
    const row = deliver('/ok/pending');
    const before = store.webhooks.get(row.id);
    expect(() => service.redeliver('default', row.id)).toThrow(
      new ConflictError('Delivery is still pending; it will be retried'),
    );
    expect(() => service.redeliver('rival', row.id)).toThrow(new NotFoundError('Delivery not found'));
    expect(() => service.redeliver('default', newId())).toThrow(NotFoundError);
    expect(store.webhooks.get(row.id)).toEqual(before);
    clock.next();
    await dispatcher.idle();
    expect(() => service.redeliver('rival', row.id)).toThrow(NotFoundError);
    expect(store.webhooks.get(row.id)).toMatchObject({ status: 'succeeded', attempts: 1 });
    const listed = service.list('default', { limit: 10, offset: 0 });
    expect(listed.total).toBe(1);
    expect(listed.deliveries[0]).toMatchObject({
      id: row.id,
      status: 'succeeded',
      attempt_log: [{ attempt: 1, status_code: 200, error: null }],
    });
    expect(service.list('rival', { limit: 10, offset: 0 })).toEqual({ deliveries: [], total: 0 });
  });
});
