import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshotName, screenshotsDir } from '../../src-main/engine/jobs/jobRun.ts';
import { launchTestBrowser } from '../helpers/chromium.ts';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { startService, waitForJob, type TestService } from '../helpers/service.ts';
import { EXACT_MAGENTA, maskedShare, type Rect } from './maskPixels.ts';

const USER = 'ada@example.com';
const PASSWORD = 'mask-pw-5512';
const TOTP = 'JBSWY3DPEHPK3PXP';
/** Each secret box sits at a fixed place (CSS px) so its region can be found in the screenshot. */
const BOX = { top: 120, left: 40, size: 48, gap: 60 };
const NOTE = { top: 260, left: 40, width: 320, height: 40 };

const page = (title: string, body: string) => `<!doctype html><html><head><title>${title}</title>
<style>body{margin:0;font:28px monospace}input{position:absolute;box-sizing:border-box;border:1px solid #000;font:32px monospace;background:#fff;color:#000;padding:0}</style></head><body>${body}</body></html>`;
const see = (location: string) => ({ status: 303, headers: { location }, body: '' });
const at = (top: number, left: number, width: number, height: number) =>
  `style="top:${top}px;left:${left}px;width:${width}px;height:${height}px"`;
// A non-secret field on the same page, filled by the page itself: what an unmasked field looks like.
const note = `<input name="device" aria-label="Device name" value="WWWWWWWW" readonly ${at(NOTE.top, NOTE.left, NOTE.width, NOTE.height)}>`;

const boxRect = (i: number): Rect => ({ x: BOX.left + i * BOX.gap, y: BOX.top, width: BOX.size, height: BOX.size });

