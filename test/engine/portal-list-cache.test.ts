// tier: unit
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deepFreeze, isDeepFrozen } from '../../src-main/base/deepFreeze.ts';
import { JsonSchemaCompiler } from '../../src-main/base/jsonSchema.ts';
import { PortalService } from '../../src-main/engine/portalService.ts';
import { openStore, type Store } from '../../src-main/store/store.ts';

// `GET /portals` is what scripts poll. PortalService.list serves the list it read again while the
// database is unchanged, and the API keeps the JSON text of a deep-frozen answer by the object
// (api/routeTable.ts): both only pay off when the same deep-frozen object comes back.
describe('the portal list served again', () => {
  let dir: string;
  let store: Store;
  let portals: PortalService;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portal-list-'));
    store = openStore(join(dir, 'portico.db'));
    store.principals.createOrg('default');
    portals = new PortalService(store, new JsonSchemaCompiler());
    portals.create('default', { endpoint_name: 'first', start_url: 'http://127.0.0.1:9/', task: 'Fill the form' });
  });
  afterEach(async () => {
    store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('is the same deep-frozen list while nothing was written, and a new one after a write', () => {
    const first = portals.list('default');
    expect(first.map((portal) => portal.endpoint_name)).toEqual(['first']);
    expect(isDeepFrozen(first)).toBe(true);
    expect(portals.list('default')).toBe(first);
    portals.create('default', { endpoint_name: 'second', start_url: 'http://127.0.0.1:9/', task: 'Fill it' });
    const after = portals.list('default');
    expect(after).not.toBe(first);
    expect(after.map((portal) => portal.endpoint_name).sort()).toEqual(['first', 'second']);
    expect(isDeepFrozen(after)).toBe(true);
    // What was served before is unchanged by the write (callers may still hold it).
    expect(first.map((portal) => portal.endpoint_name)).toEqual(['first']);
    expect(() => (first as unknown[]).push(deepFreeze({}))).toThrow(TypeError);
  });
});
