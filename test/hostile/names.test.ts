import { describe, expect } from 'vitest';
import { UNSAFE_NAME_RULE, unsafeNameCharacter } from '../../src-main/contract/names.ts';
import { buildRawZip } from '../helpers/rawZip.ts';
import { jsonOf, type TestService } from '../helpers/service.ts';
import { test } from '../helpers/fixtures.ts';

const refusal = (field: string, codePoint: string) => ({
  status: 422,
  body: { detail: `${field}: ${UNSAFE_NAME_RULE} (found ${codePoint})` },
});

describe('names never hold control or bidirectional-text characters', () => {
  test('the rule refuses C0/C1 controls, DEL and bidi controls, and keeps every other script and emoji', () => {
    const refused: [string, string][] = [
      ['a\u0000b', 'U+0000'],
      ['a\rb', 'U+000D'],
      ['a\nb', 'U+000A'],
      ['a\u001bb', 'U+001B'],
      ['a\u007fb', 'U+007F'],
      ['a\u0085b', 'U+0085'],
      ['a\u009fb', 'U+009F'],
      ['a\u202Ab', 'U+202A'],
      ['gpj.\u202Eexe', 'U+202E'],
      ['a\u2066b', 'U+2066'],
      ['a\u2069b', 'U+2069'],
      ['a\u200Eb', 'U+200E'],
      ['a\u200Fb', 'U+200F'],
      ['a\u061Cb', 'U+061C'],
    ];
    for (const [name, codePoint] of refused) expect(unsafeNameCharacter(name), JSON.stringify(name)).toBe(codePoint);
    for (const name of ["Zoë's bank", '日本語の銀行', 'بنك', 'שם', 'family 👨‍👩‍👧', 'tab-less name', 'a.b_c-d (2)']) {
      expect(unsafeNameCharacter(name), name).toBeUndefined();
    }
  });

  describe('over HTTP: a 422 naming the field, and nothing stored', () => {
    test('profile, workflow, credential and phone-number names', async ({ svc }) => {
      // Refused before any browser opens.
      expect(
        await jsonOf(await svc.api('/profiles/default', { method: 'POST', json: { name: 'invoice\u202Efdp.exe' } })),
      ).toEqual(refusal('body.name', 'U+202E'));
      expect(
        await jsonOf(
          await svc.api('/public/workflows', {
            method: 'POST',
            key: svc.accountKey,
            json: { name: 'weekly\r\nreport', steps: [{ action: 'go to http://127.0.0.1:9/' }] },
          }),
        ),
      ).toEqual(refusal('body.name', 'U+000D'));
      expect(
        await jsonOf(
          await svc.api('/public/credentials', {
            method: 'POST',
            key: svc.accountKey,
            json: { service_name: 'bank\u2066', username_or_email: 'a@b.test' },
          }),
        ),
      ).toEqual(refusal('body.service_name', 'U+2066'));
      expect(
        await jsonOf(
          await svc.api('/public/phone-numbers', {
            method: 'POST',
            key: svc.accountKey,
            json: { phone_number: '+15551234567', label: 'work\u0000' },
          }),
        ),
      ).toEqual(refusal('body.label', 'U+0000'));
      expect((await jsonOf(await svc.api('/profiles/default'))).body).toEqual([]);
      expect(
        ((await jsonOf(await svc.api('/public/workflows', { key: svc.accountKey }))).body as { workflows: unknown[] })
          .workflows,
      ).toEqual([]);
      expect((await jsonOf(await svc.api('/public/credentials', { key: svc.accountKey }))).body).toEqual([]);
    });

    const upload = (svc: TestService, folder: string, filename: string, manifestName = 'ok') => {
      const form = new FormData();
      const zip = buildRawZip([
        { name: 'SKILL.md', data: Buffer.from(`---\nname: "${manifestName}"\ndescription: A skill\n---\n# skill\n`) },
      ]);
      form.append('file', new Blob([new Uint8Array(zip)], { type: 'application/zip' }), filename);
      return svc.api(`/skills/default?folder=${encodeURIComponent(folder)}`, { method: 'POST', body: form });
    };

    test('skill folders, skill names (the zip file name) and the SKILL.md name', async ({ svc }) => {
      expect(await jsonOf(await upload(svc, 'team\u202Eevil', 'fine.zip'))).toEqual(refusal('query.folder', 'U+202E'));
      expect(await jsonOf(await upload(svc, 'team', 'report\u202Egpj.zip'))).toEqual({
        status: 422,
        body: { detail: `body.file: the file name (the skill's name) ${UNSAFE_NAME_RULE} (found U+202E)` },
      });
      const manifest = await jsonOf(await upload(svc, 'team', 'fine.zip', 'sneaky\\u2067name'));
      expect(manifest.status).toBe(422);
      expect((manifest.body as { detail: string }).detail).toContain(`'name' ${UNSAFE_NAME_RULE} (found U+2067)`);
      for (const [folder, codePoint] of [
        ['report\u202Efdp', 'U+202E'],
        ['line\u0085break', 'U+0085'],
        ['carriage\rreturn', 'U+000D'],
      ]) {
        const form = new FormData();
        const zip = buildRawZip([
          { name: `${folder}/SKILL.md`, data: Buffer.from('---\nname: ok\ndescription: A skill\n---\n') },
        ]);
        form.append('file', new Blob([new Uint8Array(zip)], { type: 'application/zip' }), 'foldered.zip');
        const refused = await jsonOf(await svc.api('/skills/default?folder=team', { method: 'POST', body: form }));
        expect(refused.status, folder).toBe(422);
        expect((refused.body as { detail: string }).detail, folder).toContain(
          `contains a control or bidirectional text character (${codePoint})`,
        );
      }
      expect((await jsonOf(await svc.api('/skills/default'))).body).toEqual([]);
      // The same upload with clean names is accepted.
      expect((await upload(svc, 'team', 'fine.zip')).status).toBe(200);
    });
  });
});
