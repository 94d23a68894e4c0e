import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diskBytes } from '../../src-main/engine/limits/diskQuotas.ts';
import { cli } from '../helpers/cli.ts';
import { FakeClock } from '../helpers/fakeClock.ts';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { buildRawZip } from '../helpers/rawZip.ts';
import { scriptedRegistry } from '../helpers/scriptedAgents.ts';
import { jsonOf, startService, waitForJob, type TestService } from '../helpers/service.ts';
import { filesForm } from '../documents/builders.ts';

const KB = 1024;
const MB = 1024 * KB;
const HOW = (setting: string, free: string) =>
  `To make room, ${free}, or raise ${setting} in settings.json in the data folder and restart`;

/** A skill whose files add up to about `bytes` (stored, so the zip is as big as what it declares). */
function skillZip(name: string, bytes: number): Buffer {
  return buildRawZip([
    { name: 'SKILL.md', data: Buffer.from(`---\nname: ${name}\ndescription: Takes room.\n---\n# ${name}\n`) },
    { name: 'data.txt', data: Buffer.alloc(bytes, 'x'), method: 0 },
  ]);
}

function skillForm(zip: Buffer, filename: string): FormData {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(zip)], { type: 'application/zip' }), filename);
  return form;
}

async function entries(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch {
    return [];
  }
}

describe('per-organization disk quotas', () => {
  let svc: TestService;
  let pages: PageServer;
  let rivalKey: string;
  const clock = new FakeClock();

  beforeAll(async () => {
    pages = await startPageServer({ '/form': '<!doctype html><title>Quota</title><input id="colour">' });
    svc = await startService(undefined, {
      agents: scriptedRegistry,
      clock: clock,
      limits: { skillsQuotaBytes: 100 * KB, documentsQuotaBytes: 100 * KB, artifactsQuotaBytes: 1 },
    });
    rivalKey = String((await cli(svc.dataDir, ['org', 'create', 'rival'])).json.api_key);
  });
  afterAll(async () => {
    await svc.dispose();
    await pages.close();
  });

  it('skills: an upload whose declared size passes the quota is 413 before extraction, nothing kept; deleting a skill makes room; other orgs are unaffected', async () => {
    const upload = async (zip: Buffer, filename: string, org = 'default', key?: string) =>
      jsonOf(
        await svc.api(`/skills/${org}?folder=quota`, {
          method: 'POST',
          body: skillForm(zip, filename),
          ...(key && { key }),
        }),
      );
    const first = await upload(skillZip('first', 60 * KB), 'first.zip');
    expect(first.status).toBe(200);
    const refused = await upload(skillZip('second', 60 * KB), 'second.zip');
    expect(refused.status).toBe(413);
    expect(refused.body).toEqual({
      detail: expect.stringMatching(
        new RegExp(
          `^Disk quota exceeded: organization 'default' keeps 0\\.1 MB of extracted skills; this upload adds 0\\.1 MB; the quota is 0\\.1 MB \\(skills_quota_mb\\)\\. ${HOW('skills_quota_mb', 'delete skills it no longer needs').replace(/[./]/g, '\\$&')}$`,
        ),
      ),
    });
    expect(await entries(join(svc.dataDir, 'skills'))).toEqual([String((first.body as { id: string }).id)]);
    expect(((await jsonOf(await svc.api('/skills/default'))).body as unknown[]).length).toBe(1);

    expect((await upload(skillZip('rivals', 60 * KB), 'rivals.zip', 'rival', rivalKey)).status).toBe(200);

    expect(
      (await svc.api(`/skills/default/${String((first.body as { id: string }).id)}`, { method: 'DELETE' })).status,
    ).toBe(204);
    expect((await upload(skillZip('second', 60 * KB), 'second.zip')).status).toBe(200);
  });

  it('documents: a bundle that would pass the quota is 413 and nothing is kept; a full quota refuses even one byte', async () => {
    const upload = async (bytes: number) =>
      jsonOf(
        await svc.api('/documents/default', {
          method: 'POST',
          body: filesForm([{ name: 'notes.txt', data: Buffer.alloc(bytes, 'a'), type: 'text/plain' }]),
        }),
      );
    expect((await upload(60 * KB)).status).toBe(200);
    const refused = await upload(60 * KB);
    expect(refused.status).toBe(413);
    expect(refused.body).toEqual({
      detail: `Disk quota exceeded: organization 'default' keeps 0.1 MB of uploaded documents; this upload adds 0.1 MB; the quota is 0.1 MB (documents_quota_mb). ${HOW('documents_quota_mb', 'delete document bundles it no longer needs')}`,
    });
    expect((await entries(join(svc.dataDir, 'documents'))).length).toBe(1);
    expect((await entries(join(svc.dataDir, 'tmp'))).filter((name) => name.startsWith('documents-'))).toEqual([]);
    // Exactly at the quota is allowed; then not one more byte.
    expect((await upload(40 * KB)).status).toBe(200);
    expect(await upload(1)).toEqual({
      status: 413,
      body: {
        detail: `Disk quota exceeded: organization 'default' keeps 0.1 MB of uploaded documents; the quota is 0.1 MB (documents_quota_mb). ${HOW('documents_quota_mb', 'delete document bundles it no longer needs')}`,
      },
    });
  });

  it("artifacts: once the org's job artifacts fill the quota a job start is 413; usage is measured on disk and re-read after 30 s of the service clock", async () => {
    expect(
      (
        await svc.api('/portals/default', {
          method: 'POST',
          json: { endpoint_name: 'visit', start_url: `${pages.url}/form`, task: 'script:visit' },
        })
      ).status,
    ).toBe(200);
    const start = async () =>
      jsonOf(await svc.api('/jobs/default/visit/start', { method: 'POST', json: { form_data: {} } }));
    const first = await start();
    expect(first.status).toBe(200);
    const jobId = String((first.body as { job_id: string }).job_id);
    expect(await waitForJob(svc, 'visit', jobId, ['completed', 'failed'])).toMatchObject({ status: 'completed' });
    const used = await diskBytes(join(svc.dataDir, 'artifacts', jobId));
    expect(used).toBeGreaterThan(1);

    // The figure measured at the first start (nothing yet) is reused for 30 s, so a burst of starts costs one walk.
    const cached = await start();
    expect(cached.status).toBe(200);
    await waitForJob(svc, 'visit', String((cached.body as { job_id: string }).job_id), ['completed', 'failed']);
    clock.advance(30_000);
    const refused = await start();
    expect(refused.status).toBe(413);
    expect(refused.body).toEqual({
      detail: expect.stringMatching(
        /^Disk quota exceeded: organization 'default' keeps \d+\.\d MB of job artifacts \(screenshots, downloads, recordings\); the quota is 0\.0 MB \(artifacts_quota_mb\)\. To make room, remove old jobs' artifacts from the data folder, or raise artifacts_quota_mb in settings\.json in the data folder and restart$/,
      ),
    });
    expect(used).toBeLessThan(100 * MB);
  });
});
