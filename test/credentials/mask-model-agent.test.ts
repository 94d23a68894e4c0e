import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshotName, screenshotsDir } from '../../src-main/engine/jobs/jobRun.ts';
import { KeychainSecretStore, scopedSecretStore } from '../../src-main/secrets/index.ts';
import type { ModelServer, RecordedRequest, ScriptedReply } from '../helpers/modelServer.ts';
import { elementIndex, lastTurnText, toolResults } from '../helpers/modelTurns.ts';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { waitForJob, type TestService } from '../helpers/service.ts';
import { maskedShare, placedAt, type Rect } from './maskPixels.ts';
import { startMaskRig, type MaskRig } from './maskRig.ts';

const MODEL = 'anthropic:claude-sonnet-4-6';
const SEED = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

const style =
  '<style>body{margin:0;font:28px monospace;background:#fff}input{position:absolute;box-sizing:border-box;border:1px solid #000;font:28px monospace;background:#fff;color:#000;padding:0}button{position:absolute;top:320px;left:20px}</style>';
/** A one-time-code field the page marks as such, a field it does not mark at all, and an ordinary field. */
const OTC: Rect = { x: 20, y: 40, width: 300, height: 40 };
const BACKUP: Rect = { x: 20, y: 140, width: 300, height: 40 };
const PLAIN: Rect = { x: 20, y: 240, width: 300, height: 40 };

const verifyPage = `<!doctype html><html><head><title>Verify it is you</title>${style}</head><body><form method="post" action="/verified">
  <input name="otc" autocomplete="one-time-code" aria-label="One-time code" ${placedAt(OTC)}>
  <input name="backup" aria-label="Backup entry" ${placedAt(BACKUP)}>
  <input name="note" aria-label="Note" value="WWWWWWWW" readonly ${placedAt(PLAIN)}>
  <button type="submit">Verify</button></form></body></html>`;

/** The last image of a recorded Anthropic request (the screenshot the model was shown). */
function lastImage(request: RecordedRequest): Buffer {
  const messages = request.body.messages as Array<{ role: string; content: unknown }>;
  const blocks = messages.flatMap((m) =>
    Array.isArray(m.content) ? (m.content as Array<{ type: string; source?: { data: string } }>) : [],
  );
  const image = blocks.filter((b) => b.type === 'image').at(-1);
  if (!image?.source) throw new Error('the request carries no image');
  return Buffer.from(image.source.data, 'base64');
}

describe('a code the model agent types is masked in the job screenshot and in the screenshot sent back to the model (scripted model server, real keychain, real Chromium)', () => {
  let svc: TestService;
  let model: ModelServer;
  let pages: PageServer;
  let rig: MaskRig;

  beforeAll(async () => {
    pages = await startPageServer({
      '/verify': verifyPage,
      '/verified': '<!doctype html><title>Done</title><h1>Verified</h1>',
    });
    const secrets = scopedSecretStore(new KeychainSecretStore(), `test-mask-model-agent-${Date.now()}`);
    await secrets.set('provider/anthropic', 'sk-ant-test');
    rig = await startMaskRig({ secrets, llmRetry: { maxRetries: 1, timeoutMs: 10_000 }, jobConcurrency: 1 });
    ({ svc, model } = rig);
    expect(
      (
        await svc.request('createPortal', {
          params: { org_id: 'default' },
          body: { endpoint_name: 'verify', start_url: `${pages.url}/verify`, task: 'Enter the one-time code' },
        })
      ).status,
    ).toBe(200);
  });
  afterAll(async () => {
    await rig?.dispose();
    await pages?.close();
  });

  it('totp_code into an autocomplete=one-time-code field and a {{credential:…totp}} placeholder typed into an unmarked field are both painted over; an ordinary field is not', async () => {
    const made = await svc.send(
      'createCredential',
      { body: { service_name: 'Verify', username_or_email: 'ada', totp_secret: SEED } },
      { key: svc.accountKey },
    );
    expect(made.status).toBe(200);
    const id = String((made.body as { id: string }).id);
    model.reset((request: RecordedRequest): ScriptedReply => {
      if (toolResults(request).length > 0)
        return { toolCalls: [{ name: 'done', input: { result: { entered: true } } }] };
      expect(lastTurnText(request)).toContain('One-time code');
      return {
        toolCalls: [
          { name: 'totp_code', input: { index: elementIndex(request, 'One-time code'), credential_id: id } },
          { name: 'type', input: { index: elementIndex(request, 'Backup entry'), text: `{{credential:${id}.totp}}` } },
        ],
      };
    });
    const started = await svc.send('startJob', {
      params: { org_id: 'default', endpoint_name: 'verify' },
      body: { orchestrator_model: MODEL, replay: false, form_data: {}, credential_id: id },
    });
    expect(started.status).toBe(200);
    const jobId = String((started.body as { job_id: string }).job_id);
    const done = await waitForJob(svc, 'verify', jobId, ['completed', 'failed'], 60_000);
    expect(done, String(done.error)).toMatchObject({ status: 'completed', result: { entered: true } });
    expect(model.requests).toHaveLength(2);
    expect(toolResults(model.requests[1]!)).toEqual(
      expect.arrayContaining([
        `typed {{credential:${id}.totp}} into [${elementIndex(model.requests[0]!, 'One-time code')}]`,
      ]),
    );

    const page = await rig.viewerPage();
    // The screenshot the model saw after typing (JPEG, viewport).
    const seen = lastImage(model.requests[1]!);
    expect(
      await maskedShare(page, seen, OTC, 'image/jpeg'),
      'model screenshot: the one-time-code field',
    ).toBeGreaterThan(0.9);
    expect(
      await maskedShare(page, seen, BACKUP, 'image/jpeg'),
      'model screenshot: the unmarked field holding a code',
    ).toBeGreaterThan(0.9);
    expect(await maskedShare(page, seen, PLAIN, 'image/jpeg')).toBe(0);

    // The stored step screenshot of the turn that typed the codes.
    const events = (done.events ?? []) as { type: string; data: { step: number; description: string } }[];
    const typedStep = events.find((e) => e.type === 'step' && e.data.description.startsWith('turn 1'));
    expect(typedStep).toBeDefined();
    const shot = await readFile(
      join(screenshotsDir(join(svc.dataDir, 'artifacts'), jobId), screenshotName(typedStep!.data.step - 1)),
    );
    expect(await maskedShare(page, shot, OTC), 'step screenshot: the one-time-code field').toBeGreaterThan(0.97);
    expect(await maskedShare(page, shot, BACKUP), 'step screenshot: the unmarked field holding a code').toBeGreaterThan(
      0.97,
    );
    expect(await maskedShare(page, shot, PLAIN)).toBe(0);
  });
});
