import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.ts';
import { FakeClock } from '../helpers/fakeClock.ts';
import { jsonOf, startService, type TestService } from '../helpers/service.ts';

const LIMIT = 5;

describe('requests a minute per API key', () => {
  let svc: TestService;
  let otherKey: string;
  const clock = new FakeClock();

  beforeAll(async () => {
    svc = await startService(undefined, { limits: { requestsPerMinute: LIMIT }, clock: clock });
    otherKey = String((await cli(svc.dataDir, ['key', 'create', '--org', 'default'])).json.api_key);
  });
  afterAll(() => svc.dispose());

  it('the request past the limit is 429 with Retry-After and a detail naming the limit; another key is unaffected; the next window is open again', async () => {
    const first = await svc.api('/portals/default');
    expect(first.status).toBe(200);
    // Every counted response says the budget, what is left of it and when it is renewed (seconds).
    expect([
      first.headers.get('x-ratelimit-limit'),
      first.headers.get('x-ratelimit-remaining'),
      first.headers.get('x-ratelimit-reset'),
    ]).toEqual([String(LIMIT), String(LIMIT - 1), '60']);
    for (let i = 1; i < LIMIT; i += 1) expect((await svc.api('/portals/default')).status).toBe(200);
    const refused = await svc.api('/portals/default');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBe(60);
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(await refused.json()).toEqual({
      detail: `Rate limit exceeded: ${LIMIT} requests a minute per API key (requests_per_minute); retry in 60 s, or raise requests_per_minute in settings.json in the data folder and restart`,
    });

    // Another key of the same org has its own budget.
    expect((await svc.api('/portals/default', { key: otherKey })).status).toBe(200);

    // Retry-After counts down on the service's clock; once the minute is over the key is served again.
    clock.advance(45_000);
    const later = await svc.api('/portals/default');
    expect(later.status).toBe(429);
    expect(Number(later.headers.get('retry-after'))).toBe(15);
    clock.advance(15_000);
    expect((await svc.api('/portals/default')).status).toBe(200);
  });

  it('/health is never limited, nor is a request without any credential', async () => {
    for (let i = 0; i < LIMIT * 3; i += 1) {
      expect((await svc.api('/health', { key: null })).status).toBe(200);
      expect((await svc.api('/portals/default', { key: null })).status).toBe(401);
    }
  });

  it('an unknown key spends its own budget and is told 401 until then', async () => {
    const statuses: number[] = [];
    for (let i = 0; i <= LIMIT; i += 1)
      statuses.push((await svc.api('/portals/default', { key: 'pk_not_a_key' })).status);
    expect(statuses).toEqual([...Array(LIMIT).fill(401), 429]);
  });

  it('a key sent as Authorization: Bearer (what MCP clients send) spends the same budget as X-API-Key', async () => {
    clock.advance(60_000);
    for (let i = 0; i < LIMIT; i += 1) expect((await svc.api('/portals/default', { key: otherKey })).status).toBe(200);
    const bearer = await svc.api('/mcp', {
      key: null,
      method: 'POST',
      headers: { authorization: `Bearer ${otherKey}`, accept: 'application/json, text/event-stream' },
      json: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    expect(bearer.status).toBe(429);
    expect(((await bearer.json()) as { detail: string }).detail).toMatch(/^Rate limit exceeded/);
  });

  it('the console token has its own budget, separate from every key', async () => {
    clock.advance(60_000);
    for (let i = 0; i < LIMIT; i += 1)
      expect(
        (await svc.api('/portals/default', { key: null, headers: { 'x-console-token': svc.consoleToken } })).status,
      ).toBe(200);
    const refused = await jsonOf(
      await svc.api('/portals/default', { key: null, headers: { 'x-console-token': svc.consoleToken } }),
    );
    expect(refused.status).toBe(429);
    expect((await svc.api('/portals/default')).status).toBe(200);
  });
});
