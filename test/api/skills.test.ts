import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.ts';
import { buildRawZip, unixAttributes } from '../helpers/rawZip.ts';
import { jsonOf, startService, type TestService } from '../helpers/service.ts';

const SKILL_FIELDS = [
  'id',
  'folder_id',
  'folder_name',
  'org_id',
  'org_name',
  'name',
  'is_public',
  'config',
  'template_id',
  'description',
  'created_at',
  'updated_at',
].sort();

const skillMd = (name: string, description: string) =>
  Buffer.from(`---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\nUse it well.\n`);

function goodZip(): Buffer {
  return buildRawZip([
    { name: 'SKILL.md', data: skillMd('date-pickers', 'Fill calendar widgets that ignore typed input') },
    { name: 'scripts/pick.js', data: Buffer.from('export const pick = 1;\n') },
  ]);
}

function form(file: Buffer | string, filename: string, field = 'file'): FormData {
  const data = new FormData();
  data.append(
    field,
    new Blob([typeof file === 'string' ? file : new Uint8Array(file)], { type: 'application/zip' }),
    filename,
  );
  return data;
}

async function listDir(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch {
    return [];
  }
}

describe('skills (§4.4)', () => {
  let svc: TestService;
  let rivalKey: string;
  const upload = (query: string, body: FormData, key?: string) =>
    svc.api(`/skills/default${query}`, { method: 'POST', body, ...(key ? { key } : {}) });

  beforeAll(async () => {
    svc = await startService();
    rivalKey = String((await cli(svc.dataDir, ['org', 'create', 'rival'])).json.api_key);
  });
  afterAll(() => svc.dispose());

  it('upload returns a skill named after the zip, in an auto-created folder, with its SKILL.md description', async () => {
    const { status, body } = await jsonOf(await upload('?folder=widgets', form(goodZip(), 'date-pickers.zip')));
    expect(status).toBe(200);
    const skill = body as Record<string, unknown>;
    expect(Object.keys(skill).sort()).toEqual(SKILL_FIELDS);
    expect(skill).toMatchObject({
      name: 'date-pickers',
      folder_name: 'widgets',
      org_id: 'default',
      org_name: 'Default organization',
      is_public: false,
      config: null,
      template_id: null,
      description: 'Fill calendar widgets that ignore typed input',
    });
    const files = await readFile(join(svc.dataDir, 'skills', String(skill.id), 'scripts', 'pick.js'), 'utf8');
    expect(files).toBe('export const pick = 1;\n');
  });

  it("a zip without SKILL.md is accepted (§4.4): named after the file, described by its README's first heading, else empty", async () => {
    const withReadme = await jsonOf(
      await upload(
        '?folder=plain',
        form(
          buildRawZip([
            { name: 'pack/README.md', data: Buffer.from('Intro line\n\n## Fill Oregon permits\n\nDetails.\n') },
            { name: 'pack/steps.txt', data: Buffer.from('1. open\n') },
          ]),
          'oregon-permits.zip',
        ),
      ),
    );
    expect(withReadme.status).toBe(200);
    const skill = withReadme.body as Record<string, unknown>;
    expect(Object.keys(skill).sort()).toEqual(SKILL_FIELDS);
    expect(skill).toMatchObject({
      name: 'oregon-permits',
      folder_name: 'plain',
      description: 'Fill Oregon permits',
      config: null,
      template_id: null,
    });
    expect(await readFile(join(svc.dataDir, 'skills', String(skill.id), 'pack', 'steps.txt'), 'utf8')).toBe(
      '1. open\n',
    );
    // Its SKILL.md endpoint says there is none; the listing shows it.
    expect(await svc.send('getSkillMarkdown', { params: { org_id: 'default', skill_id: String(skill.id) } })).toEqual({
      status: 404,
      body: { detail: 'This skill has no SKILL.md' },
    });

    const bare = await jsonOf(
      await upload(
        '?folder=plain',
        form(buildRawZip([{ name: 'notes.txt', data: Buffer.from('hello') }]), 'bare notes.zip'),
      ),
    );
    expect(bare.status).toBe(200);
    expect(bare.body).toMatchObject({ name: 'bare notes', description: '' });
    const listed = (await svc.send('listSkills', { params: { org_id: 'default' } })).body as {
      name: string;
      description: string | null;
    }[];
    expect(
      listed
        .filter((s) => s.name === 'oregon-permits' || s.name === 'bare notes')
        .map((s) => s.description)
        .sort(),
    ).toEqual(['', 'Fill Oregon permits']);
    for (const id of [skill.id, (bare.body as { id: string }).id])
      expect((await svc.send('deleteSkill', { params: { org_id: 'default', skill_id: String(id) } })).status).toBe(204);
  });

  it('the same name in the same folder is 409 with the interface message; another folder is fine', async () => {
    const dup = await jsonOf(await upload('?folder=widgets', form(goodZip(), 'date-pickers.zip')));
    expect(dup).toEqual({ status: 409, body: { detail: "Skill 'date-pickers' already exists in folder 'widgets'" } });
    const other = await upload('?folder=other', form(goodZip(), 'date-pickers.zip'));
    expect(other.status).toBe(200);
  });

  it('the skill is named after the file (any case of .zip), not its manifest; is_public is kept', async () => {
    const zip = buildRawZip([
      { name: 'SKILL.md', data: skillMd('plain-notes', 'Plain notes') },
      { name: 'notes.txt', data: Buffer.from('hello') },
    ]);
    const { status, body } = await jsonOf(await upload('?folder=plain&is_public=true', form(zip, 'Notes.ZIP')));
    expect(status).toBe(200);
    expect(body).toMatchObject({ name: 'Notes', description: 'Plain notes', is_public: true });
  });

  it("list shows own skills; other orgs' public skills only with include_public=true", async () => {
    const rivalZip = buildRawZip([{ name: 'SKILL.md', data: skillMd('rival', 'Rival know-how') }]);
    expect(
      (
        await svc.api('/skills/rival?folder=shared&is_public=true', {
          method: 'POST',
          key: rivalKey,
          body: form(rivalZip, 'rival-public.zip'),
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await svc.api('/skills/rival?folder=shared', {
          method: 'POST',
          key: rivalKey,
          body: form(rivalZip, 'rival-private.zip'),
        })
      ).status,
    ).toBe(200);

    const own = (await svc.send('listSkills', { params: { org_id: 'default' } })).body as {
      name: string;
      org_id: string;
    }[];
    expect(own.every((s) => s.org_id === 'default')).toBe(true);
    expect(own.map((s) => s.name).sort()).toEqual(['Notes', 'date-pickers', 'date-pickers']);

    const withPublic = (
      await svc.send('listSkills', { params: { org_id: 'default' }, query: { include_public: 'true' } })
    ).body as { name: string; org_id: string }[];
    expect(withPublic.map((s) => `${s.org_id}/${s.name}`)).toContain('rival/rival-public');
    expect(withPublic.map((s) => s.name)).not.toContain('rival-private');

    const explicitFalse = (
      await svc.send('listSkills', { params: { org_id: 'default' }, query: { include_public: 'false' } })
    ).body as unknown[];
    expect(explicitFalse).toHaveLength(3);
    expect(
      (await svc.send('listSkills', { params: { org_id: 'default' }, query: { include_public: 'maybe' } })).status,
    ).toBe(422);
  });

  it("portals attach own and public skills, not another org's private ones; skill_ids replaces the set", async () => {
    const all = (await svc.send('listSkills', { params: { org_id: 'default' }, query: { include_public: 'true' } }))
      .body as { id: string; name: string; org_id: string }[];
    const own = all.find((s) => s.name === 'Notes');
    const pub = all.find((s) => s.name === 'rival-public');
    const rivalPrivate = (
      (await svc.send('listSkills', { params: { org_id: 'rival' } }, { key: rivalKey })).body as {
        id: string;
        name: string;
      }[]
    ).find((s) => s.name === 'rival-private');
    const created = await svc.send('createPortal', {
      params: { org_id: 'default' },
      body: { endpoint_name: 'with-skills', start_url: 'https://a.test', task: 't', skill_ids: [own?.id, pub?.id] },
    });
    expect(created.status).toBe(200);
    expect((created.body as { skills: { id: string }[] }).skills.map((s) => s.id)).toEqual([own?.id, pub?.id]);

    const refused = await svc.send('updatePortal', {
      params: { org_id: 'default', endpoint_name: 'with-skills' },
      body: { skill_ids: [rivalPrivate?.id] },
    });
    expect(refused.status).toBe(422);
    expect((refused.body as { detail: string }).detail).toBe(
      `body.skill_ids: no skill '${String(rivalPrivate?.id)}' visible to this organization`,
    );

    const replaced = await svc.send('updatePortal', {
      params: { org_id: 'default', endpoint_name: 'with-skills' },
      body: { skill_ids: [pub?.id] },
    });
    expect((replaced.body as { skills: { id: string; name: string }[] }).skills.map((s) => s.name)).toEqual([
      'rival-public',
    ]);
  });

  describe('bad uploads are refused and leave nothing behind', () => {
    const expectNothingStored = async (before: number) => {
      expect(((await svc.send('listSkills', { params: { org_id: 'default' } })).body as unknown[]).length).toBe(before);
      expect(await listDir(join(svc.dataDir, 'tmp'))).toEqual([]);
      const dirs = await listDir(join(svc.dataDir, 'skills'));
      expect(dirs.length).toBe(before + 2);
    };
    const count = async () =>
      ((await svc.send('listSkills', { params: { org_id: 'default' } })).body as unknown[]).length;

    const cases: [string, () => FormData, string, number, RegExp][] = [
      [
        'not a zip',
        () => form('this is plain text, not a zip', 'fake.zip'),
        '?folder=bad',
        422,
        /^Skill zip rejected: .*(not a zip|zip)/i,
      ],
      [
        'path traversal',
        () => form(buildRawZip([{ name: '../escape.txt', data: Buffer.from('x') }]), 'trav.zip'),
        '?folder=bad',
        422,
        /\.\.\/escape\.txt/,
      ],
      [
        'absolute path',
        () => form(buildRawZip([{ name: '/etc/cron.d/x', data: Buffer.from('x') }]), 'abs.zip'),
        '?folder=bad',
        422,
        /\/etc\/cron\.d\/x/,
      ],
      [
        'a symlink',
        () =>
          form(
            buildRawZip([
              {
                name: 'link',
                data: Buffer.from('/etc/passwd'),
                method: 0,
                externalAttributes: unixAttributes(0o120777),
              },
            ]),
            'link.zip',
          ),
        '?folder=bad',
        422,
        /link/,
      ],
      [
        'a decompression bomb',
        () => form(buildRawZip([{ name: 'zeros.bin', data: Buffer.alloc(40 * 1024 * 1024) }]), 'bomb.zip'),
        '?folder=bad',
        422,
        /zeros\.bin/,
      ],
      // Without SKILL.md a zip is still checked like any other: hostile ones are refused the same way.
      [
        'path traversal, no SKILL.md',
        () =>
          form(
            buildRawZip([
              { name: 'README.md', data: Buffer.from('# Hi\n') },
              { name: 'docs/../../escape.txt', data: Buffer.from('x') },
            ]),
            'trav2.zip',
          ),
        '?folder=bad',
        422,
        /escape\.txt/,
      ],
      [
        'a bomb, no SKILL.md',
        () =>
          form(
            buildRawZip([
              { name: 'README.md', data: Buffer.from('# Hi\n') },
              { name: 'zeros.bin', data: Buffer.alloc(40 * 1024 * 1024) },
            ]),
            'bomb2.zip',
          ),
        '?folder=bad',
        422,
        /zeros\.bin/,
      ],
      [
        'a broken SKILL.md',
        () => form(buildRawZip([{ name: 'SKILL.md', data: Buffer.from('---\nname: x\n---\nbody') }]), 'badmd.zip'),
        '?folder=bad',
        422,
        /description/,
      ],
      ['not a .zip name', () => form(goodZip(), 'skill.tar'), '?folder=bad', 422, /^body\.file: must be a \.zip file/],
      ['no folder', () => form(goodZip(), 'nofolder.zip'), '', 422, /^query\.folder: is required$/],
      ['an empty folder', () => form(goodZip(), 'nofolder.zip'), '?folder=', 422, /^query\.folder/],
      [
        'the wrong field name',
        () => form(goodZip(), 'x.zip', 'upload'),
        '?folder=bad',
        422,
        /^body\.file: is required/,
      ],
    ];
    it.each(cases)('%s', async (_name, makeBody, query, status, detail) => {
      const before = await count();
      const res = await jsonOf(await upload(query, makeBody()));
      expect(res.status).toBe(status);
      expect((res.body as { detail: string }).detail).toMatch(detail);
      await expectNothingStored(before);
    });

    it('a file part without a filename (application/octet-stream, which busboy still calls a file) is 422', async () => {
      const before = await count();
      const boundary = 'portico-boundary';
      for (const disposition of ['form-data; name="file"', 'form-data; name="file"; filename=""']) {
        const body = Buffer.concat([
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: ${disposition}\r\nContent-Type: application/octet-stream\r\n\r\n`,
          ),
          goodZip(),
          Buffer.from(`\r\n--${boundary}--\r\n`),
        ]);
        const res = await jsonOf(
          await svc.api('/skills/default?folder=bad', {
            method: 'POST',
            headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
            body,
          }),
        );
        expect(res, disposition).toEqual({
          status: 422,
          body: { detail: 'body.file: the file part has no filename (the skill is named after it: send <name>.zip)' },
        });
      }
      await expectNothingStored(before);
    });

    it('a JSON body instead of multipart is 422', async () => {
      const res = await svc.send('uploadSkill', {
        params: { org_id: 'default' },
        query: { folder: 'x' },
        body: { file: 'x' },
      });
      expect(res.status).toBe(422);
      expect((res.body as { detail: string }).detail).toMatch(/multipart/);
    });

    it('a declared Content-Length over 100 MB is 413 before any byte is read', async () => {
      const { request } = await import('node:http');
      const url = new URL(`${svc.url}/skills/default?folder=big`);
      const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(
          url,
          {
            method: 'POST',
            headers: {
              'x-api-key': svc.orgKey,
              'content-type': 'multipart/form-data; boundary=x',
              'content-length': String(101 * 1024 * 1024),
            },
          },
          (r) => {
            let body = '';
            r.on('data', (c: Buffer) => (body += c.toString()));
            r.on('end', () => resolve({ status: r.statusCode ?? 0, body }));
          },
        );
        req.on('error', reject);
        req.write('--x\r\n');
      });
      expect(res.status).toBe(413);
      expect(JSON.parse(res.body)).toEqual({ detail: 'Skill zip exceeds the 100 MB limit' });
    });

    it('a chunked upload that grows past 100 MB is cut off while streaming with 413', async () => {
      const before = await count();
      const boundary = 'portico-boundary';
      const head = Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="huge.zip"\r\nContent-Type: application/zip\r\n\r\n`,
      );
      const chunk = Buffer.alloc(1024 * 1024, 0x61);
      let sent = 0;
      const total = 101;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent === 0) controller.enqueue(new Uint8Array(head));
          if (sent < total) {
            controller.enqueue(new Uint8Array(chunk));
            sent += 1;
          } else {
            controller.enqueue(new Uint8Array(Buffer.from(`\r\n--${boundary}--\r\n`)));
            controller.close();
          }
        },
      });
      const res = await fetch(`${svc.url}/skills/default?folder=big`, {
        method: 'POST',
        headers: { 'x-api-key': svc.orgKey, 'content-type': `multipart/form-data; boundary=${boundary}` },
        body: stream,
        duplex: 'half',
      } as RequestInit);
      expect(await jsonOf(res)).toEqual({ status: 413, body: { detail: 'Skill zip exceeds the 100 MB limit' } });
      await expectNothingStored(before);
    });
  });

  it('delete removes the skill, its files and its portal attachments; a second delete is 404', async () => {
    const zip = buildRawZip([
      { name: 'SKILL.md', data: skillMd('temp', 'Temporary') },
      { name: 'x.txt', data: Buffer.from('x') },
    ]);
    const skill = (await jsonOf(await upload('?folder=temp', form(zip, 'temp.zip')))).body as { id: string };
    await svc.send('createPortal', {
      params: { org_id: 'default' },
      body: { endpoint_name: 'uses-temp', start_url: 'https://a.test', task: 't', skill_ids: [skill.id] },
    });
    expect((await svc.send('deleteSkill', { params: { org_id: 'default', skill_id: skill.id } })).status).toBe(204);
    expect(await listDir(join(svc.dataDir, 'skills', skill.id))).toEqual([]);
    const portal = (await svc.send('getPortal', { params: { org_id: 'default', endpoint_name: 'uses-temp' } }))
      .body as { skills: unknown[] };
    expect(portal.skills).toEqual([]);
    expect(await svc.send('deleteSkill', { params: { org_id: 'default', skill_id: skill.id } })).toEqual({
      status: 404,
      body: { detail: 'Skill not found' },
    });
  });

  describe('GET /skills/{org_id}/{skill_id}/skill-md', () => {
    const skillMdOf = (orgId: string, skillId: string, key?: string) =>
      svc.api(`/skills/${orgId}/${skillId}/skill-md`, key ? { key } : {});
    const uploadAs = async (orgId: string, key: string | undefined, query: string, zip: Buffer, name: string) => {
      const res = await jsonOf(
        await svc.api(`/skills/${orgId}${query}`, { method: 'POST', body: form(zip, name), ...(key ? { key } : {}) }),
      );
      expect(res.status).toBe(200);
      return res.body as { id: string };
    };

    it('returns the root SKILL.md as text/markdown, byte for byte (HTML stays text)', async () => {
      const text =
        '---\nname: md-root\ndescription: Shows its instructions\n---\n# Steps\n<script>alert(1)</script> é\n';
      const skill = await uploadAs(
        'default',
        undefined,
        '?folder=md',
        buildRawZip([
          { name: 'SKILL.md', data: Buffer.from(text) },
          { name: 'a.txt', data: Buffer.from('a') },
        ]),
        'md-root.zip',
      );
      const res = await skillMdOf('default', skill.id);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(await res.text()).toBe(text);
      // The console token reads it as the operator, like every org route.
      const asConsole = await svc.send(
        'getSkillMarkdown',
        { params: { org_id: 'default', skill_id: skill.id } },
        { key: null, headers: { 'x-console-token': svc.consoleToken } },
      );
      expect(asConsole.body).toBe(text);
    });

    it('finds SKILL.md inside the single top-level folder', async () => {
      const zip = buildRawZip([
        { name: 'pack/SKILL.md', data: skillMd('pack', 'Nested') },
        { name: 'pack/x.js', data: Buffer.from('1') },
      ]);
      const skill = await uploadAs('default', undefined, '?folder=md', zip, 'pack.zip');
      const res = await skillMdOf('default', skill.id);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('description: Nested');
    });

    it('a skill whose SKILL.md is gone from disk is 404 saying so; an unknown skill is 404 Skill not found', async () => {
      const skill = await uploadAs(
        'default',
        undefined,
        '?folder=md',
        buildRawZip([
          { name: 'SKILL.md', data: skillMd('gone', 'Gone') },
          { name: 'readme.txt', data: Buffer.from('no manifest') },
        ]),
        'no-md.zip',
      );
      await rm(join(svc.dataDir, 'skills', skill.id, 'SKILL.md'));
      expect(await jsonOf(await skillMdOf('default', skill.id))).toEqual({
        status: 404,
        body: { detail: 'This skill has no SKILL.md' },
      });
      expect(await jsonOf(await skillMdOf('default', '00000000-0000-4000-8000-000000000000'))).toEqual({
        status: 404,
        body: { detail: 'Skill not found' },
      });
    });

    it("another org's private skill is 404; its public skill is readable", async () => {
      const privateSkill = await uploadAs(
        'rival',
        rivalKey,
        '?folder=md',
        buildRawZip([{ name: 'SKILL.md', data: skillMd('secret', 'Private know-how') }]),
        'secret-md.zip',
      );
      const publicSkill = await uploadAs(
        'rival',
        rivalKey,
        '?folder=md&is_public=true',
        buildRawZip([{ name: 'SKILL.md', data: skillMd('shared', 'Shared know-how') }]),
        'shared-md.zip',
      );
      expect(await jsonOf(await skillMdOf('default', privateSkill.id))).toEqual({
        status: 404,
        body: { detail: 'Skill not found' },
      });
      const shared = await skillMdOf('default', publicSkill.id);
      expect(shared.status).toBe(200);
      expect(await shared.text()).toContain('description: Shared know-how');
      // Its own org reads its private skill; another org's key on the rival path is refused as for every org route.
      expect((await skillMdOf('rival', privateSkill.id, rivalKey)).status).toBe(200);
      expect((await skillMdOf('rival', privateSkill.id)).status).toBe(403);
    });

    it('a SKILL.md replaced by a symlink after upload is not followed', async () => {
      const { rm: remove, symlink } = await import('node:fs/promises');
      const skill = await uploadAs(
        'default',
        undefined,
        '?folder=md',
        buildRawZip([{ name: 'SKILL.md', data: skillMd('linked', 'Linked') }]),
        'linked.zip',
      );
      const file = join(svc.dataDir, 'skills', skill.id, 'SKILL.md');
      await remove(file);
      await symlink(join(svc.dataDir, 'portico.db'), file);
      expect(await jsonOf(await skillMdOf('default', skill.id))).toEqual({
        status: 404,
        body: { detail: 'This skill has no SKILL.md' },
      });
    });

    it('is listed in OpenAPI as text/markdown', async () => {
      const doc = (await (await svc.api('/openapi.json', { key: null })).json()) as {
        paths: Record<string, { get?: { responses: Record<string, { content?: Record<string, unknown> }> } }>;
      };
      expect(
        doc.paths['/skills/{org_id}/{skill_id}/skill-md']?.get?.responses['200']?.content?.['text/markdown'],
      ).toBeDefined();
    });
  });

  it('another org can neither see nor delete a private skill', async () => {
    const own = ((await svc.send('listSkills', { params: { org_id: 'default' } })).body as { id: string }[])[0];
    const res = await svc.send(
      'deleteSkill',
      { params: { org_id: 'rival', skill_id: String(own?.id) } },
      { key: rivalKey },
    );
    expect(res).toEqual({ status: 404, body: { detail: 'Skill not found' } });
  });
});
