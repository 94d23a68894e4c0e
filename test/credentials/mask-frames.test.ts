import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secretFieldShownInPage } from '../../src-main/browser/pageScreenshot.ts';
import { screenshotName, screenshotsDir } from '../../src-main/engine/jobs/jobRun.ts';
import { memorySecrets } from '../helpers/memorySecrets.ts';
import type { ModelServer } from '../helpers/modelServer.ts';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { scriptedRegistry } from '../helpers/scriptedAgents.ts';
import { waitForJob, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';
import { maskedShare, placedAt, type Rect } from './maskPixels.ts';
import { startMaskRig, type MaskRig } from './maskRig.ts';

const SAME_ORIGIN_PASSWORD = 'SameOriginPw-4471';
const CROSS_ORIGIN_PASSWORD = 'CrossOriginPw-8812';
const CODE = '493817';

const style =
  '<style>body{margin:0;font:28px monospace;background:#fff}input{position:absolute;box-sizing:border-box;border:1px solid #000;font:28px monospace;background:#fff;color:#000;padding:0}iframe{position:absolute;border:0;margin:0;padding:0}</style>';
/** Inside each iframe: the password field and an ordinary field, each at a fixed place. */
const SECRET: Rect = { x: 20, y: 20, width: 300, height: 40 };
const PLAIN: Rect = { x: 20, y: 100, width: 300, height: 40 };
const FRAMES = {
  same: { x: 40, y: 60, width: 400, height: 180 },
  cross: { x: 40, y: 300, width: 400, height: 180 },
} satisfies Record<string, Rect>;
/** A web component's open shadow root holding a password field, on the page itself. */
const SHADOW: Rect = { x: 40, y: 520, width: 300, height: 40 };
const inFrame = (frame: Rect, r: Rect): Rect => ({
  x: frame.x + r.x,
  y: frame.y + r.y,
  width: r.width,
  height: r.height,
});

/** A page script making its own world blind to every element and shadow root (what it could do to hide a field from a check run there). */
const HIDE_FROM_MAIN_WORLD = `for (const proto of [Document.prototype, Element.prototype, DocumentFragment.prototype]) {
  proto.querySelector = () => null; proto.querySelectorAll = () => document.createDocumentFragment().childNodes; }
  Object.defineProperty(Element.prototype, 'shadowRoot', { get() { return null; } });`;

const inner = (password: string) => `<!doctype html><html><head>${style}</head><body><form>
  <input type="password" name="pw" aria-label="Password" value="${password}" ${placedAt(SECRET)}>
  <input name="note" aria-label="Note" value="WWWWWWWW" readonly ${placedAt(PLAIN)}></form></body></html>`;

describe('secret fields are masked in every frame and in workflow step screenshots (real service, real Chromium, pixel checks)', () => {
  let site: PageServer;
  let svc: TestService;
  let model: ModelServer;
  let rig: MaskRig;

  beforeAll(async () => {
    let port = '';
    site = await startPageServer({
      // The page is on 127.0.0.1; the second iframe is on localhost: another origin and another site (an out-of-process iframe).
      '/outer': () => ({
        body: `<!doctype html><html><head><title>Frames</title>${style}</head><body><p style="margin:10px 40px">Sign in below</p>
        <iframe title="same" src="/inner-same" ${placedAt(FRAMES.same)}></iframe>
        <iframe title="cross" src="http://localhost:${port}/inner-cross" ${placedAt(FRAMES.cross)}></iframe>
        <pw-box></pw-box><script>customElements.define('pw-box', class extends HTMLElement { connectedCallback() {
          const root = this.attachShadow({ mode: 'open' });
          root.innerHTML = '${style}<input type="password" aria-label="Shadow password" value="${SAME_ORIGIN_PASSWORD}" ${placedAt(SHADOW)}>';
        } });</script></body></html>`,
      }),
      '/inner-same': inner(SAME_ORIGIN_PASSWORD),
      '/inner-cross': inner(CROSS_ORIGIN_PASSWORD),
      // One frame, a shadow root holding the password, and a page script that hides fields from its own world's queries.
      '/alone': `<!doctype html><html><head><title>Alone</title>${style}</head><body>
        <script>${HIDE_FROM_MAIN_WORLD}</script>
        <pw-box></pw-box><script>customElements.define('pw-box', class extends HTMLElement { connectedCallback() {
          const root = this.attachShadow({ mode: 'open' });
          root.innerHTML = '${style}<input type="password" aria-label="Shadow password" value="${SAME_ORIGIN_PASSWORD}" ${placedAt(SHADOW)}>';
        } });</script>
        <input name="note" aria-label="Note" value="WWWWWWWW" readonly ${placedAt(PLAIN)}></body></html>`,
      '/plain': `<!doctype html><html><head><title>Plain</title>${style}</head><body>
        <input name="note" aria-label="Note" value="WWWWWWWW" readonly ${placedAt(PLAIN)}></body></html>`,
      '/with-frame': `<!doctype html><html><head><title>Framed</title>${style}</head><body>
        <iframe title="same" src="/inner-same" ${placedAt(FRAMES.same)}></iframe></body></html>`,
      '/otp': `<!doctype html><html><head><title>Two-step verification</title>${style}</head><body><form>
        <label style="position:absolute;top:10px;left:20px">Verification code</label><input name="code" id="code" autocomplete="one-time-code" aria-label="Verification code" ${placedAt(SECRET)}>
        <input name="note" aria-label="Note" value="WWWWWWWW" readonly ${placedAt(PLAIN)}></form></body></html>`,
    });
    port = new URL(site.url).port;
    rig = await startMaskRig({
      agents: scriptedRegistry,
      sessionPoolSize: 0,
      secrets: memorySecrets({ 'provider/anthropic': 'sk-ant-test' }),
      llmRetry: { maxRetries: 0, timeoutMs: 10_000 },
    });
    ({ svc, model } = rig);
  });
  afterAll(async () => {
    await rig?.dispose();
    await site?.close();
  });

  it('a job step screenshot paints over the password fields of a same-origin and a cross-origin iframe and a shadow root, not the ordinary fields next to them', async () => {
    expect(
      (
        await svc.request('createPortal', {
          params: { org_id: 'default' },
          body: { endpoint_name: 'frames', start_url: `${site.url}/outer`, task: 'script:visit' },
        })
      ).status,
    ).toBe(200);
    const started = await svc.send('startJob', {
      params: { org_id: 'default', endpoint_name: 'frames' },
      body: { orchestrator_model: 'builtin:autofill', form_data: {} },
    });
    expect(started.status).toBe(200);
    const jobId = String((started.body as { job_id: string }).job_id);
    const done = await waitForJob(svc, 'frames', jobId, ['completed', 'failed'], 60_000);
    expect(done.status, String(done.error)).toBe('completed');
    expect(site.hits).toEqual(expect.arrayContaining(['GET /inner-same', 'GET /inner-cross']));

    const shot = await readFile(join(screenshotsDir(join(svc.dataDir, 'artifacts'), jobId), screenshotName(0)));
    const page = await rig.viewerPage();
    expect(
      await maskedShare(page, shot, inFrame(FRAMES.same, SECRET)),
      'password in the same-origin iframe',
    ).toBeGreaterThan(0.97);
    expect(
      await maskedShare(page, shot, inFrame(FRAMES.cross, SECRET)),
      'password in the cross-origin iframe',
    ).toBeGreaterThan(0.97);
    expect(await maskedShare(page, shot, SHADOW), 'password in a shadow root').toBeGreaterThan(0.97);
    // The check can tell: the ordinary fields of both frames are not painted over.
    expect(await maskedShare(page, shot, inFrame(FRAMES.same, PLAIN))).toBe(0);
    expect(await maskedShare(page, shot, inFrame(FRAMES.cross, PLAIN))).toBe(0);
  });

  it('a one-frame page is checked in an isolated world (the step screenshot masks its shadow-root password though its own scripts hide the field from their world); with frames it is left to the per-frame check', async () => {
    const viewer = await rig.viewerPage();
    const at = async (path: string): Promise<boolean | undefined> => {
      await viewer.goto(`${site.url}${path}`);
      return secretFieldShownInPage(viewer);
    };
    expect(await at('/alone'), 'a password in a shadow root, the main world blinded').toBe(true);
    expect(await viewer.evaluate(() => document.querySelectorAll('*').length), 'the page blinds its own world').toBe(0);
    expect(await at('/plain'), 'no secret field').toBe(false);
    expect(await at('/with-frame'), 'a page with an iframe').toBeUndefined();

    expect(
      (
        await svc.request('createPortal', {
          params: { org_id: 'default' },
          body: { endpoint_name: 'alone', start_url: `${site.url}/alone`, task: 'script:visit' },
        })
      ).status,
    ).toBe(200);
    const started = await svc.send('startJob', {
      params: { org_id: 'default', endpoint_name: 'alone' },
      body: { orchestrator_model: 'builtin:autofill', form_data: {} },
    });
    expect(started.status).toBe(200);
    const jobId = String((started.body as { job_id: string }).job_id);
    const done = await waitForJob(svc, 'alone', jobId, ['completed', 'failed'], 60_000);
    expect(done.status, String(done.error)).toBe('completed');
    const page = await rig.viewerPage();
    for (const index of [0, 1]) {
      const shot = await readFile(join(screenshotsDir(join(svc.dataDir, 'artifacts'), jobId), screenshotName(index)));
      expect(await maskedShare(page, shot, SHADOW), `step ${index + 1}: password in a shadow root`).toBeGreaterThan(
        0.97,
      );
      expect(await maskedShare(page, shot, PLAIN), `step ${index + 1}: the ordinary field`).toBe(0);
    }
  });

  it('a workflow step screenshot taken with a one-time code in an autocomplete=one-time-code field paints the field over', async () => {
    const made = await svc.send(
      'createWorkflow',
      {
        body: {
          name: 'Enter the code',
          steps: [{ action: `go to ${site.url}/otp` }, { action: 'type {{code}} into Verification code' }],
          parameters: { code: null },
        },
      },
      { key: svc.accountKey },
    );
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const workflowId = (made.body as { id: string }).id;
    const ran = await svc.send(
      'runWorkflow',
      { params: { workflow_id: workflowId }, body: { variables: { code: CODE } } },
      { key: svc.accountKey },
    );
    expect(ran.status, JSON.stringify(ran.body)).toBe(200);
    const executionId = (ran.body as { id: string }).id;
    const done = await until(
      async () => {
        const { body } = await svc.send(
          'getWorkflowExecution',
          { params: { workflow_id: workflowId, execution_id: executionId } },
          { key: svc.accountKey },
        );
        const execution = body as {
          status: string;
          steps: { success: boolean | null; screenshot_url: string | null }[];
        };
        return execution.status !== 'running' ? execution : undefined;
      },
      'the workflow run to end',
      60_000,
    );
    expect(done.status, JSON.stringify(done)).toBe('completed');
    expect(model.requests).toHaveLength(0);

    const response = await svc.api(new URL(String(done.steps[1]?.screenshot_url)).pathname, { key: svc.accountKey });
    expect(response.status).toBe(200);
    const shot = Buffer.from(await response.arrayBuffer());
    const page = await rig.viewerPage();
    expect(await maskedShare(page, shot, SECRET), 'the one-time-code field').toBeGreaterThan(0.97);
    expect(await maskedShare(page, shot, PLAIN)).toBe(0);
  });
});