describe('one-time-code fields are masked in the step screenshot taken while they hold the code (split digit boxes and autocomplete=one-time-code)', () => {
  let site: PageServer;
  let svc: TestService;
  const typed: Record<string, string> = {};

  beforeAll(async () => {
    site = await startPageServer({
      '/login': (req, body) => {
        if (req.method !== 'POST') {
          return {
            body: page(
              'Sign in',
              `<form method="post" action="/login"><label>Email <input type="email" name="email" autocomplete="username" ${at(20, 200, 300, 40)}></label>
            <label>Password <input type="password" name="pw" ${at(80, 200, 300, 40)}></label><button type="submit" style="position:absolute;top:140px;left:200px">Sign in</button></form>`,
            ),
          };
        }
        const f = new URLSearchParams(body);
        return f.get('email') === USER && f.get('pw') === PASSWORD
          ? see('/digits')
          : { body: page('Sign in', '<p>Wrong password</p>') };
      },
      '/digits': (req, body) => {
        if (req.method !== 'POST') {
          const boxes = Array.from(
            { length: 6 },
            (_, i) =>
              `<input name="d${i}" maxlength="1" inputmode="numeric" aria-label="Digit ${i + 1}" ${at(BOX.top, BOX.left + i * BOX.gap, BOX.size, BOX.size)}>`,
          ).join('');
          return {
            body: page(
              'Two-step verification',
              `<form method="post" action="/digits"><p style="margin:20px 40px">Enter the verification code from your authenticator app</p>${boxes}${note}<button type="submit" style="position:absolute;top:340px;left:40px">Verify</button></form>`,
            ),
          };
        }
        const f = new URLSearchParams(body);
        typed.digits = Array.from({ length: 6 }, (_, i) => f.get(`d${i}`) ?? '').join('');
        return /^\d{6}$/.test(typed.digits)
          ? see('/single')
          : { body: page('Two-step verification', '<p>Invalid code</p>') };
      },
      '/single': (req, body) => {
        if (req.method !== 'POST') {
          return {
            body: page(
              'Confirm it is you',
              `<form method="post" action="/single"><p style="margin:20px 40px">One more code, please</p><input name="otc" autocomplete="one-time-code" aria-label="Code" ${at(BOX.top, BOX.left, 6 * BOX.gap, BOX.size)}>${note}<button type="submit" style="position:absolute;top:340px;left:40px">Continue</button></form>`,
            ),
          };
        }
        typed.single = new URLSearchParams(body).get('otc') ?? '';
        return /^\d{6}$/.test(typed.single)
          ? see('/account')
          : { body: page('Confirm it is you', '<p>Invalid code</p>') };
      },
      '/account': (req, body) => {
        if (req.method !== 'POST')
          return {
            body: page(
              'Account',
              '<h1>Your account</h1><form method="post" action="/account"><label>Nickname <input name="nickname" style="position:static"></label><button type="submit">Save</button></form>',
            ),
          };
        typed.nickname = new URLSearchParams(body).get('nickname') ?? '';
        return { body: page('Saved', '<h1>Saved</h1>') };
      },
    });
    svc = await startService();
  });
  afterAll(async () => {
    await svc?.dispose();
    await site?.close();
  });

  it("the code pages' screenshots show the mask colour over every box holding a digit, while an ordinary field on the same page shows its text", async () => {
    const credential = await svc.send(
      'createCredential',
      { body: { service_name: 'Mask bank', username_or_email: USER, password: PASSWORD, totp_secret: TOTP } },
      { key: svc.accountKey },
    );
    expect(credential.status).toBe(200);
    expect(
      (
        await svc.request('createPortal', {
          params: { org_id: 'default' },
          body: {
            endpoint_name: 'maskbank',
            start_url: `${site.url}/login`,
            task: 'Sign in and set the nickname',
            form_schema: { type: 'object', properties: { nickname: { type: 'string' } } },
          },
        })
      ).status,
    ).toBe(200);
    const job = await svc.send('startJob', {
      params: { org_id: 'default', endpoint_name: 'maskbank' },
      body: {
        orchestrator_model: 'builtin:autofill',
        form_data: { nickname: 'ada' },
        credential_id: (credential.body as { id: string }).id,
      },
    });
    const jobId = String((job.body as { job_id: string }).job_id);
    const done = await waitForJob(svc, 'maskbank', jobId, ['completed', 'failed'], 60_000);
    expect(done.status, String(done.error)).toBe('completed');
    expect(typed.digits).toMatch(/^\d{6}$/);
    expect(typed.single).toMatch(/^\d{6}$/);

    // The steps that filled a code page, by their events (step n is counted after its screenshot, screenshot n-1); taken before the submit, with the code in the boxes.
    const events = (done.events ?? []) as { type: string; data: { step: number; description: string } }[];
    const codeSteps = events
      .filter((e) => e.type === 'step' && e.data.description.startsWith('Login page (one-time code)'))
      .map((e) => e.data.step);
    expect(codeSteps).toHaveLength(2);
    const shots = await Promise.all(
      codeSteps.map((step) =>
        readFile(join(screenshotsDir(join(svc.dataDir, 'artifacts'), jobId), screenshotName(step - 1))),
      ),
    );

    const chromium = await launchTestBrowser();
    try {
      const viewer = await (await chromium.newContext()).newPage();
      /** Share of pixels in `rect` painted in Playwright's mask colour (#FF00FF), near-exact since the screenshots are PNG. */
      const masked = (png: Buffer, rect: Rect): Promise<number> =>
        maskedShare(viewer, png, rect, 'image/png', EXACT_MAGENTA);

      const [digits, single] = shots as [Buffer, Buffer];
      for (let i = 0; i < 6; i += 1)
        expect(await masked(digits, boxRect(i)), `digit box ${i + 1}`).toBeGreaterThan(0.97);
      expect(
        await masked(single, { x: BOX.left, y: BOX.top, width: 6 * BOX.gap, height: BOX.size }),
        'the one-time-code field',
      ).toBeGreaterThan(0.97);
      // The check can tell: the ordinary field next to them is not painted over.
      for (const shot of [digits, single])
        expect(await masked(shot, { x: NOTE.left, y: NOTE.top, width: NOTE.width, height: NOTE.height })).toBe(0);
    } finally {
      await chromium.close();
    }
  });
});
