import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.ts';
import { jsonOf, startService, type TestService } from '../helpers/service.ts';
import { filesForm } from './builders.ts';

interface Bundle {
  id: string;
  status: string;
  documents: { name: string; error: string | null }[];
  error: string | null;
  created_at: string;
}
interface BundleList {
  document_bundles: Bundle[];
  total: number;
}

describe('GET /documents/{org_id}', () => {
  let svc: TestService;
  let otherOrgKey: string;
  const ids: string[] = [];

  async function settled(id: string): Promise<Bundle> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const bundle = (await (
        await svc.request('getDocumentBundle', { params: { org_id: 'default', document_bundle_id: id } })
      ).json()) as Bundle;
      if (bundle.status !== 'processing') return bundle;
      if (Date.now() > deadline) throw new Error(`bundle ${id} still processing`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  beforeAll(async () => {
    svc = await startService();
    otherOrgKey = String((await cli(svc.dataDir, ['org', 'create', 'other'])).json.api_key);
    for (const [name, data] of [
      ['a.txt', 'Name: A'],
      ['b.bin', '\u0000\u0001\u0002'],
      ['c.txt', 'Name: C'],
    ] as const) {
      const made = await jsonOf(
        await svc.api('/documents/default', { method: 'POST', body: filesForm([{ name, data: Buffer.from(data) }]) }),
      );
      const id = String((made.body as { document_bundle_id: string }).document_bundle_id);
      ids.push(id);
      await settled(id);
    }
  }, 60_000);
  afterAll(async () => svc?.dispose());

  it("lists the org's bundles newest first with their documents, paged, filtered by status", async () => {
    const all = await svc.send('listDocumentBundles', { params: { org_id: 'default' } });
    expect(all.status).toBe(200);
    const list = all.body as BundleList;
    expect(list.total).toBe(3);
    expect(list.document_bundles.map((b) => b.id)).toEqual([...ids].reverse());
    expect(list.document_bundles.map((b) => [b.status, b.documents[0]?.name])).toEqual([
      ['completed', 'c.txt'],
      ['failed', 'b.bin'],
      ['completed', 'a.txt'],
    ]);
    // Each entry is what GET of that bundle answers.
    expect(list.document_bundles[1]).toEqual(
      await (
        await svc.request('getDocumentBundle', { params: { org_id: 'default', document_bundle_id: ids[1]! } })
      ).json(),
    );

    const page = (await (
      await svc.request('listDocumentBundles', { params: { org_id: 'default' }, query: { limit: '1', offset: '1' } })
    ).json()) as BundleList;
    expect(page).toMatchObject({ total: 3, document_bundles: [{ id: ids[1] }] });
    const failed = (await (
      await svc.request('listDocumentBundles', { params: { org_id: 'default' }, query: { status: 'failed' } })
    ).json()) as BundleList;
    expect(failed.total).toBe(1);
    expect(failed.document_bundles.map((b) => b.id)).toEqual([ids[1]]);
    const beyond = (await (
      await svc.request('listDocumentBundles', { params: { org_id: 'default' }, query: { offset: '10' } })
    ).json()) as BundleList;
    expect(beyond).toEqual({ document_bundles: [], total: 3 });
  });

  it('another org sees none of them, and a deleted bundle leaves the list', async () => {
    expect(await svc.send('listDocumentBundles', { params: { org_id: 'other' } }, { key: otherOrgKey })).toEqual({
      status: 200,
      body: { document_bundles: [], total: 0 },
    });
    expect((await svc.request('listDocumentBundles', { params: { org_id: 'other' } })).status).toBe(403);
    expect(
      (await svc.request('deleteDocumentBundle', { params: { org_id: 'default', document_bundle_id: ids[0]! } }))
        .status,
    ).toBe(204);
    const list = (await (
      await svc.request('listDocumentBundles', { params: { org_id: 'default' } })
    ).json()) as BundleList;
    expect(list.total).toBe(2);
    expect(list.document_bundles.map((b) => b.id)).not.toContain(ids[0]);
  });

  it('refuses a bad query with {detail}', async () => {
    for (const query of ['limit=0', 'limit=1001', 'offset=-1', 'status=done', 'limit=abc']) {
      const res = await jsonOf(await svc.api(`/documents/default?${query}`));
      expect(res.status, query).toBe(422);
      expect(typeof (res.body as { detail: unknown }).detail, query).toBe('string');
    }
  });
});
