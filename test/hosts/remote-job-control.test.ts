// A job on a remote browser host is controlled as a local one (issue 22, "Everything a job does works on a
// remote browser"): human in the loop (the question, the answer resuming it), the live view (frames of the
// remote page, and input reaching it), cancel (the job ends cancelled and the host's slot comes back), and the
// model-driven agent (real SDK against a scripted model server) filling a form there.
// The host is a Chromium debugging port in a network namespace (needs root: ip netns, as in CI).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memorySecrets } from '../helpers/memorySecrets.ts';
import { type RecordedRequest, type ScriptedReply, startModelServer } from '../helpers/modelServer.ts';
import { netnsAvailable } from '../helpers/netns.ts';
import { scriptedRegistry } from '../helpers/scriptedAgents.ts';
import { jsonOf, makeDataDir, startService, waitForJob } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';
import { type HostRig, startHostRig } from './hostRig.ts';

/** The [index] the latest turn listed for an element named `name`. */
function indexOf(request: RecordedRequest, name: string): number {
  const last = request.body.messages.at(-1);
  const text = last.content
    .filter((b: { type: string }) => b.type === 'text')
    .map((b: { text: string }) => b.text)
    .join('\n');
  const found = text.match(new RegExp(`\\[(\\d+)\\] [a-z]+(?: type=\\w+)? "${name}"`));
  if (!found) throw new Error(`no element "${name}" in:\n${text}`);
  return Number(found[1]);
}

/** A model that fills the sign-up form in one turn, then reports the reference it reads. */
function formFiller(request: RecordedRequest): ScriptedReply {
  const text = JSON.stringify(request.body.messages.at(-1));
  if (text.includes('Reference ABC-123'))
    return { toolCalls: [{ name: 'done', input: { result: { reference: 'ABC-123' } } }] };
  return {
    text: 'Filling the form.',
    toolCalls: [
      { name: 'type', input: { index: indexOf(request, 'Email'), text: 'ada@example.com' } },
      { name: 'select', input: { index: indexOf(request, 'Country'), option: 'France' } },
      { name: 'click', input: { index: indexOf(request, 'Submit') } },
    ],
  };
}

const SIGNUP = `<!doctype html><title>Sign up</title><form id="f" method="post" action="/signed">
  <label>Email <input name="email" type="email"></label>
  <label>Country <select name="country"><option>Choose</option><option>France</option><option>Spain</option></select></label>
  <button type="submit">Submit</button></form>`;

const FORM = `<!doctype html><title>Colour</title>
<input id="note" aria-label="note" style="position:absolute;left:10px;top:10px;width:300px;height:40px">
<input id="colour" aria-label="colour" style="position:absolute;left:10px;top:80px">
<script>
  document.getElementById('note').addEventListener('change', (e) => {
    fetch('/typed?v=' + encodeURIComponent(e.target.value));
  });
</script>`;

