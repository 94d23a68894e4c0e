import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.ts';
import { jsonOf, startService, type TestService } from '../helpers/service.ts';

describe('phone numbers: list and delete; a number credentials still use is refused with 409 naming them', () => {
  let svc: TestService;
  let eveKey: string;
  const numbers = (key = svc.accountKey) => svc.request('listPhoneNumbers', {}, { key }).then(jsonOf);
  const add = async (phone_number: string, label: string): Promise<string> => {
    const made = await svc.send('createPhoneNumber', { body: { phone_number, label } }, { key: svc.accountKey });
    expect(made.status).toBe(200);
    return (made.body as { id: string }).id;
  };
  const remove = (id: string, key = svc.accountKey) =>
    svc.request('deletePhoneNumber', { params: { phone_number_id: id } }, { key });

  beforeAll(async () => {
    svc = await startService();
    eveKey = String((await cli(svc.dataDir, ['user', 'create', 'eve', '--workspace', 'elsewhere'])).json.api_key);
  });
  afterAll(async () => {
    await svc.dispose();
  });

  it("GET lists the workspace's numbers oldest first; another workspace sees none of them", async () => {
    const work = await add('+15551230001', 'work');
    const home = await add('+15551230002', 'home');
    expect(await numbers()).toEqual({
      status: 200,
      body: [
        { id: work, phone_number: '+15551230001', label: 'work', created_at: expect.any(String) },
        { id: home, phone_number: '+15551230002', label: 'home', created_at: expect.any(String) },
      ],
    });
    expect(await numbers(eveKey)).toEqual({ status: 200, body: [] });
    // Another workspace's number reads as absent: not deleted, not revealed.
    expect(await jsonOf(await remove(home, eveKey))).toEqual({
      status: 404,
      body: { detail: 'Phone number not found' },
    });
    expect(((await numbers()).body as unknown[]).length).toBe(2);
  });

  it('a number a credential receives codes on is refused with 409 naming the credential; nothing changes; once the credential is gone it deletes', async () => {
    const id = await add('+15551230003', 'sms');
    const credential = await svc.send(
      'createCredential',
      { body: { service_name: 'Bank', username_or_email: 'ada', phone_number_id: id } },
      { key: svc.accountKey },
    );
    expect(credential.status).toBe(200);
    const credentialId = (credential.body as { id: string }).id;

    expect(await jsonOf(await remove(id))).toEqual({
      status: 409,
      body: { detail: `Phone number is used by 1 credential(s): 'Bank' (${credentialId}); delete them first` },
    });
    expect((await numbers()).body).toEqual(expect.arrayContaining([expect.objectContaining({ id })]));
    expect(
      await svc.send('getCredential', { params: { credential_id: credentialId } }, { key: svc.accountKey }),
    ).toMatchObject({ status: 200, body: { has_phone_number: true } });

    expect(
      (await svc.request('deleteCredential', { params: { credential_id: credentialId } }, { key: svc.accountKey }))
        .status,
    ).toBe(204);
    expect((await remove(id)).status).toBe(204);
    expect((await numbers()).body).not.toEqual(expect.arrayContaining([expect.objectContaining({ id })]));
    expect(await jsonOf(await remove(id))).toEqual({ status: 404, body: { detail: 'Phone number not found' } });
    // Codes can no longer be pushed to it, and a new credential cannot link it.
    expect(
      await svc.send(
        'pushVerificationCode',
        { body: { phone_number_id: id, code: '123456' } },
        { key: svc.accountKey },
      ),
    ).toEqual({ status: 404, body: { detail: 'Phone number not found' } });
    expect(
      await svc.send(
        'createCredential',
        { body: { service_name: 'Bank', phone_number_id: id } },
        { key: svc.accountKey },
      ),
    ).toEqual({ status: 404, body: { detail: 'Phone number not found' } });
  });

  it('bad ids get a {"detail"} 4xx and delete nothing', async () => {
    const before = (await numbers()).body;
    for (const bad of ['not-a-uuid', '..%2F..%2Fetc', 'x'.repeat(5000), "1'%20OR%20'1'='1"]) {
      const answer = await jsonOf(await remove(bad));
      expect([404, 414, 422], bad.slice(0, 30)).toContain(answer.status);
      expect(typeof (answer.body as { detail?: unknown }).detail, bad.slice(0, 30)).toBe('string');
    }
    expect(await jsonOf(await remove(randomUUID()))).toEqual({
      status: 404,
      body: { detail: 'Phone number not found' },
    });
    expect((await numbers()).body).toEqual(before);
    expect((await svc.request('listPhoneNumbers', {}, { key: null })).status).toBe(401);
  });
});