describe.skipIf(!netnsAvailable())(
  'jobs on a remote host: HITL, live view, cancel (needs root: ip netns)',
  { timeout: 120_000 },
  () => {
    let rig: HostRig;
    const typed: { value: string; from: string }[] = [];

    beforeAll(async () => {
      rig = await startHostRig({
        hosts: [{ name: 'cdp-1', engine: 'cdp', max_browsers: 2 }],
        localMaxBrowsers: 0,
        handlers: {
          '/colour': (_req, res) => {
            res.writeHead(200, { 'content-type': 'text/html' }).end(FORM);
          },
          '/signup': (_req, res) => {
            res.writeHead(200, { 'content-type': 'text/html' }).end(SIGNUP);
          },
          '/signed': (_req, res) => {
            res
              .writeHead(200, { 'content-type': 'text/html' })
              .end('<!doctype html><title>Thanks</title><h1>Thank you</h1><p>Reference ABC-123</p>');
          },
          '/typed': (req, res) => {
            typed.push({
              value: new URL(String(req.url), 'http://x').searchParams.get('v') ?? '',
              from: String(req.socket.remoteAddress),
            });
            res.writeHead(204).end();
          },
        },
        service: { agents: scriptedRegistry },
      });
      for (const [name, task] of [
        ['ask', 'script:ask'],
        ['hang', 'script:hang'],
      ] as const) {
        const made = await jsonOf(
          await rig.svc.api('/portals/default', {
            method: 'POST',
            json: { endpoint_name: name, start_url: rig.forms.url('/colour'), task },
          }),
        );
        expect(made.status, JSON.stringify(made.body)).toBe(200);
      }
    });
    afterAll(async () => {
      await rig?.close();
    });

    const inUse = async () => {
      const res = await rig.svc.api('/admin/hosts', {
        key: null,
        headers: { 'x-console-token': rig.svc.consoleToken },
      });
      return ((await res.json()) as { hosts: { name: string; browsers_in_use: number }[] }).hosts.find(
        (h) => h.name === 'cdp-1',
      )?.browsers_in_use;
    };
    const start = async (portal: string, json: Record<string, unknown>) => {
      const res = await jsonOf(await rig.svc.api(`/jobs/default/${portal}/start`, { method: 'POST', json }));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return String((res.body as { job_id: string }).job_id);
    };

    it('asks a human while the remote page is on the live view; input on the live view reaches it; the answer resumes the job there', async () => {
      const jobId = await start('ask', { form_data: {}, human_in_the_loop: true });
      const waiting = await waitForJob(rig.svc, 'ask', jobId, ['waiting_for_input', 'failed']);
      expect(waiting.status, JSON.stringify(waiting.error)).toBe('waiting_for_input');
      expect(await inUse()).toBe(1);
      const liveUrl = String(waiting.browser_url);
      expect(liveUrl.startsWith(rig.svc.url)).toBe(true);

      // Frames of the remote page, streamed over the host connection.
      const controller = new AbortController();
      const frames = await fetch(`${liveUrl}/frames`, { signal: controller.signal });
      const reader = frames.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      while (!/event: frame\ndata: .*\n\n/.test(text)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      controller.abort();
      const frame = JSON.parse(/event: frame\ndata: (.*)\n\n/.exec(text)![1]!) as Record<string, unknown>;
      expect(frame).toMatchObject({ format: 'jpeg' });
      expect(String(frame.data).length).toBeGreaterThan(100);

      // A person's input on the live view lands in the remote page (which reports it from the host's address).
      const input = (json: Record<string, unknown>) =>
        rig.svc.api(`${new URL(liveUrl).pathname}/input`, { method: 'POST', key: null, json });
      expect((await input({ kind: 'mouse', type: 'click', x: 60, y: 30 })).status).toBe(200);
      expect((await input({ kind: 'text', text: 'typed live' })).status).toBe(200);
      expect((await input({ kind: 'mouse', type: 'click', x: 60, y: 90 })).status).toBe(200);
      await until(() => typed.length > 0, 'the typed text to reach the page');
      expect(typed).toEqual([{ value: 'typed live', from: expect.stringContaining(rig.hosts[0]!.address) }]);

      const question = (waiting.events as { type: string; data: { question_id: string } }[]).find(
        (e) => e.type === 'question',
      );
      const answered = await jsonOf(
        await rig.svc.api(`/jobs/default/ask/answer?job_id=${jobId}`, {
          method: 'POST',
          json: { question_id: question!.data.question_id, answer: 'green' },
        }),
      );
      expect(answered.status, JSON.stringify(answered.body)).toBe(200);
      const done = await waitForJob(rig.svc, 'ask', jobId, ['completed', 'failed']);
      expect([done.status, done.result]).toEqual(['completed', { colour: 'green' }]);
      await until(async () => (await inUse()) === 0, 'the slot to come back');
    });

    it('cancel ends a running remote job as cancelled and gives its slot back', async () => {
      const jobId = await start('hang', { form_data: {} });
      await until(async () => {
        const status = await waitForJob(rig.svc, 'hang', jobId, ['running', 'failed']);
        return (status.events as { type: string }[]).some((e) => e.type === 'step') || status.status === 'failed';
      }, 'the remote job to take its first step');
      expect(await inUse()).toBe(1);
      const cancelled = await jsonOf(
        await rig.svc.api(`/jobs/default/hang/cancel?job_id=${jobId}`, { method: 'POST' }),
      );
      expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
      expect((await waitForJob(rig.svc, 'hang', jobId, ['cancelled', 'failed', 'completed'])).status).toBe('cancelled');
      await until(async () => (await inUse()) === 0, 'the slot to come back');
    });

    it('the model-driven agent fills a form on the remote browser (the form is posted from the host)', async () => {
      const model = await startModelServer();
      const previous = process.env.PORTICO_ANTHROPIC_BASE_URL;
      process.env.PORTICO_ANTHROPIC_BASE_URL = model.anthropicBaseUrl;
      const dataDir = await makeDataDir();
      await writeFile(
        join(dataDir, 'settings.json'),
        JSON.stringify({
          local_max_browsers: 0,
          browser_hosts: [{ name: 'cdp-1', kind: 'cdp', url: rig.hosts[0]!.url, max_browsers: 2 }],
        }),
      );
      const svc = await startService(dataDir, {
        secrets: memorySecrets({ 'provider/anthropic': 'sk-ant-test' }),
        llmRetry: { maxRetries: 1, timeoutMs: 20_000 },
      });
      try {
        await until(async () => {
          const res = await svc.api('/admin/hosts', { key: null, headers: { 'x-console-token': svc.consoleToken } });
          return ((await res.json()) as { hosts: { name: string; reachable: boolean }[] }).hosts.some(
            (h) => h.name === 'cdp-1' && h.reachable,
          );
        }, 'cdp-1 to answer');
        const portal = await jsonOf(
          await svc.api('/portals/default', {
            method: 'POST',
            json: {
              endpoint_name: 'signup',
              start_url: rig.forms.url('/signup'),
              task: 'Sign up with the given data',
              form_schema: { type: 'object', properties: { email: { type: 'string' }, country: { type: 'string' } } },
            },
          }),
        );
        expect(portal.status, JSON.stringify(portal.body)).toBe(200);
        model.reset((request) => formFiller(request));
        const started = await jsonOf(
          await svc.api('/jobs/default/signup/start', {
            method: 'POST',
            json: {
              form_data: { email: 'ada@example.com', country: 'France' },
              orchestrator_model: 'anthropic:claude-sonnet-4-6',
            },
          }),
        );
        expect(started.status, JSON.stringify(started.body)).toBe(200);
        const job = await waitForJob(svc, 'signup', String((started.body as { job_id: string }).job_id), [
          'completed',
          'failed',
        ]);
        expect([job.status, job.result, job.error]).toEqual(['completed', { reference: 'ABC-123' }, null]);
        const posted = rig.forms.postsTo('/signed');
        expect(posted.map((p) => [p.fields, rig.placeOf(p.from)])).toEqual([
          [{ email: 'ada@example.com', country: 'France' }, 'cdp-1'],
        ]);
        // The model saw the remote page: its screenshot came over the host connection.
        expect(model.requests[0]!.body.messages[0].content.some((b: { type: string }) => b.type === 'image')).toBe(
          true,
        );
      } finally {
        await svc.dispose();
        await model.close();
        if (previous === undefined) delete process.env.PORTICO_ANTHROPIC_BASE_URL;
        else process.env.PORTICO_ANTHROPIC_BASE_URL = previous;
      }
    });
  },
);
